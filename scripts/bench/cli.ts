/**
 * Cold-start benchmark: `prompt_runner list <packet> --json` and `control status --json` as ratios to `deno run` of
 * an empty script, measured alternately in the same run (issues: ≤ 2.5×).
 */
import { findCommand } from "../../src/cli/registry.ts";
import { denoFlagsFor } from "../../src/cli/frame.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

async function timeOnce(args: string[], cwd: string): Promise<number> {
  const t0 = performance.now();
  const out = await new Deno.Command(Deno.execPath(), { args, cwd, stdout: "null", stderr: "piped" }).output();
  const ms = performance.now() - t0;
  if (!out.success && args.includes("list")) {
    throw new Error(`benchmark command failed: ${new TextDecoder().decode(out.stderr)}`);
  }
  return ms;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function makePacket(dir: string): Promise<void> {
  await Deno.mkdir(`${dir}/prompts`, { recursive: true });
  await Deno.writeTextFile(`${dir}/prompt_runner_packet.md`, "---\nname: bench\nprofile: simulated-default\n---\n");
  for (let i = 1; i <= 20; i++) {
    const id = String(i).padStart(2, "0");
    await Deno.writeTextFile(
      `${dir}/prompts/${id}_step.prompt.md`,
      `---\nid: ${id}\nphase: 1\nverify:\n  files_exist: [f${id}.txt]\n---\n# Step ${id}\n\nDo step ${id}.\n`,
    );
  }
}

/** Run the cold-start benchmark. */
export async function bench(): Promise<Record<string, number | string>> {
  const dir = await Deno.makeTempDir({ prefix: "pr-bench-cli-" });
  try {
    await makePacket(dir);
    await Deno.writeTextFile(`${dir}/empty.ts`, "");
    const flags = (path: string[]) => denoFlagsFor(findCommand(path)!.entry.permissions);
    const empty = ["run", "--quiet", `${dir}/empty.ts`];
    const list = ["run", "--quiet", ...flags(["list"]), MAIN, "list", dir, "--json"];
    const status = ["run", "--quiet", ...flags(["control", "status"]), MAIN, "control", "status", dir, "--json"];
    // Warm the module cache once.
    await timeOnce(empty, dir);
    await timeOnce(list, dir);
    await timeOnce(status, dir);
    const e: number[] = [], l: number[] = [], s: number[] = [];
    for (let i = 0; i < 15; i++) {
      e.push(await timeOnce(empty, dir));
      l.push(await timeOnce(list, dir));
      s.push(await timeOnce(status, dir));
    }
    const me = median(e), ml = median(l), ms = median(s);
    return {
      empty_deno_run_ms: Math.round(me * 10) / 10,
      list_json_ms: Math.round(ml * 10) / 10,
      list_json_ratio: Math.round((ml / me) * 100) / 100,
      control_status_json_ms: Math.round(ms * 10) / 10,
      control_status_json_ratio: Math.round((ms / me) * 100) / 100,
      target_ratio: 2.5,
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
