/**
 * The attempt driver end to end (src/run/attempt.ts performing src/run/next_stream.ts decisions): in-attempt session
 * resumes spend `recovery.resume_attempts`, each one a stream of the same attempt on the same session, announced by a
 * `session_resumed` event and a `SESSION_RESUME` log marker; once the budget is spent the stream's own error ends it.
 */
import assert from "node:assert/strict";
import { runCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { makePacket, promptFile, readPrompts } from "./support.ts";

interface AttemptRecord {
  session_id: string | null;
  log_file: string | null;
  streams: { kind: string; result: string | null }[];
}

/** No retries, no repair: the attempt's streams are the whole story. */
const RECOVERY =
  "recovery: {retry: {max_attempts: 0, class_attempts: {protocol_error: 0}}, repair: {enabled: false}, " +
  "resume_attempts: 2}";

Deno.test("in-attempt resumes spend resume_attempts: two resumes on one session, then the stream's error fails it", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile(
      "1",
      `${RECOVERY}
verify:
  files_exist: [never.txt]
simulate:
  attempts:
    - error: {kind: protocol_error, message: "dropped first"}
  resume:
    error: {kind: protocol_error, message: "dropped again"}`,
    ),
  });
  const r = await runCli(["run", pkt]);
  assert.equal(r.code, 1, r.stdout + r.stderr);
  const p = (await readPrompts(pkt))["01"]!;
  assert.equal(p.status, "failed");
  assert.equal(p.attempts.length, 1, "resumes are streams, never attempts");
  // The attempt record as state.json holds it (PromptEntry types only what most tests read).
  const a = p.attempts[0]! as unknown as AttemptRecord;
  assert.deepEqual(a.streams.map((s) => [s.kind, s.result]), [
    ["initial", "error"],
    ["resume", "error"],
    ["resume", "error"],
  ]);
  const events = (await Deno.readTextFile(`${pkt}/.prompt_runner/control/events.jsonl`)).trim().split("\n")
    .map((l) => JSON.parse(l));
  const resumed = events.filter((e) => e.type === "session_resumed");
  assert.deepEqual(resumed.map((e) => [e.data.reason, e.data.resume_number, e.stream]), [
    ["protocol_error", 1, "resume"],
    ["protocol_error", 2, "resume"],
  ]);
  const started = events.filter((e) => e.type === "run_started" && e.prompt_id === "01");
  assert.equal(started.length, 3, "one run_started per stream");
  assert.ok(a.session_id, "the attempt names its session");
  for (const e of [...resumed, ...started.slice(1)]) assert.equal(e.session_id, a.session_id, "the same session");
  const log = await Deno.readTextFile(`${pkt}/.prompt_runner/${a.log_file}`);
  assert.equal(log.match(/SESSION_RESUME action=started reason=protocol_error/g)?.length, 2);
  assert.match(r.stdout + r.stderr, /dropped again/, "the last stream's error is the one reported");
});
