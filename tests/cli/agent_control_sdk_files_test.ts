/**
 * The sdk's file variables (docs/agent-control.md §2): a controlled session also gets
 * `PROMPT_RUNNER_AGENT_CONTROL_FILE` (the iteration's terminal request, created once: the first request wins) and
 * `PROMPT_RUNNER_AGENT_PROGRESS_FILE` (its progress, replaced atomically and refreshable), both inside the private
 * directory. The runner reads the sdk's documents there, authenticates and audits them like the command's records.
 */
import assert from "node:assert/strict";
import { runCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { readPrompts } from "../run/support.ts";
import { parseAgentRecord, SDK_SCHEMAS } from "../../src/store/agent_records.ts";
import { auditLog, controlledPacket } from "./_agent_control_support.ts";

Deno.test("sdk files: progress and requests written to the sdk's paths are authenticated, audited and applied", async () => {
  await using dir = await tempDir();
  const pkt = await controlledPacket(
    dir.path,
    {
      "01_loop": `verify:
  files_exist: [handoff.md]
simulate:
  attempts:
    - writes: [{path: handoff.md, text: "unit A"}]
      agent_control:
        - {via: file, action: progress, cursor: P1, unit: A, summary: "unit A in progress"}
        - {via: file, action: progress, cursor: P2, unit: B, summary: "unit B in progress"}
        - {via: file, action: repeat, reason: "unit A done; next is unit B"}
        - {via: file, action: blocked, reason: "a second request: the file exists, the first wins"}
    - writes: [{path: done.txt, text: "done"}]
      agent_control: [{via: file, action: finish, reason: "the objective is complete"}]`,
    },
    { defaultAction: "continue", maxIterations: 3 },
  );
  const r = await runCli(["run", pkt]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.equal((await readPrompts(pkt))["01"]!.status, "completed");
  const log = await auditLog(pkt);
  const applied = log.filter((e) => e.command === "agent_directive" && e.outcome === "applied");
  assert.deepEqual(applied.map((e) => [e.author, e.params.action, e.params.reason, e.params.file]), [
    ["agent:01#1", "repeat", "unit A done; next is unit B", "request.json"],
    ["agent:01#2", "finish", "the objective is complete", "request.json"],
  ]);
  assert.equal(log.filter((e) => e.outcome === "rejected").length, 0, JSON.stringify(log, null, 1));
  // The progress file is replaced, never appended: the last version judged is the refreshed one.
  const progress = log.filter((e) => e.command === "agent_progress");
  assert.ok(progress.length >= 1 && progress.every((e) => e.outcome === "accepted"), JSON.stringify(progress));
  assert.ok(progress.every((e) => String(e.params.file).startsWith("progress.json#")));
  assert.equal(progress.at(-1)!.params.cursor, "P2");
  assert.equal(progress.at(-1)!.params.unit, "B");
});

Deno.test("sdk files: a forged request in the sdk file is refused and audited; the default action applies", async () => {
  await using dir = await tempDir();
  const pkt = await controlledPacket(
    dir.path,
    {
      "01_a": `verify:
  files_exist: [a.txt]
simulate:
  attempts:
    - writes: [{path: a.txt}]
      agent_control:
        - {via: file, action: blocked, reason: forged, token: not-the-token}`,
    },
    { defaultAction: "continue", maxIterations: 3 },
  );
  const r = await runCli(["run", pkt]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const log = await auditLog(pkt);
  assert.deepEqual(log.filter((e) => e.outcome === "rejected").map((e) => [e.params.action, e.reason]), [
    ["blocked", "the token does not match this invocation"],
  ]);
  const applied = log.filter((e) => e.outcome === "applied");
  assert.deepEqual(applied.map((e) => [e.author, e.params.action]), [["runner", "continue"]]);
});

Deno.test("parseAgentRecord() reads the sdk's request and progress documents", () => {
  const base = { token: "t", run_id: "r", prompt_id: "01", iteration: 2 };
  const req = parseAgentRecord(JSON.stringify({
    schema: SDK_SCHEMAS.request,
    ...base,
    action: "Stop_Blocked",
    reason: " no credentials ",
    requested_at: "2026-12-01T00:00:00Z",
  }));
  assert.equal(req?.kind, "blocked");
  assert.equal(req?.reason, "no credentials");
  assert.equal(req?.at, "2026-12-01T00:00:00Z");
  assert.equal(req?.iteration, 2);
  const prog = parseAgentRecord(JSON.stringify({
    schema: SDK_SCHEMAS.progress,
    ...base,
    cursor: "P9",
    unit: null,
    summary: "s",
    updated_at: "2026-12-01T00:00:01Z",
  }));
  assert.deepEqual([prog?.kind, prog?.cursor, prog?.unit, prog?.summary], ["progress", "P9", null, "s"]);
  assert.equal(parseAgentRecord(JSON.stringify({ schema: SDK_SCHEMAS.request, ...base, action: "jump" })), null);
  assert.equal(parseAgentRecord(JSON.stringify({ schema: SDK_SCHEMAS.request, ...base })), null);
});
