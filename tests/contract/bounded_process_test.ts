import assert from "node:assert/strict";
import { runBounded, TailBuffer } from "../../src/contract/bounded_process.ts";

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
