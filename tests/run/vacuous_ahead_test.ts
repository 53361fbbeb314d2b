/**
 * The vacuous probe runs beside the prompt's baseline read (src/run/vacuous.ts `probeAhead()`, docs/lint.md): both
 * only read the tree. Its early evaluation is used only when no preserved work was to be applied to the tree between
 * the baseline and the probe; otherwise the probe evaluates again after the restore, as it always did. The order is
 * read from the runner's stage trace (src/util/stage_trace.ts).
 */
import assert from "node:assert/strict";
import { runCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { makePacket, promptFile } from "./support.ts";

/** `stage key` of the traced probe and baseline lines, in order. */
async function traced(file: string): Promise<string[]> {
  const text = await Deno.readTextFile(file);
  return text.trim().split("\n").map((l) => l.split(" ")).filter((p) =>
    /^(vacuous_probe|captured_baseline)$/.test(p[1]!)
  )
    .map((p) => `${p[1]} ${p[2]}`);
}

const writes = (id: string, file: string) =>
  promptFile(
    id,
    `verify:\n  files_exist: [${file}]\nsimulate:\n  attempts:\n    - writes: [{path: ${file}, text: ${id}}]`,
  );

Deno.test("the vacuous probe starts before the baseline is captured, once per prompt, and still finds a vacuous contract", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": writes("1", "a.txt"),
    "02_b.prompt.md": writes("2", "README.md"), // the scratch repo has README.md: vacuous
  });
  const trace = `${dir.path}/trace.txt`;
  const r = await runCli(["run", pkt, "--no-commit"], { env: { PROMPT_RUNNER_STAGE_TRACE: trace } });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.deepEqual(await traced(trace), [
    "vacuous_probe 01",
    "captured_baseline 01",
    "vacuous_probe 02",
    "captured_baseline 02",
  ]);
  assert.match(r.stderr, /warning: prompt 02's contract already passes before any session ran; its verdict is vacuous/);
  assert.doesNotMatch(r.stderr, /prompt 01's contract already passes/);
});

Deno.test("preserved work to apply: the early evaluation is dropped and the probe runs after the restore", async () => {
  await using dir = await tempDir();
  const failing = promptFile(
    "1",
    "verify:\n  files_exist: [never.txt]\nsimulate:\n  attempts:\n    - writes: [{path: README.md, text: overwritten}]",
  );
  const pkt = await makePacket(dir.path, { "01_a.prompt.md": failing });
  const first = await runCli(["run", pkt, "--keep-going"]);
  assert.equal(first.code, 1, first.stdout + first.stderr);
  assert.match(first.stdout, /Preserved the work of prompt 01/);
  // The user edits README.md: the preserved work overlaps it and is not restored; the prompt's new contract is
  // vacuous on the tree as it is after that (README.md exists).
  await Deno.writeTextFile(`${pkt}/app/README.md`, "# the user's\n");
  await Deno.writeTextFile(`${pkt}/prompts/01_a.prompt.md`, writes("1", "README.md"));
  const trace = `${dir.path}/trace.txt`;
  const again = await runCli(["run", pkt, "01", "--allow-dirty", "--no-commit"], {
    env: { PROMPT_RUNNER_STAGE_TRACE: trace },
  });
  assert.equal(again.code, 0, again.stdout + again.stderr);
  assert.match(again.stderr, /prompt 01 has preserved work that was not restored/);
  assert.deepEqual(await traced(trace), [
    "vacuous_probe 01", // beside the baseline read: dropped, the tree may change in the restore
    "captured_baseline 01",
    "vacuous_probe 01", // after the restore attempt, on the tree the session starts from
  ]);
  assert.match(again.stderr, /prompt 01's contract already passes before any session ran/);
});
