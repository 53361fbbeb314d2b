import assert from "node:assert/strict";
import { runCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { treeSnapshot } from "../packet/_packet.ts";
import { AGENT_ENV, parseAgentRecord } from "../../src/store/agent_records.ts";

function scopeEnv(dir: string): Record<string, string> {
  return {
    [AGENT_ENV.dir]: dir,
    [AGENT_ENV.token]: "tok-123",
    [AGENT_ENV.runId]: "20261201T120000Z-ABCDEF",
    [AGENT_ENV.promptId]: "03",
    [AGENT_ENV.iteration]: "2",
  };
}

Deno.test("agent-control outside a live controlled invocation exits 2 with a clear error and writes nothing", async () => {
  await using t = await tempDir();
  const before = await treeSnapshot(t.path);
  for (const action of ["repeat", "progress", "finish"]) {
    const r = await runCli(["agent-control", action, "--reason", "x", "--cursor", "c", "--summary", "s"], {
      cwd: t.path,
    });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /only inside a live controlled provider session \(PROMPT_RUNNER_AGENT_CONTROL_DIR/);
  }
  // A partial environment is not a live invocation either.
  const partial = { ...scopeEnv(t.path) } as Record<string, string>;
  delete partial[AGENT_ENV.token];
  const r = await runCli(["agent-control", "continue"], { cwd: t.path, env: partial });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /PROMPT_RUNNER_AGENT_CONTROL_TOKEN/);
  assert.deepEqual(await treeSnapshot(t.path), before);
});

Deno.test("agent-control creates exactly one new record per invocation in the private directory", async () => {
  await using t = await tempDir();
  const env = scopeEnv(t.path);
  const a = await runCli(["agent-control", "repeat", "--reason", "unit B next"], { env });
  assert.equal(a.code, 0, a.stderr);
  assert.match(a.stdout, /repeat requested \(prompt 03, iteration 2\)/);
  const p = await runCli(["agent-control", "progress", "--cursor", "P9", "--unit", "C", "--summary", "busy"], { env });
  assert.equal(p.code, 0, p.stderr);
  const names = [...Deno.readDirSync(t.path)].map((e) => e.name).sort();
  assert.equal(names.length, 2);
  const records = names.map((n) => parseAgentRecord(Deno.readTextFileSync(`${t.path}/${n}`))!);
  assert.deepEqual(records.map((r) => [r.kind, r.token, r.prompt_id, r.iteration, r.reason, r.cursor]), [
    ["repeat", "tok-123", "03", 2, "unit B next", null],
    ["progress", "tok-123", "03", 2, null, "P9"],
  ]);
  for (const n of names) assert.equal(Deno.statSync(`${t.path}/${n}`).mode! & 0o777, 0o600);
});

Deno.test("agent-control finish without --reason exits 2 but leaves the record for the runner to refuse", async () => {
  await using t = await tempDir();
  const r = await runCli(["agent-control", "finish"], { env: scopeEnv(t.path) });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /finish needs --reason; the runner will refuse this request/);
  assert.equal([...Deno.readDirSync(t.path)].length, 1);
});

Deno.test("agent-control refuses a private directory that is a symlink, writing nothing through it", async () => {
  await using t = await tempDir();
  await Deno.mkdir(`${t.path}/real`);
  await Deno.symlink(`${t.path}/real`, `${t.path}/link`);
  const r = await runCli(["agent-control", "continue"], { env: scopeEnv(`${t.path}/link`) });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /is not a directory/);
  assert.equal([...Deno.readDirSync(`${t.path}/real`)].length, 0);
});

Deno.test("agent-control: a second terminal directive in the iteration exits 2 (the first wins) but is recorded for the audit", async () => {
  await using t = await tempDir();
  const env = scopeEnv(t.path);
  // A refused first request (finish without a reason) does not hold the iteration: the next one is the first valid.
  assert.equal((await runCli(["agent-control", "finish"], { env })).code, 2);
  const first = await runCli(["agent-control", "continue"], { env });
  assert.equal(first.code, 0, first.stderr);
  const progress = await runCli(["agent-control", "progress", "--cursor", "P1", "--summary", "still going"], { env });
  assert.equal(progress.code, 0, "progress never consumes the terminal directive");
  const second = await runCli(["agent-control", "repeat", "--reason", "changed my mind"], { env });
  assert.equal(second.code, 2);
  assert.match(second.stderr, /a terminal directive \(continue\) was already requested in this iteration/);
  assert.match(second.stderr, /the first wins and the runner will refuse this repeat/);
  assert.equal([...Deno.readDirSync(t.path)].length, 4, "every request is left for the runner to judge and audit");
  // Another iteration's record (copied here) does not count as this iteration's first.
  await using u = await tempDir();
  const other = { ...scopeEnv(u.path), [AGENT_ENV.iteration]: "3" };
  assert.equal((await runCli(["agent-control", "continue"], { env: other })).code, 0);
  const copied = [...Deno.readDirSync(u.path)][0]!.name;
  await using v = await tempDir();
  Deno.copyFileSync(`${u.path}/${copied}`, `${v.path}/${copied}`);
  const fresh = await runCli(["agent-control", "blocked", "--reason", "no access"], { env: scopeEnv(v.path) });
  assert.equal(fresh.code, 0, fresh.stderr);
});

Deno.test("agent-control progress without a cursor or summary exits 2 and writes nothing", async () => {
  await using t = await tempDir();
  const env = scopeEnv(t.path);
  for (const args of [["--cursor", " ", "--summary", "s"], ["--cursor", "P1", "--summary", " "], ["--cursor", "P1"]]) {
    const r = await runCli(["agent-control", "progress", ...args], { env });
    assert.equal(r.code, 2, args.join(" "));
    assert.match(r.stderr, /progress needs --cursor and --summary/);
  }
  assert.equal([...Deno.readDirSync(t.path)].length, 0);
});

Deno.test("agent-control after its invocation ended (the runner's closed marker) exits 2 and writes nothing", async () => {
  await using t = await tempDir();
  const dir = `${t.path}/01-i1-a1`;
  Deno.mkdirSync(dir);
  Deno.writeTextFileSync(`${dir}.closed`, "x");
  const r = await runCli(["agent-control", "continue"], { env: scopeEnv(dir) });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /the controlled invocation of prompt 03, iteration 2 has ended/);
  assert.equal([...Deno.readDirSync(dir)].length, 0);
});
