/**
 * The shared follower of `control serve` (src/cli/serve/hub.ts): a client that starts before the hub's ring, or
 * falls behind it, follows on its own and hands over; either way every seq arrives once, in order, then `end`.
 */
import assert from "node:assert/strict";
import { tempDir } from "../support/fs.ts";
import { waitFor } from "../support/wait.ts";
import { RUN_ID } from "../control/_harness.ts";
import { fallbackEnd, hubRun } from "./_hub_support.ts";
import { EventHub } from "../../src/cli/serve/hub.ts";
import { hubFrames } from "../../src/cli/serve/hub_frames.ts";
import type { SseFrame } from "../../src/cli/serve/sse.ts";

/** The frames of one yielded value (a batch of bytes holds several). */
function framesOf(v: SseFrame | Uint8Array): { id: string | null; event: string; data: Record<string, unknown> }[] {
  if (!(v instanceof Uint8Array)) {
    return [{ id: v.id ?? null, event: v.event ?? "message", data: v.data as Record<string, unknown> }];
  }
  return new TextDecoder().decode(v).split("\n\n").filter((b) => b !== "").map((block) => {
    const id = /^id: (.*)$/m.exec(block)?.[1] ?? null;
    const event = /^event: (.*)$/m.exec(block)?.[1] ?? "message";
    return { id, event, data: JSON.parse(/^data: (.*)$/m.exec(block)![1]!) };
  });
}

Deno.test("hub: a client behind a small ring follows on its own, hands over, and gets every seq once through end", async () => {
  await using tmp = await tempDir();
  const storeRoot = tmp.path;
  const { lease, plane, record } = await hubRun(storeRoot);
  const ac = new AbortController();
  const hub = new EventHub({ storeRoot, runId: RUN_ID }, { bytes: 1024 });
  try {
    await record(5);
    const fallback = fallbackEnd;
    const client = hubFrames(hub, "start", ac.signal, fallback)[Symbol.asyncIterator]();
    const got: { id: string | null; event: string; data: Record<string, unknown> }[] = [];
    while (got.length < 2) got.push(...framesOf((await client.next()).value!));
    // The hub runs ahead: 40 more events, of which its ring keeps the newest chunk (1 KiB); the client is far behind it.
    await record(40);
    await waitFor(() => hub.edge() >= 40, { what: "the hub to take the new events" });
    await plane.close("completed", null);
    for (;;) {
      const r = await client.next();
      if (r.done) break;
      got.push(...framesOf(r.value));
    }
    const ids = got.filter((f) => f.event === "message").map((f) => Number(f.id));
    assert.deepEqual(ids, ids.map((_, i) => i + 1), "every seq once, in order");
    assert.equal(got.at(-2)!.data.type, "run_finished");
    assert.deepEqual(got.at(-1), {
      id: null,
      event: "end",
      data: { run_id: RUN_ID, status: "completed", reason: null },
    });
    // A second client in step with the hub from now on reads it from the ring (same bytes), then ends too.
    const late = hubFrames(hub, ids.at(-3)!, ac.signal, fallback);
    const tail: string[] = [];
    for await (const v of late) for (const f of framesOf(v)) tail.push(f.event === "end" ? "end" : String(f.id));
    assert.deepEqual(tail, [...ids.slice(-3).map(String), "end"]);
  } finally {
    ac.abort();
    hub.close();
    await lease.release();
  }
});
