/**
 * Cold start: `prompt_runner list <packet> --json` and `control status <packet> --json` as ratios to `deno run` of
 * an empty script, measured alternately in the same run (target ≤ 2.5×). The packet has really run first (a
 * simulated `run --no-commit`), so `control status` reads a completed run; every timed command must exit 0 and
 * print what it should (every prompt listed completed; the snapshot of the completed run).
 */
import { findCommand } from "../../src/cli/registry.ts";
import { denoFlagsFor } from "../../src/cli/frame.ts";
import { check, jsonObjectOf, median, round, runChecked, sized } from "./_harness.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const PROMPTS = 20;
const GIT_ENV = {
  GIT_AUTHOR_NAME: "Bench",
  GIT_AUTHOR_EMAIL: "bench@example.invalid",
  GIT_COMMITTER_NAME: "Bench",
  GIT_COMMITTER_EMAIL: "bench@example.invalid",
};

async function makePacket(dir: string): Promise<void> {
  await Deno.mkdir(`${dir}/prompts`, { recursive: true });
  await Deno.mkdir(`${dir}/app`);
  await runChecked("git", ["init", "-q", "-b", "main"], { cwd: `${dir}/app` });
  await runChecked("git", ["commit", "-q", "--allow-empty", "-m", "init"], { cwd: `${dir}/app`, env: GIT_ENV });
  await Deno.writeTextFile(
    `${dir}/prompt_runner_packet.md`,
    "---\nname: bench\nprovider: simulated\nmodel: simulated-demo\nrepos:\n  app: {path: app, default: true}\n---\n",
  );
  for (let i = 1; i <= PROMPTS; i++) {
    const id = String(i).padStart(2, "0");
    await Deno.writeTextFile(
      `${dir}/prompts/${id}_step.prompt.md`,
      `---\nid: "${id}"\nphase: 1\nverify:\n  files_exist: [f${id}.txt]\n` +
        `simulate:\n  attempts:\n    - writes: [{path: f${id}.txt, text: "step ${id}"}]\n---\n# Step ${id}\n\nDo step ${id}.\n`,
    );
  }
}

function listIsComplete(stdout: string): string | null {
  const doc = jsonObjectOf(stdout);
  if (typeof doc === "string") return doc;
  const prompts = doc.prompts as { status?: unknown }[] | undefined;
  if (!Array.isArray(prompts) || prompts.length !== PROMPTS) return `expected ${PROMPTS} prompts`;
  const open = prompts.filter((p) => p.status !== "completed").length;
  return open ? `${open} prompts are not completed` : null;
}

function statusIsCompleted(stdout: string): string | null {
  const doc = jsonObjectOf(stdout);
  if (typeof doc === "string") return doc;
  if (doc.status !== "completed") return `status ${JSON.stringify(doc.status)}, expected "completed"`;
  return doc.completed_count === PROMPTS ? null : `completed_count ${doc.completed_count}, expected ${PROMPTS}`;
}

/** Run the cold-start benchmark. */
export async function bench(): Promise<Record<string, number | string>> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "pr-bench-cli-" }));
  try {
    await makePacket(dir);
    const flags = (path: string[]) => denoFlagsFor(findCommand(path)!.entry.permissions);
    const deno = Deno.execPath();
    const env = { NO_COLOR: "1", ...GIT_ENV };
    await runChecked(deno, ["run", "--quiet", ...flags(["run"]), MAIN, "run", dir, "--no-commit"], { cwd: dir, env });
    await Deno.writeTextFile(`${dir}/empty.ts`, "");
    const empty = ["run", "--quiet", `${dir}/empty.ts`];
    const list = ["run", "--quiet", ...flags(["list"]), MAIN, "list", dir, "--json"];
    const status = ["run", "--quiet", ...flags(["control", "status"]), MAIN, "control", "status", dir, "--json"];
    const timeEmpty = async () => (await runChecked(deno, empty, { cwd: dir, env, expect: (o) => o ? o : null })).ms;
    const timeList = async () => (await runChecked(deno, list, { cwd: dir, env, expect: listIsComplete })).ms;
    const timeStatus = async () => (await runChecked(deno, status, { cwd: dir, env, expect: statusIsCompleted })).ms;
    // Warm the module cache once.
    await timeEmpty();
    await timeList();
    await timeStatus();
    const e: number[] = [], l: number[] = [], s: number[] = [];
    const repeats = sized(15, 5);
    for (let i = 0; i < repeats; i++) {
      e.push(await timeEmpty());
      l.push(await timeList());
      s.push(await timeStatus());
    }
    const me = median(e), ml = median(l), ms = median(s);
    check(me > 0, "the empty run took no time");
    return {
      repeats,
      empty_deno_run_ms: round(me, 1),
      list_json_ms: round(ml, 1),
      list_json_ratio: round(ml / me),
      control_status_json_ms: round(ms, 1),
      control_status_json_ratio: round(ms / me),
      target_ratio: 2.5,
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
