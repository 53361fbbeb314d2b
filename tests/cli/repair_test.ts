import assert from "node:assert/strict";
import { runCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { commitCount, history, makePacket, promptFile, readPrompts } from "../run/support.ts";

Deno.test("repair runs one repair attempt from the last recorded verification and completes the prompt", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile(
      "1",
      `verify:
  files_exist: [a.txt, b.txt]
recovery:
  repair: {enabled: false}
simulate:
  attempts:
    - writes: [{path: a.txt}]
    - writes: [{path: b.txt}]`,
    ),
  });
  const first = await runCli(["run", pkt]);
  assert.equal(first.code, 1);
  assert.deepEqual(history((await readPrompts(pkt))["01"]), ["run:verification_failed"]);
  const r = await runCli(["repair", pkt, "1"]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /attempt 2 \(repair\)/);
  const p = (await readPrompts(pkt))["01"]!;
  assert.deepEqual(history(p), ["run:verification_failed", "repair:completed"]);
  assert.equal(p.attempts[0]!.run_id, p.attempts[1]!.run_id, "repair continues the failed run");
  // The repair prompt named the unmet check from the recorded verification.
  const events = await Deno.readTextFile(`${pkt}/.prompt_runner/control/events.jsonl`);
  const sent = events.trim().split("\n").map((l) => JSON.parse(l)).filter((e) => e.type === "message_sent").at(-1);
  assert.match(sent.data.content, /## Repair pass 1 of 2\n/);
  assert.match(sent.data.content, /### Unmet checks\n- files_exist#2\n/);
  assert.match(sent.data.content, /### Satisfied checks\nfiles_exist#1\n/);
  assert.equal(await commitCount(`${pkt}/app`), 2);
});

Deno.test("repair needs exactly one prompt id and rejects unknown ids with exit 4", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, { "01_a.prompt.md": promptFile("1", "verify:\n  files_exist: [x.txt]") });
  const none = await runCli(["repair", pkt]);
  assert.equal(none.code, 2);
  assert.match(none.stderr, /repair takes exactly one prompt id/);
  const unknown = await runCli(["repair", pkt, "7"]);
  assert.equal(unknown.code, 4);
  assert.match(unknown.stderr, /unknown prompt 7; known: 01/);
});
