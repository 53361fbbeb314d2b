import assert from "node:assert/strict";
import { runCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { watchLine, type WatchPolicy, watchSample, watchViolation } from "../../src/cli/watch.ts";
import type { StatusRollup } from "../../src/control/rollup.ts";
import { workspaceFixture } from "../workspace/fixture.ts";

const POLICY: WatchPolicy = { requireRunning: false, requireProgress: false, progressTimeoutMs: 60_000 };

function rollup(over: Partial<StatusRollup>): StatusRollup {
  return {
    target: "operator-packet",
    state: "running",
    healthy: true,
    run_id: "20261130T120501Z-7QK2MD",
    current: { prompt_id: "04" },
    control: { last_seq: 230 },
    last_progress_at: "2026-11-30T12:19:40.000Z",
    ...over,
  } as unknown as StatusRollup;
}

Deno.test("watchSample() and watchLine() render the WATCH line of docs/reference/cli.md §3.5", () => {
  const now = Date.parse("2026-11-30T12:20:00.000Z");
  const s = watchSample(rollup({}), POLICY, now);
  assert.equal(s.progress_age_ms, 20_000);
  assert.equal(
    watchLine(s),
    "WATCH 2026-11-30T12:20:00Z target=operator-packet state=running healthy=true prompt=04 seq=230 progress_age=20s",
  );
  const idle = watchSample(rollup({ state: "not_started", healthy: null, current: null, control: null }), POLICY, now);
  assert.match(
    watchLine({ ...idle, last_progress_at: null, progress_age_ms: null }),
    /healthy=null prompt=- seq=0 progress_age=-$/,
  );
});

Deno.test("watchViolation() reports unhealthy, not_running and progress_stale by policy", () => {
  const ok = { state: "running" as const, healthy: true, progress_age_ms: 1000 };
  assert.equal(watchViolation(ok, POLICY), null);
  assert.equal(watchViolation({ ...ok, healthy: false }, POLICY), "unhealthy");
  assert.equal(watchViolation({ ...ok, state: "completed", healthy: true }, POLICY), null);
  assert.equal(watchViolation({ ...ok, state: "completed" }, { ...POLICY, requireRunning: true }), "not_running");
  const progress = { ...POLICY, requireProgress: true, progressTimeoutMs: 500 };
  assert.equal(watchViolation(ok, progress), "progress_stale");
  assert.equal(watchViolation({ ...ok, progress_age_ms: 400 }, progress), null);
  assert.equal(watchViolation({ ...ok, progress_age_ms: null }, progress), "progress_stale");
});

Deno.test("watch --once samples a workspace, records it under <store>/acceptance, and --require-running fails", async () => {
  await using dir = await tempDir();
  const f = await workspaceFixture(dir.path);
  assert.equal((await runCli(["workspace", "prepare", f.manifest], { env: f.env })).code, 0);
  const once = await runCli(["watch", "op-ws", "--once"], { env: f.env });
  assert.equal(once.code, 0, once.stderr);
  assert.match(once.stdout, /^WATCH \S+Z target=op-ws state=not_started healthy=null prompt=- seq=0 progress_age=-\n$/);

  const strict = await runCli(["watch", "op-ws", "--require-running", "--json"], { env: f.env });
  assert.equal(strict.code, 1);
  const sample = JSON.parse(strict.stdout);
  assert.deepEqual([sample.state, sample.violation], ["not_started", "not_running"]);
  assert.match(strict.stderr, /watch violation not_running/);

  const files = [...Deno.readDirSync(`${f.store}/acceptance`)].map((e) => e.name);
  assert.ok(files.length >= 1 && files.every((n) => /^watch-\d{8}-\d{6}\.jsonl$/.test(n)), files.join(","));
  const recorded = files.flatMap((n) =>
    Deno.readTextFileSync(`${f.store}/acceptance/${n}`).trim().split("\n").map((l) => JSON.parse(l))
  );
  assert.equal(recorded.length, 2);
  assert.deepEqual(recorded.map((r) => r.violation).sort(), [null, "not_running"].sort());
});

Deno.test("watch --for keeps sampling for the duration; a bad duration is a usage error", async () => {
  await using dir = await tempDir();
  const f = await workspaceFixture(dir.path);
  assert.equal((await runCli(["workspace", "prepare", f.manifest], { env: f.env })).code, 0);
  const r = await runCli(["watch", "op-ws", "--every", "200ms", "--for", "1500ms"], { env: f.env });
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trim().split("\n");
  assert.ok(lines.length >= 2 && lines.every((l) => l.startsWith("WATCH ")), r.stdout);
  // The last sample is taken once --for has elapsed, however long each sample took on a loaded machine: the samples
  // span (nearly) the whole duration, less only the time the first sample took.
  const j = await runCli(["watch", "op-ws", "--every", "200ms", "--for", "1500ms", "--json"], { env: f.env });
  assert.equal(j.code, 0, j.stderr);
  const at = j.stdout.trim().split("\n").map((l) => Date.parse((JSON.parse(l) as { at: string }).at));
  assert.ok(at.length >= 2 && at.at(-1)! - at[0]! >= 1000, j.stdout);
  const bad = await runCli(["watch", "op-ws", "--every", "soon"], { env: f.env });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--every does not take "soon"/);
});
