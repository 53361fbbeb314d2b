/**
 * A session's edit of its own contract is seen even when its runner never compared the file after the session
 * (docs/amendments.md, "Edited during its session"): the run notes the `verify:` it loaded on the prompt's state entry
 * (`loaded_contract`) before the session; a run that finds the prompt's attempt left by a dead runner with a `verify:`
 * changed since records the edit and refuses the prompt (exit 3) — otherwise it would continue the attempt under the
 * contract the session wrote, and the record would say that contract passed. A runner stopped alive compares the file
 * itself when it stops the session.
 */
import assert from "node:assert/strict";
import { runCli, spawnCli } from "../support/cli.ts";
import { git, tempDir } from "../support/fs.ts";
import { waitFor } from "../support/wait.ts";
import { commitCount, makePacket, promptFile, readPrompts, readSnapshot } from "./support.ts";
import { editSinceInterrupt } from "../../src/run/contract_guard.ts";
import { verifyDigest } from "../../src/contract/mod.ts";
import type { Prompt } from "../../src/packet/mod.ts";
import type { PromptState } from "../../src/run/state.ts";

const STRONG = "verify:\n  files_exist: [a.txt, b.txt]\n";
const WEAK = "verify:\n  files_exist: [a.txt]\n";

/** A prompt requiring a.txt and b.txt whose session writes a.txt, rewrites its own file with `WEAK`, then waits. */
function selfWeakening(dir: string, waitMs = 0): string {
  const weakened = promptFile("1", `${WEAK}simulate:\n  attempts:\n    - writes: [{path: a.txt, text: "a"}]`);
  const file = `${dir}/pkt/prompts/01_a.prompt.md`;
  return promptFile(
    "1",
    `${STRONG}recovery: {repair: {enabled: false}}\nsimulate:\n  attempts:\n    - events:\n` +
      `        - write: {path: a.txt, text: "a\\n"}\n` +
      `        - write: {path: ${JSON.stringify(file)}, text: ${JSON.stringify(weakened)}}\n` +
      `        - wait_ms: ${waitMs}\n        - message: done`,
  );
}

async function killedAfterTheEdit(root: string): Promise<string> {
  const pkt = await makePacket(root, { "01_a.prompt.md": selfWeakening(root) });
  const crashed = await runCli(["run", pkt], { env: { PROMPT_RUNNER_FAILPOINT: "attempt.after_session" } });
  assert.equal(crashed.code, 137, crashed.stderr);
  const entry = (await readPrompts(pkt))["01"] as unknown as PromptState;
  assert.equal(entry.loaded_contract?.run_id, entry.attempts.at(-1)!.run_id);
  assert.deepEqual(entry.loaded_contract?.verify, { files_exist: ["a.txt", "b.txt"] });
  assert.match(await Deno.readTextFile(`${pkt}/prompts/01_a.prompt.md`), /files_exist: \[a\.txt\]\n/);
  return pkt;
}

Deno.test("killed after a session that weakened its contract: the next run refuses the prompt, and again after", async () => {
  await using dir = await tempDir();
  const pkt = await killedAfterTheEdit(dir.path);
  const commits = await commitCount(`${pkt}/app`);
  const refused = await runCli(["run", pkt]);
  assert.equal(refused.code, 3, refused.stdout + refused.stderr);
  assert.match(refused.stderr, /contract_edited_in_session|refusing to run/);
  assert.match(
    refused.stderr,
    /prompts\/01_a\.prompt\.md: verify: changed after run \S+ loaded it for prompt 01's attempt 1, whose runner died/,
  );
  assert.match(refused.stderr, /before it: \{"files_exist":\["a\.txt","b\.txt"\]\}/);
  const record = JSON.parse(await Deno.readTextFile(`${pkt}/.prompt_runner/contract_edits/01.json`));
  assert.equal(record.interrupted, true);
  assert.deepEqual(record.verify_before, { files_exist: ["a.txt", "b.txt"] });
  assert.deepEqual(record.verify_after, { files_exist: ["a.txt"] });
  assert.equal(await commitCount(`${pkt}/app`), commits, "nothing is committed");
  // The record refuses it from now on, before any lease (also plan).
  const again = await runCli(["run", pkt]);
  assert.equal(again.code, 3, again.stderr);
  const plan = await runCli(["plan", pkt]);
  assert.equal(plan.code, 3, plan.stderr);
});

Deno.test("killed after the edit, then restored: the prompt continues under the contract it loaded, which fails", async () => {
  await using dir = await tempDir();
  const pkt = await killedAfterTheEdit(dir.path);
  assert.equal((await runCli(["run", pkt])).code, 3);
  const commits = await commitCount(`${pkt}/app`);
  await Deno.writeTextFile(
    `${pkt}/prompts/01_a.prompt.md`,
    promptFile(
      "1",
      `${STRONG}recovery: {repair: {enabled: false}}\nsimulate:\n  attempts:\n    - writes: [{path: a.txt, text: "a"}]`,
    ),
  );
  const resumed = await runCli(["run", pkt]);
  assert.equal(resumed.code, 1, resumed.stdout + resumed.stderr);
  assert.match(resumed.stdout + resumed.stderr, /restored/);
  assert.match(resumed.stdout + resumed.stderr, /b\.txt/);
  const entry = (await readPrompts(pkt))["01"] as unknown as PromptState;
  assert.equal(entry.status, "verification_failed");
  assert.equal(entry.loaded_contract, undefined, "dropped once the prompt ended");
  assert.equal(await commitCount(`${pkt}/app`), commits, "nothing is committed");
});

Deno.test("killed after the edit: --accept-contract-edits keeps it, on the audit log, and the prompt completes", async () => {
  await using dir = await tempDir();
  const pkt = await killedAfterTheEdit(dir.path);
  const accepted = await runCli(["run", pkt, "--accept-contract-edits", "--author", "reviewer"]);
  assert.equal(accepted.code, 0, accepted.stdout + accepted.stderr);
  const log = await Deno.readTextFile(`${pkt}/.prompt_runner/control/log.jsonl`);
  const entries = log.trim().split("\n").map((l) => JSON.parse(l));
  const accept = entries.find((e) => e.command === "accept_contract_edit");
  assert.ok(accept, log);
  assert.equal(accept.author, "reviewer");
  assert.deepEqual(accept.params.verify_after, { files_exist: ["a.txt"] });
  assert.equal((await readPrompts(pkt))["01"]!.status, "completed");
  assert.equal(await git(`${pkt}/app`, "show", "--name-only", "--format=", "HEAD"), "a.txt");
});

Deno.test("killed mid-session with the contract untouched: the prompt continues as before", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile(
      "1",
      `${WEAK}simulate:\n  attempts:\n    - writes: [{path: a.txt, text: "a"}]`,
    ),
  });
  const crashed = await runCli(["run", pkt], { env: { PROMPT_RUNNER_FAILPOINT: "attempt.after_session" } });
  assert.equal(crashed.code, 137, crashed.stderr);
  const resumed = await runCli(["run", pkt]);
  assert.equal(resumed.code, 0, resumed.stdout + resumed.stderr);
  assert.equal((await readPrompts(pkt))["01"]!.status, "completed");
});

Deno.test("stopped alive during the session that edited its contract: the edit is recorded then; later edits are the user's", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, { "01_a.prompt.md": selfWeakening(dir.path, 60_000) });
  const child = spawnCli(["run", pkt]);
  await waitFor(async () => {
    const s = await readSnapshot(pkt);
    const text = await Deno.readTextFile(`${pkt}/prompts/01_a.prompt.md`);
    return s?.session_live === true && text.startsWith("---\nid:") && !text.includes("b.txt");
  }, { intervalMs: 5, what: "the session's edit" });
  child.kill("SIGINT");
  const out = await child.output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.match(stderr, /verify: was changed during prompt 01's session \(attempt 1\)/);
  const entry = (await readPrompts(pkt))["01"] as unknown as PromptState;
  assert.equal(entry.attempts.at(-1)!.decision, "stop");
  const refused = await runCli(["run", pkt]);
  assert.equal(refused.code, 3, refused.stderr);
  assert.match(refused.stderr, /is the contract prompt 01's own session wrote/);
  // The user writes a contract of their own: the record is settled, and no later check suspects the stopped attempt.
  await Deno.writeTextFile(
    `${pkt}/prompts/01_a.prompt.md`,
    promptFile(
      "1",
      `verify:\n  files_exist: [a.txt]\n  contains: [{path: a.txt, text: a}]\n` +
        `simulate:\n  attempts:\n    - writes: [{path: a.txt, text: "a"}]`,
    ),
  );
  const resumed = await runCli(["run", pkt]);
  assert.equal(resumed.code, 0, resumed.stdout + resumed.stderr);
});

/** A prompt as editSinceInterrupt reads it. */
function promptWith(verify: Record<string, unknown[]>): Prompt {
  return { id: "01", relFile: "prompts/01_a.prompt.md", verify } as unknown as Prompt;
}

Deno.test("editSinceInterrupt: only an attempt its runner never compared, with a verify: changed since", async () => {
  await using dir = await tempDir();
  const store = `${dir.path}/store`;
  await Deno.mkdir(store);
  const before = { files_exist: ["a.txt", "b.txt"] };
  const after = { files_exist: ["a.txt"] };
  const noted = { run_id: "r1", verify_digest: await verifyDigest(before), verify: before };
  const attempt = { run_id: "r1", attempt: 1, status: "interrupted" };
  const entry = (a: Record<string, unknown>, n: unknown = noted) =>
    ({
      status: "interrupted",
      updated_at: "",
      attempts: [{ ...attempt, ...a }],
      ...(n ? { loaded_contract: n } : {}),
    }) as unknown as PromptState;
  const edit = await editSinceInterrupt(store, promptWith(after), entry({}));
  assert.equal(edit?.interrupted, true);
  assert.deepEqual([edit?.verify_before, edit?.verify_after], [before, after]);
  assert.equal(await editSinceInterrupt(store, promptWith(before), entry({})), null, "unchanged");
  assert.equal(await editSinceInterrupt(store, promptWith(after), entry({ decision: "stop" })), null, "stopped alive");
  assert.equal(await editSinceInterrupt(store, promptWith(after), entry({ verification: {} })), null, "judged");
  assert.equal(await editSinceInterrupt(store, promptWith(after), entry({ status: "completed" })), null);
  assert.equal(
    await editSinceInterrupt(store, promptWith(after), entry({ run_id: "r2" })),
    null,
    "noted by another run",
  );
  assert.equal(await editSinceInterrupt(store, promptWith(after), entry({}, null)), null, "nothing noted");
  // What a persisted `control amend` wrote is no edit.
  await Deno.mkdir(`${store}/amendments`);
  await Deno.writeTextFile(
    `${store}/amendments/01.jsonl`,
    JSON.stringify({
      id: "a1",
      at: "2026-01-01T00:00:00.000Z",
      prompt: "01",
      author: "op",
      reason: "drop b",
      phase: "pre_session",
      direction: "relax",
      clause: "files_exist",
      operation: "drop",
      entries: ["b.txt"],
      run_id: "r1",
      persisted: true,
      prompt_file: "prompts/01_a.prompt.md",
      verify_digest_before: await verifyDigest(before),
      verify_digest_after: await verifyDigest(after),
    }) + "\n",
  );
  assert.equal(await editSinceInterrupt(store, promptWith(after), entry({})), null, "a persisted amendment");
});
