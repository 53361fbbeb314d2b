import assert from "node:assert/strict";
import { killRunningCommands, runBounded, TailBuffer } from "../../src/contract/bounded_process.ts";
import { pidsWithEnv } from "../../src/util/proc_tree.ts";
import { waitFor } from "../support/wait.ts";

Deno.test("TailBuffer.push() keeps only the last cap bytes and counts what it dropped", () => {
  const buf = new TailBuffer(8);
  const enc = new TextEncoder();
  buf.push(enc.encode("abc"));
  buf.push(enc.encode("defgh"));
  buf.push(enc.encode("ij"));
  assert.equal(new TextDecoder().decode(buf.bytes()), "cdefghij");
  assert.equal(buf.dropped, 2);
  buf.push(enc.encode("0123456789"));
  assert.equal(new TextDecoder().decode(buf.bytes()), "23456789");
  assert.equal(buf.dropped, 12);
});

Deno.test("runBounded() reports a launch error without throwing", async () => {
  const res = await runBounded({ argv: ["/nonexistent/prog"], cwd: "/", env: {}, timeoutMs: 1000 });
  assert.equal(res.outcome, "launch_error");
  assert.equal(res.code, null);
  assert.ok((res.error ?? "").length > 0);
});

Deno.test("runBounded() does not wait for a backgrounded grandchild holding the pipes past the drain grace", async () => {
  const started = Date.now();
  const res = await runBounded({ argv: ["bash", "-c", "sleep 30 & echo done"], cwd: "/", env: {}, timeoutMs: 20_000 });
  assert.equal(res.outcome, "exited");
  assert.equal(res.code, 0);
  assert.equal(res.output.trim(), "done");
  assert.ok(Date.now() - started < 10_000);
});

Deno.test("runBounded() stops the whole group when its signal aborts, and starts nothing once aborted", async () => {
  const marker = crypto.randomUUID();
  const abort = new AbortController();
  const running = runBounded({
    // A grandchild in the same group: the abort must reach it too.
    argv: ["bash", "-c", "sleep 60 & echo started; wait"],
    cwd: "/",
    env: { BOUNDED_MARKER: marker },
    timeoutMs: 60_000,
    signal: abort.signal,
  });
  await waitFor(async () => (await pidsWithEnv("BOUNDED_MARKER", marker)).length >= 2, { what: "bash and sleep" });
  abort.abort();
  const res = await running;
  assert.equal(res.outcome, "cancelled");
  assert.notEqual(res.code, 0);
  assert.deepEqual(await pidsWithEnv("BOUNDED_MARKER", marker), [], "the group is gone");
  const after = await runBounded({ argv: ["true"], cwd: "/", env: {}, timeoutMs: 1000, signal: abort.signal });
  assert.equal(after.outcome, "cancelled");
  assert.equal(after.code, null, "never started");
});

Deno.test("killRunningCommands() SIGKILLs a running command that ignores SIGTERM (the second Ctrl-C)", async () => {
  const marker = crypto.randomUUID();
  const running = runBounded({
    argv: ["bash", "-c", "trap '' INT TERM; sleep 60"],
    cwd: "/",
    env: { BOUNDED_MARKER: marker },
    timeoutMs: 60_000,
  });
  await waitFor(async () => (await pidsWithEnv("BOUNDED_MARKER", marker)).length >= 1, { what: "the command" });
  killRunningCommands();
  const res = await running;
  assert.equal(res.outcome, "exited");
  assert.equal(res.signal, "SIGKILL");
  await waitFor(async () => (await pidsWithEnv("BOUNDED_MARKER", marker)).length === 0, { what: "the group gone" });
});
