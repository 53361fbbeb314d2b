/**
 * Rendering of a live run, black-box: a view change while a tool runs, and runner chrome (steer notices) after an
 * open stream line. The offline counterparts are in tests/render/view_switch_test.ts.
 */
import assert from "node:assert/strict";
import { runCli, spawnCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { waitFor } from "../support/wait.ts";
import { makePacket, promptFile, readSnapshot } from "../run/support.ts";

async function eventTypes(pkt: string): Promise<{ type: string; seq: number }[]> {
  try {
    const text = await Deno.readTextFile(`${pkt}/.prompt_runner/control/events.jsonl`);
    return text.trim().split("\n").filter((l) => l !== "").map((l) => JSON.parse(l));
  } catch {
    return [];
  }
}

Deno.test("a live switch from compact to studio while a shell call runs shows the command, duration and count", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile(
      "1",
      `verify:
  files_exist: [out.txt]
simulate:
  attempts:
    - messages: ["Running the tests."]
      tools:
        - name: Bash
          input: {command: "deno test -A"}
          output: "ok 3"
          delay_ms: 6000
          writes: [{path: out.txt, text: "ok\\n"}]`,
    ),
  });
  const child = spawnCli(["run", pkt]);
  await waitFor(async () => (await eventTypes(pkt)).some((e) => e.type === "tool_call_started"));
  const view = await runCli(["control", "view", pkt, "--log-mode", "studio", "--wait"]);
  assert.equal(view.code, 0, view.stderr);
  const out = await child.output();
  const stdout = new TextDecoder().decode(out.stdout);
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const events = await eventTypes(pkt);
  const seqOf = (t: string) => events.find((e) => e.type === t)!.seq;
  assert.ok(seqOf("view_changed") < seqOf("tool_call_completed"), "the view changed while the tool ran");
  assert.match(stdout, /t\+Bash\n {2}✓ Ran: deno test -A \(4 chars, \d+\.\ds\)\n/, stdout);
  assert.doesNotMatch(stdout, /Ran: {2}\(/);
  assert.match(stdout, /Session complete \(end_turn\) — 1 tool\n/);
});

Deno.test("a steer notice starts on a line of its own, never glued to the open stream line", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile(
      "1",
      `verify:
  files_exist: [notes.txt]
simulate:
  attempts:
    - delay_ms: 300
      writes: [{path: notes.txt, text: "plain\\n"}]
      messages: [one, two, three, four, five, six, seven, eight, nine, ten]
  steer:
    messages: ["Adjusting as asked."]`,
    ),
  });
  const child = spawnCli(["run", pkt]);
  await waitFor(async () => (await readSnapshot(pkt))?.session_live === true);
  const steer = await runCli(["control", "steer", pkt, "--", "keep", "it", "short"]);
  assert.equal(steer.code, 0, steer.stderr);
  const out = await child.output();
  const stdout = new TextDecoder().decode(out.stdout);
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  assert.match(stdout, /^↳ steer accepted: keep it short$/m, stdout);
  assert.doesNotMatch(stdout, /[^\n]↳/, "every ↳ notice starts a line");
});
