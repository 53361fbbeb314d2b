import assert from "node:assert/strict";
import { tempDir } from "../support/fs.ts";
import { FakeHooks, lines, names, RUN_ID, testPlane } from "./_harness.ts";
import { waitFor, within } from "../support/wait.ts";

const WRITERS = 8;
const PER_WRITER = 200;

Deno.test("8 writers × 200 requests against a live plane: every request gets exactly one outcome", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/s`;
  const hooks = new FakeHooks();
  hooks.gate = { promptRunning: false, sessionLive: false };
  const { plane, paths } = await testPlane(store, { hooks, watch: true, pollMs: 1000 });
  const script = new URL("./_writer.ts", import.meta.url).pathname;
  const children = Array.from({ length: WRITERS }, () =>
    new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--quiet", script, store, RUN_ID, String(PER_WRITER)],
      stdout: "piped",
      stderr: "inherit",
    }).output());
  let done = false;
  const all = Promise.all(children).then((r) => {
    done = true;
    return r;
  });
  // The "runner": boundaries in a loop, waking on the watcher.
  while (!done) {
    await within(plane.wake(), 20, null); // a runner's poll interval: woken early by the watcher
    plane.boundary();
  }
  const outputs = await all;
  for (const o of outputs) assert.equal(o.code, 0);
  const written = outputs.flatMap((o) => new TextDecoder().decode(o.stdout).trim().split("\n")).map((l) => {
    const [kind, name] = l.split(" ");
    return { kind: kind!, name: name! };
  });
  assert.equal(written.length, WRITERS * PER_WRITER);
  assert.equal(new Set(written.map((w) => w.name)).size, written.length, "names never collide");
  // Drain whatever arrived after the last wake.
  await waitFor(async () => {
    plane.boundary();
    return (await names(paths.requests)).length === 0;
  }, { timeoutMs: 5_000, what: "requests/ drained", intervalMs: 20 });
  await plane.close("completed", null);
  assert.deepEqual(await names(paths.requests), []);
  const log = await lines(paths.log);
  const byRequest = new Map<string, Record<string, unknown>[]>();
  for (const e of log) {
    const list = byRequest.get(String(e.request)) ?? [];
    list.push(e);
    byRequest.set(String(e.request), list);
  }
  const outcomes = new Set(await names(paths.outcomes));
  for (const w of written) {
    const entries = byRequest.get(w.name) ?? [];
    assert.equal(entries.length, 1, `${w.name} has exactly one log entry`);
    assert.ok(outcomes.has(w.name), `${w.name} has a receipt`);
    const expected = w.kind === "view_ok" ? "applied" : "rejected";
    assert.equal(entries[0]!.outcome, expected, `${w.kind} ${w.name}`);
  }
  const okViews = written.filter((w) => w.kind === "view_ok").length;
  assert.equal(hooks.views.length, okViews, "no view applied twice or lost");
  // Each writer's requests are processed in the order it wrote them.
  const perWriter = new Map<string, number[]>();
  for (const e of log) {
    const [, pid, seq] = /^[^-]+-(\d+)-(\d+)-/.exec(String(e.request))!;
    perWriter.set(pid!, [...(perWriter.get(pid!) ?? []), Number(seq)]);
  }
  assert.equal(perWriter.size, WRITERS);
  for (const seqs of perWriter.values()) assert.deepEqual(seqs, [...seqs].sort((x, y) => x - y));
});
