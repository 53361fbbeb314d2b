/**
 * Stage timestamps (src/util/stage_trace.ts) are off unless PROMPT_RUNNER_STAGE_TRACE names a file and the process
 * may read that variable; on, each process appends `<wall ms> <stage> <key> <pid>` lines at a flush. Each case runs
 * in a child process: the variable is read once per process.
 */
import assert from "node:assert/strict";
import { tempDir } from "../support/fs.ts";

const MODULE = new URL("../../src/util/stage_trace.ts", import.meta.url).href;
const SCRIPT = `import { flushStageTrace, traceStage, traceStageAt, stageTraceOn } from ${JSON.stringify(MODULE)};
const before = Date.now();
traceStage("claimed", "r1.json");
traceStageAt(1234.5, "bench_seen", "r1.json");
traceStage("scan", "");
flushStageTrace();
flushStageTrace(); // nothing new: nothing appended
console.log(JSON.stringify({ on: stageTraceOn(), before }));`;

async function child(dir: string, env: Record<string, string>, permissions: string[]) {
  const script = `${dir}/child.ts`;
  await Deno.writeTextFile(script, SCRIPT);
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--no-prompt", `--allow-read=${dir}`, ...permissions, script],
    env,
    clearEnv: true,
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  return JSON.parse(new TextDecoder().decode(out.stdout)) as { on: boolean; before: number };
}

Deno.test("stage trace: lines on one wall clock with the pid, appended at a flush", async () => {
  await using tmp = await tempDir();
  const file = `${tmp.path}/trace.txt`;
  const r = await child(tmp.path, { PROMPT_RUNNER_STAGE_TRACE: file }, ["--allow-env", `--allow-write=${tmp.path}`]);
  assert.equal(r.on, true);
  const lines = (await Deno.readTextFile(file)).trimEnd().split("\n").map((l) => l.split(" "));
  assert.equal(lines.length, 3);
  assert.deepEqual(lines.map((l) => l.slice(1, 3)), [["claimed", "r1.json"], ["bench_seen", "r1.json"], ["scan", "-"]]);
  const at = Number(lines[0]![0]);
  assert.ok(at >= r.before - 5 && at <= Date.now(), `a wall-clock time in ms (${at})`);
  assert.equal(lines[1]![0], "1234.500");
  assert.ok(lines.every((l) => /^\d+$/.test(l[3]!) && l[3] === lines[0]![3]), "one pid on every line");
});

Deno.test("stage trace: off without the variable, and off (never a prompt) without env permission", async () => {
  await using tmp = await tempDir();
  const file = `${tmp.path}/trace.txt`;
  assert.equal((await child(tmp.path, {}, ["--allow-env", `--allow-write=${tmp.path}`])).on, false);
  assert.equal((await child(tmp.path, { PROMPT_RUNNER_STAGE_TRACE: file }, [`--allow-write=${tmp.path}`])).on, false);
  assert.equal(await Deno.stat(file).then(() => true, () => false), false, "no trace file written");
});
