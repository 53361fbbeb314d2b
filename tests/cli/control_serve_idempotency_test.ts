/**
 * `Idempotency-Key` on the Control API's writes (docs/reference/http_api.md §4, "Retrying a write"): a write sent again
 * with its key — after the answer was lost, or while the first is still in flight — gets the first write's answer
 * and writes nothing; the same key with another body is refused (422) on the record; a malformed key is a refused
 * field (400) on the record. Black-box: `control serve` spawned with its own permissions, a live run in another
 * process that applies the steers.
 */
import assert from "node:assert/strict";
import { tempDir } from "../support/fs.ts";
import { startLivePlane, writeDemoPacket } from "../control/_harness.ts";
import { storePaths, storeRootForPacket } from "../../src/store/paths.ts";
import { parseJsonLines } from "../../src/util/fs.ts";
import { call, startServe } from "./_serve_support.ts";
import { fingerprintOf, IdempotencyStore, type WriteAnswer } from "../../src/cli/serve/idempotency.ts";

async function logOf(dir: string) {
  return parseJsonLines(await Deno.readTextFile(storePaths(storeRootForPacket(dir)).log));
}

Deno.test("serve: a steer sent again with its Idempotency-Key is answered, not delivered again", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  const live = await startLivePlane(dir);
  const srv = await startServe([dir]);
  try {
    const steer = (text: string, key: string | null, wait = 10_000) =>
      call(srv.url, "/api/v1/targets/demo/steer", srv.token, {
        body: { text, wait_ms: wait },
        ...(key !== null ? { headers: { "idempotency-key": key } } : {}),
      });
    const first = await steer("look at the tests first", "k-1");
    assert.equal(first.status, 200, JSON.stringify(first.json));
    assert.equal(first.json.outcome, "applied");
    assert.equal(first.headers.get("idempotent-replayed"), null);
    // The answer was lost: the same write again, waiting less this time.
    const again = await steer("look at the tests first", "k-1", 0);
    assert.equal(again.status, 200, JSON.stringify(again.json));
    assert.equal(again.headers.get("idempotent-replayed"), "true");
    assert.deepEqual([again.json.request, again.json.outcome], [first.json.request, "applied"]);
    // Sent three times at once under a new key: one write.
    const burst = await Promise.all([1, 2, 3].map(() => steer("then the docs", "k-2")));
    assert.deepEqual(new Set(burst.map((r) => r.json.request)).size, 1, JSON.stringify(burst.map((r) => r.json)));
    assert.deepEqual(burst.map((r) => r.headers.get("idempotent-replayed")).sort(), ["true", "true", null].sort());
    const steers = (await logOf(dir)).filter((e) => e.command === "steer");
    assert.deepEqual(steers.map((e) => [e.outcome, (e.params as { text?: string }).text]), [
      ["accepted", "look at the tests first"],
      ["applied", "look at the tests first"],
      ["accepted", "then the docs"],
      ["applied", "then the docs"],
    ]);

    // The same key for another write is refused, and the refusal is on the record.
    const reused = await steer("something else", "k-1");
    assert.equal(reused.status, 422, JSON.stringify(reused.json));
    const err = reused.json.error as { code: string; message: string };
    assert.equal(err.code, "idempotency_key_reused");
    assert.match(err.message, /Idempotency-Key "k-1" was used by token "[^"]+" for another steer write/);
    const bad = await steer("fine", "not a key!");
    assert.equal(bad.status, 400, JSON.stringify(bad.json));
    assert.match((bad.json.error as { message: string }).message, /^Idempotency-Key: expected 1 to 128 characters/);
    const refused = (await logOf(dir)).filter((e) => e.command === "steer" && e.outcome === "rejected");
    assert.deepEqual(refused.map((e) => (e.params as { text?: string }).text), ["something else", "fine"]);
    assert.match(String(refused[0]!.reason), /Idempotency-Key "k-1" was used/);
    // Without a key every write is its own.
    const one = await steer("no key", null);
    const two = await steer("no key", null);
    assert.notEqual(one.json.request, two.json.request);
    const plain = (await logOf(dir)).filter((e) => e.command === "steer" && e.request !== null);
    assert.equal(
      new Set(plain.filter((e) => (e.params as { text?: string }).text === "no key").map((e) => e.request)).size,
      2,
    );
  } finally {
    await srv.stop();
    await live.stop();
  }
});

Deno.test("serve: an amendment sent again with its key answers the record it wrote; no second amendment", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  const live = await startLivePlane(dir);
  const srv = await startServe([dir]);
  try {
    const body = { prompt: "01", clause: "files_exist", entries: ["NOTES.md"], reason: "needed" };
    const amend = () =>
      call(srv.url, "/api/v1/targets/demo/amend", srv.token, { body, headers: { "idempotency-key": "amend-1" } });
    const first = await amend();
    assert.equal(first.status, 200, JSON.stringify(first.json));
    const again = await amend();
    assert.equal(again.headers.get("idempotent-replayed"), "true");
    assert.deepEqual(again.json, first.json);
    const records = parseJsonLines(await Deno.readTextFile(`${storeRootForPacket(dir)}/amendments/01.jsonl`));
    assert.equal(records.length, 1);
  } finally {
    await srv.stop();
    await live.stop();
  }
});

const answer = (n: number): WriteAnswer => ({ status: 200, body: { n } });

Deno.test("IdempotencyStore: once per scope; conflict on another body; a failed first attempt is forgotten", async () => {
  const store = new IdempotencyStore();
  let writes = 0;
  const write = () => Promise.resolve(answer(++writes));
  const a = await (store.run("s", "f", write) as Promise<{ answer: WriteAnswer; replayed: boolean }>);
  const b = await (store.run("s", "f", write) as Promise<{ answer: WriteAnswer; replayed: boolean }>);
  assert.deepEqual([a, b], [{ answer: answer(1), replayed: false }, { answer: answer(1), replayed: true }]);
  assert.equal(store.run("s", "other", write), "conflict");
  await (store.run("t", "f", write) as Promise<unknown>);
  assert.equal(writes, 2, "another scope writes");
  const failing = store.run("u", "f", () => Promise.reject(new Error("disk full"))) as Promise<unknown>;
  await assert.rejects(failing, /disk full/);
  const retried = await (store.run("u", "f", write) as Promise<{ answer: WriteAnswer; replayed: boolean }>);
  assert.deepEqual(retried, { answer: answer(3), replayed: false });
});

Deno.test("IdempotencyStore: keys expire after their time and the oldest go past the bound", async () => {
  let now = 0;
  const store = new IdempotencyStore(1000, 3, () => now);
  let writes = 0;
  const write = () => Promise.resolve(answer(++writes));
  for (const s of ["a", "b", "c"]) await (store.run(s, "f", write) as Promise<unknown>);
  assert.equal(store.size, 3);
  await (store.run("d", "f", write) as Promise<unknown>);
  assert.equal(store.size, 3, "bounded");
  const a = await (store.run("a", "f", write) as Promise<{ replayed: boolean }>);
  assert.equal(a.replayed, false, "the oldest was dropped");
  now = 5000;
  const d = await (store.run("d", "f", write) as Promise<{ replayed: boolean }>);
  assert.equal(d.replayed, false, "expired");
});

Deno.test("fingerprintOf: the fields but wait_ms, key order aside", async () => {
  assert.equal(
    await fingerprintOf("steer", { text: "a", wait_ms: 0 }),
    await fingerprintOf("steer", { wait_ms: 9, text: "a" }),
  );
  assert.notEqual(await fingerprintOf("steer", { text: "a" }), await fingerprintOf("steer", { text: "b" }));
  assert.notEqual(await fingerprintOf("steer", { text: "a" }), await fingerprintOf("view", { text: "a" }));
  const x = { prompt: "01", entries: ["a"], clause: "c" };
  assert.equal(
    await fingerprintOf("amend", x),
    await fingerprintOf("amend", { clause: "c", prompt: "01", entries: ["a"] }),
  );
});
