/**
 * `deno task demo`: set up an example packet in a temp dir, run it through the real CLI entry (a subprocess with
 * exactly the `run` permissions), print how to look at it, and remove the temp dir at the end.
 *
 * - `deno task demo` runs the recovery example (a few seconds).
 * - `deno task demo:slow` (`--slow`) runs the steerable demo packet in the studio view with every simulated delay ×12
 *   (about 80 s of streaming) and prints the exact `control` commands to steer it from a second terminal.
 * - `--packet=demo` runs the demo packet at its normal pace; `--keep` keeps the temp dir (and says where it is);
 *   any other `--flag` is passed to `run`.
 *
 * Ctrl-C interrupts the run (the runner closes it as interrupted) and still removes the temp dir.
 */
import { setupExample } from "../examples/setup.ts";
import { denoFlagsFor } from "../src/cli/frame.ts";
import { findCommand } from "../src/cli/registry.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;

/** How much slower than shipped the `--slow` demo plays its simulated scripts. */
export const SLOW_PACE = 12;

/** What to run. */
export interface DemoOptions {
  name: "recovery" | "demo";
  slow: boolean;
  keep: boolean;
  /** Flags passed to `run`. */
  runFlags: string[];
}

/** Parse the demo's arguments. */
export function demoOptions(args: readonly string[]): DemoOptions {
  const slow = args.includes("--slow");
  const packetDemo = args.includes("demo") || args.includes("--packet=demo");
  return {
    name: slow || packetDemo ? "demo" : "recovery",
    slow,
    keep: args.includes("--keep"),
    runFlags: args.filter((a) => a.startsWith("--") && !a.startsWith("--packet") && a !== "--slow" && a !== "--keep"),
  };
}

/** A word as a POSIX shell reads it back. */
export function shellWord(s: string): string {
  return /^[\w./@%+=:,-]+$/.test(s) ? s : `'${s.replaceAll("'", "'\\''")}'`;
}

/** The command line that runs a prompt_runner command from any directory, as printed for the user. */
export function cliCommand(...args: string[]): string {
  return ["deno", "run", "-A", MAIN, ...args].map(shellWord).join(" ");
}

/** Run the demo; returns the run's exit code. Prints to stdout. */
export async function runDemo(o: DemoOptions): Promise<number> {
  const root = await Deno.makeTempDir({ prefix: `prompt-runner-${o.name}-` });
  let code = 1;
  try {
    const dir = await setupExample(o.name, root, { pace: o.slow ? SLOW_PACE : 1 });
    console.log(`Running the ${o.name} packet in ${dir}${o.slow ? " (about 80 s of streaming)" : ""}`);
    if (o.slow || o.name === "demo") {
      console.log("From a second terminal, watch and steer it while a prompt streams:");
      console.log(`  ${cliCommand("control", "status", dir)}`);
      console.log(`  ${cliCommand("control", "view", dir, "--log-mode", "verbose")}`);
      console.log(`  ${cliCommand("control", "steer", dir, "--")} keep the greeting short`);
      console.log(`  ${cliCommand("control", "log", dir)}`);
    }
    console.log("");
    code = await runPacket(dir, o);
    console.log("");
    console.log(`${o.name} finished with exit ${code}.`);
    if (o.keep) {
      console.log(`  packet  ${dir}`);
      console.log(`  state   ${dir}/.prompt_runner   (state.json, progress.log, logs/, control/)`);
      console.log("Inspect it with:");
      console.log(`  ${cliCommand("status", dir)}`);
      console.log(`  ${cliCommand("replay", dir, "--log-mode", "studio")}`);
      console.log(`  ${["git", "-C", `${dir}/app`, "log", "--oneline"].map(shellWord).join(" ")}`);
      console.log(`Remove it with: rm -rf ${shellWord(root)}`);
    }
  } finally {
    if (!o.keep) {
      await Deno.remove(root, { recursive: true }).catch(() => {});
      console.log(`Removed ${root} (--keep keeps it).`);
    }
  }
  return code;
}

/**
 * Run `prompt_runner run <dir>` as a child in its own process group, so a Ctrl-C in the terminal reaches only this
 * script, which forwards exactly one SIGINT (the runner then closes the run as interrupted, exit 130).
 */
async function runPacket(dir: string, o: DemoOptions): Promise<number> {
  const perms = denoFlagsFor(findCommand(["run"])!.entry.permissions);
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--no-prompt", ...perms, MAIN, "run", dir, ...o.runFlags],
    stdin: "null",
    stdout: "inherit",
    stderr: "inherit",
    detached: true,
  }).spawn();
  const forward = () => {
    try {
      child.kill("SIGINT");
    } catch { /* already gone */ }
  };
  Deno.addSignalListener("SIGINT", forward);
  try {
    return (await child.status).code;
  } finally {
    Deno.removeSignalListener("SIGINT", forward);
  }
}

if (import.meta.main) {
  Deno.exit(await runDemo(demoOptions(Deno.args)));
}
