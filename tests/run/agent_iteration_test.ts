/**
 * The runner's scan of an invocation's private directory (docs/agent-control.md §2–§3): records are judged oldest
 * first across the command's files and the sdk's request file; the sdk's progress file is judged again when it is
 * replaced; a file a writer created but has not filled yet is left for a later scan, never refused early.
 */
import assert from "node:assert/strict";
import { AgentInvocation, MAX_RECORD_BYTES } from "../../src/run/agent_iteration.ts";
import type { RunContext } from "../../src/run/context.ts";
import type { AgentControlEntry } from "../../src/control/runner_api.ts";
import { AGENT_RECORD_SCHEMA, SDK_SCHEMAS, writeAgentRecord } from "../../src/store/agent_records.ts";
import { tempDir } from "../support/fs.ts";

interface Fake {
  ctx: RunContext;
  entries: AgentControlEntry[];
}

function fakeContext(storeRoot: string): Fake {
  const entries: AgentControlEntry[] = [];
  const ctx = {
    storeRoot,
    runId: "20261201T120000Z-ABCDEF",
    agentSnap: null,
    setAgentSnap() {},
    plane: { agentControl: (e: AgentControlEntry) => entries.push(e) },
  } as unknown as RunContext;
  return { ctx, entries };
}

const sdkDoc = (inv: AgentInvocation, extra: Record<string, unknown>) =>
  JSON.stringify({
    token: inv.scope.token,
    run_id: inv.scope.runId,
    prompt_id: inv.scope.promptId,
    iteration: inv.scope.iteration,
    ...extra,
  });

Deno.test("the session's environment names the sdk's request and progress files inside the private directory", async () => {
  await using t = await tempDir();
  const { ctx } = fakeContext(`${t.path}/store`);
  const inv = await AgentInvocation.open(ctx, "01", 2, 1);
  assert.equal(inv.env.PROMPT_RUNNER_AGENT_CONTROL_DIR, inv.scope.dir);
  assert.equal(inv.env.PROMPT_RUNNER_AGENT_CONTROL_FILE, `${inv.scope.dir}/request.json`);
  assert.equal(inv.env.PROMPT_RUNNER_AGENT_PROGRESS_FILE, `${inv.scope.dir}/progress.json`);
  assert.equal(inv.env.PROMPT_RUNNER_PROMPT_ITERATION, "2");
});

Deno.test("an empty or half-written record is left for a later scan while the session runs", async () => {
  await using t = await tempDir();
  const { ctx, entries } = fakeContext(`${t.path}/store`);
  const inv = await AgentInvocation.open(ctx, "01", 1, 1);
  const path = `${inv.scope.dir}/000-created-not-filled.continue.json`;
  Deno.writeTextFileSync(path, "", { createNew: true });
  inv.scan(false);
  assert.equal(entries.length, 0, "not judged while it may still be written");
  Deno.writeTextFileSync(
    path,
    JSON.stringify({
      schema: AGENT_RECORD_SCHEMA,
      kind: "continue",
      token: inv.scope.token,
      run_id: inv.scope.runId,
      prompt_id: "01",
      iteration: 1,
      at: "x",
    }),
  );
  inv.scan(false);
  assert.deepEqual(entries.map((e) => [e.kind, e.outcome]), [["continue", "received"]]);
  assert.equal(inv.held?.action, "continue");
  // A file that never becomes a record is refused once the session ended.
  Deno.writeTextFileSync(`${inv.scope.dir}/junk.json`, "{not json");
  inv.scan(false);
  assert.equal(entries.length, 1);
  inv.settle();
  assert.deepEqual(entries.map((e) => [e.kind, e.outcome]), [["continue", "received"], ["unreadable", "rejected"]]);
});

Deno.test("the sdk's progress file is judged once per version; its atomic-write temporaries are not records", async () => {
  await using t = await tempDir();
  const { ctx, entries } = fakeContext(`${t.path}/store`);
  const inv = await AgentInvocation.open(ctx, "01", 1, 1);
  const progress = `${inv.scope.dir}/progress.json`;
  const write = (cursor: string) => {
    Deno.writeTextFileSync(`${progress}.tmp.1`, sdkDoc(inv, { schema: SDK_SCHEMAS.progress, cursor, summary: "s" }));
    Deno.renameSync(`${progress}.tmp.1`, progress);
  };
  write("P1");
  Deno.writeTextFileSync(`${progress}.tmp.9`, "{half"); // a writer caught mid-replacement
  inv.scan(false);
  inv.scan(false);
  write("P2");
  inv.settle();
  assert.deepEqual(entries.map((e) => [e.kind, e.outcome, e.params.file, e.params.cursor]), [
    ["progress", "accepted", "progress.json#1", "P1"],
    ["progress", "accepted", "progress.json#2", "P2"],
  ]);
  // A terminal request written to the progress file is refused, not obeyed.
  Deno.writeTextFileSync(progress, sdkDoc(inv, { schema: SDK_SCHEMAS.request, action: "blocked", reason: "x" }));
  inv.settle();
  assert.deepEqual(entries.at(-1) && [entries.at(-1)!.kind, entries.at(-1)!.outcome], ["unreadable", "rejected"]);
  assert.equal(inv.held, null);
});

Deno.test("the first terminal directive wins across the sdk's request file and the command's records (oldest first)", async () => {
  await using t = await tempDir();
  const { ctx, entries } = fakeContext(`${t.path}/store`);
  const inv = await AgentInvocation.open(ctx, "01", 1, 1);
  const name = writeAgentRecord(inv.scope.dir, {
    schema: AGENT_RECORD_SCHEMA,
    kind: "continue",
    token: inv.scope.token,
    run_id: inv.scope.runId,
    prompt_id: "01",
    iteration: 1,
    reason: null,
    cursor: null,
    unit: null,
    summary: null,
    at: "x",
  });
  const request = `${inv.scope.dir}/request.json`;
  Deno.writeTextFileSync(request, sdkDoc(inv, { schema: SDK_SCHEMAS.request, action: "repeat", reason: "again" }));
  // The request file is older than the command's record: it is judged first and wins.
  Deno.utimeSync(request, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
  Deno.utimeSync(`${inv.scope.dir}/${name}`, new Date(), new Date());
  inv.settle();
  assert.deepEqual(entries.map((e) => [e.params.file, e.kind, e.outcome]), [
    ["request.json", "repeat", "received"],
    [name, "continue", "rejected"],
  ]);
  assert.deepEqual(inv.held, { action: "repeat", reason: "again", file: "request.json" });
});

const record = (inv: AgentInvocation, kind: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    schema: AGENT_RECORD_SCHEMA,
    kind,
    token: inv.scope.token,
    run_id: inv.scope.runId,
    prompt_id: inv.scope.promptId,
    iteration: inv.scope.iteration,
    at: "x",
    ...extra,
  });

Deno.test("links, directories and FIFOs are never followed or opened: left alone while live, refused at the end", async () => {
  await using t = await tempDir();
  const { ctx, entries } = fakeContext(`${t.path}/store`);
  const inv = await AgentInvocation.open(ctx, "01", 1, 1);
  const d = inv.scope.dir;
  // A valid record elsewhere, reachable only through links: following one would obey it.
  Deno.writeTextFileSync(`${t.path}/elsewhere.json`, record(inv, "blocked", { reason: "through a link" }));
  Deno.symlinkSync(`${t.path}/elsewhere.json`, `${d}/link.blocked.json`);
  Deno.symlinkSync(`${t.path}/elsewhere.json`, `${d}/request.json`);
  Deno.symlinkSync(`${t.path}/elsewhere.json`, `${d}/progress.json`);
  // A FIFO: opening it for reading would block the runner until a writer came.
  const fifo = await new Deno.Command("mkfifo", { args: [`${d}/pipe.continue.json`] }).output();
  assert.equal(fifo.code, 0);
  // What a sandbox mounts in its writable roots while a command runs (codex: .git, .codex, .agents …).
  Deno.mkdirSync(`${d}/.git`);
  Deno.writeTextFileSync(`${d}/.codex`, "");
  Deno.mkdirSync(`${d}/.agents`);
  inv.scan(false);
  assert.equal(entries.length, 0, "nothing judged while the session runs");
  // The sandbox took its mount points down when its command ended: they were never the agent's records.
  Deno.removeSync(`${d}/.git`);
  Deno.removeSync(`${d}/.agents`);
  Deno.writeTextFileSync(`${d}/real.continue.json`, record(inv, "continue"));
  inv.settle();
  const verdicts = entries.map((e) => [e.params.file, e.outcome, e.reason]).sort((a, b) =>
    String(a[0]) < String(b[0]) ? -1 : 1
  );
  const notFile = "not a regular file (links, directories and other entries are never followed)";
  assert.deepEqual(verdicts, [
    [".codex", "rejected", "not an agent-control record (unreadable or malformed)"],
    ["link.blocked.json", "rejected", notFile],
    ["pipe.continue.json", "rejected", notFile],
    ["progress.json#1", "rejected", notFile],
    ["real.continue.json", "received", "held until the iteration is verified"],
    ["request.json", "rejected", notFile],
  ]);
  assert.equal(inv.held?.action, "continue", "only the real record counts");
  assert.ok(Deno.lstatSync(`${d}.closed`).isFile, "settled: the invocation is closed to late commands");
  inv.settle();
  assert.equal(entries.length, 6, "each refused entry is audited once");
});

Deno.test("a huge record is refused unread with its size; a huge progress file once per version", async () => {
  await using t = await tempDir();
  const { ctx, entries } = fakeContext(`${t.path}/store`);
  const inv = await AgentInvocation.open(ctx, "01", 1, 1);
  const d = inv.scope.dir;
  const big = record(inv, "blocked", { reason: "x".repeat(MAX_RECORD_BYTES) });
  Deno.writeTextFileSync(`${d}/big.blocked.json`, big);
  Deno.writeTextFileSync(`${d}/progress.json`, record(inv, "progress", { cursor: "P", summary: "y".repeat(70_000) }));
  inv.scan(false);
  inv.scan(false);
  inv.settle();
  assert.deepEqual(entries.map((e) => [e.params.file, e.outcome, e.reason]), [
    ["big.blocked.json", "rejected", `record too large (${big.length} bytes; at most ${MAX_RECORD_BYTES})`],
    ["progress.json#1", "rejected", entries[1]?.reason],
  ]);
  assert.match(String(entries[1]!.reason), /^record too large \(\d+ bytes; at most 65536\)$/);
  assert.equal(inv.held, null);
});
