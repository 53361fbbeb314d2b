/**
 * `deno task demo`: set up the recovery example in a temp dir, run it through the real CLI entry (a subprocess with
 * exactly the `run` permissions), and print where the state is. `--packet demo` runs the steerable demo instead.
 */
import { setupExample } from "../examples/setup.ts";
import { denoFlagsFor } from "../src/cli/frame.ts";
import { findCommand } from "../src/cli/registry.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;

/** Run an example packet through the CLI; returns the exit code and the packet dir. */
export async function runDemo(name: "recovery" | "demo", extra: string[] = []): Promise<{ code: number; dir: string }> {
  const dir = await setupExample(name);
  console.log(`Running ${name} in ${dir}`);
  console.log(`  watch or steer it from another terminal: deno run -A main.ts control status ${dir}\n`);
  const perms = denoFlagsFor(findCommand(["run"])!.entry.permissions);
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--no-prompt", ...perms, MAIN, "run", dir, ...extra],
    stdin: "null",
    stdout: "inherit",
    stderr: "inherit",
  }).spawn();
  const { code } = await child.status;
  return { code, dir };
}

if (import.meta.main) {
  const name = Deno.args.includes("demo") || Deno.args.includes("--packet=demo") ? "demo" : "recovery";
  const started = Date.now();
  const { code, dir } = await runDemo(name, Deno.args.filter((a) => a.startsWith("--") && !a.startsWith("--packet")));
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  console.log("");
  console.log(`${name} finished with exit ${code} in ${secs}s.`);
  console.log(`  packet  ${dir}`);
  console.log(`  repo    ${dir}/app   (git log --oneline)`);
  console.log(`  state   ${dir}/.prompt_runner   (state.json, progress.log, logs/, control/)`);
  console.log(`  inspect prompt_runner status ${dir}`);
  Deno.exit(code);
}
