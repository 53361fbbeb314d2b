/**
 * Size-bounded event segments (docs/reference/control-plane.md §5.2): sealing at the bound between two lines,
 * `seq` continuity across segments and across a resumed run, the read order of a run's files, the streaming
 * reader, and batched boundary flushes that still write a lone event at once.
 */
import assert from "node:assert/strict";
import { tempDir } from "../support/fs.ts";
import { waitFor } from "../support/wait.ts";
import { RUN_ID, testPlane } from "./_harness.ts";
import { EventAppender } from "../../src/control/event_log.ts";
import { lastRunSeq, readStreamFiles, runStreamFiles, sealedSegments } from "../../src/control/segments.ts";
import { storePaths } from "../../src/store/paths.ts";

const CTX = { prompt_id: "01", attempt: 1, stream: "initial" as const, provider: "simulated", session_id: null };

/** Every line of the given files, in order. */
async function linesOf(files: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const f of files) out.push(...(await Deno.readTextFile(f)).split("\n").filter((l) => l !== ""));
  return out;
}

function seqsOf(lines: string[]): number[] {
  return lines.map((l) => (JSON.parse(l) as { seq: number }).seq);
}

Deno.test("the appender seals a segment between two lines once the next lines would pass the bound", async () => {
  await using tmp = await tempDir();
  const live = `${tmp.path}/events.jsonl`;
  let n = 0;
  const sealed: string[] = [];
  const a = new EventAppender(live, false, {
    maxBytes: 1000,
    nextSegment: () => {
      const p = `${tmp.path}/seg.${++n}.jsonl`;
      sealed.push(p);
      return p;
    },
  });
  const lines: string[] = [];
  for (let seq = 1; seq <= 200; seq++) {
    const line = JSON.stringify({ seq, pad: "x".repeat(seq % 37) });
    lines.push(line);
    a.push(line);
    if (seq % 17 === 0) a.flush(); // flushes of different sizes, some spanning several segments
  }
  // One line longer than the bound gets a segment of its own.
  const long = JSON.stringify({ seq: 201, pad: "y".repeat(1500) });
  lines.push(long);
  a.push(long);
  a.push(JSON.stringify({ seq: 202 }));
  lines.push(JSON.stringify({ seq: 202 }));
  a.close();
  assert.ok(sealed.length >= 8, `sealed ${sealed.length} segments`);
  assert.equal(a.sealed, sealed.length);
  for (const f of sealed) {
    const text = await Deno.readTextFile(f);
    assert.ok(text.endsWith("\n"), `${f} ends with a whole line`);
    const size = new TextEncoder().encode(text).length;
    assert.ok(size <= 1000 || text === long + "\n", `${f} is ${size} bytes`);
  }
  // Nothing lost, nothing duplicated, in order.
  assert.deepEqual(await linesOf([...sealed, live]), lines);
});

Deno.test("a plane seals events.jsonl into events/<run_id>.<n>.jsonl and seq runs on across segments", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/.prompt_runner`;
  const { plane, paths } = await testPlane(store, { segmentBytes: 4096 });
  for (let i = 0; i < 300; i++) {
    plane.record({ type: "message_streamed", data: { delta: `token ${i} ` } }, CTX);
    plane.boundary();
  }
  await plane.close("completed", null);
  const segs = sealedSegments(store, RUN_ID);
  assert.ok(segs.length >= 5, `${segs.length} segments`);
  assert.deepEqual(segs.map((s) => s.n), segs.map((_, i) => i + 1));
  assert.equal(segs[0]!.path, paths.eventSegment(RUN_ID, 1));
  assert.match(segs[0]!.path, /\/control\/events\/20261130T120501Z-7QK2MD\.000001\.jsonl$/);
  const files = runStreamFiles(store, RUN_ID, true);
  assert.equal(files.at(-1), paths.events);
  const seqs = seqsOf(await linesOf(files));
  assert.deepEqual(seqs, seqs.map((_, i) => i + 1)); // run_opened … run_finished, 1..N without a gap
  assert.equal(seqs.length, 302);

  // A resumed run (same id) continues seq after the segments.
  const again = await testPlane(store, { segmentBytes: 4096, resumed: true });
  again.plane.record({ type: "message_streamed", data: { delta: "more" } }, CTX);
  await again.plane.close("completed", null);
  const all = seqsOf(await linesOf(runStreamFiles(store, RUN_ID, true)));
  assert.deepEqual(all, all.map((_, i) => i + 1));

  // The next run archives the live file as the run's last segment; the sealed ones stay where they are.
  const next = await testPlane(store, { runId: "20261201T090000Z-NEXT01" });
  await next.plane.close("completed", null);
  const archived = runStreamFiles(store, RUN_ID, false);
  assert.equal(archived.at(-1), paths.archivedEvents(RUN_ID));
  assert.deepEqual(seqsOf(await linesOf(archived)), all);
});

Deno.test("a resumed run whose live file is missing after a seal continues seq from the last segment", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/.prompt_runner`;
  const { plane, paths } = await testPlane(store, { segmentBytes: 4096 });
  for (let i = 0; i < 100; i++) plane.record({ type: "message_streamed", data: { delta: `t${i}` } }, CTX);
  await plane.close("failed", "crash");
  // What a crash between the seal's rename and the new file leaves: every line sealed, no events.jsonl.
  const seg = paths.eventSegment(RUN_ID, sealedSegments(store, RUN_ID).length + 1);
  await Deno.rename(paths.events, seg);
  const last = seqsOf(await linesOf([seg])).at(-1)!;
  assert.deepEqual(lastRunSeq(store, RUN_ID), { seq: last, torn: false });
  const again = await testPlane(store, { segmentBytes: 4096, resumed: true });
  const env = again.plane.record({ type: "message_streamed", data: { delta: "after" } }, CTX);
  await again.plane.close("completed", null);
  assert.equal(env.seq, last + 2); // run_opened of the resumed plane is last + 1
  const all = seqsOf(await linesOf(runStreamFiles(store, RUN_ID, true)));
  assert.deepEqual(all, all.map((_, i) => i + 1));
});

Deno.test("readStreamFiles streams: lines appended after the first item was read are still delivered", async () => {
  await using tmp = await tempDir();
  const f = `${tmp.path}/e.jsonl`;
  const line = (seq: number) => JSON.stringify({ seq, pad: "z".repeat(200) }) + "\n";
  await Deno.writeTextFile(f, Array.from({ length: 1000 }, (_, i) => line(i + 1)).join(""));
  const it = readStreamFiles([f]);
  assert.equal((it.next().value as { seq: number }).seq, 1);
  // A reader that had read the whole file up front would never see these.
  await Deno.writeTextFile(f, line(1001) + line(1002), { append: true });
  let last = 1;
  let count = 1;
  for (const item of it) {
    last = item.seq as number;
    count++;
  }
  assert.equal(count, 1002);
  assert.equal(last, 1002);
});

Deno.test("boundaries batch writes but a lone event, a 64 KiB backlog and every snapshot are written at once", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/.prompt_runner`;
  // A coalescing window that has always passed: every snapshot transition is written as it happens.
  const { plane, paths } = await testPlane(store, { snapshotCoalesceMs: 0 });
  const opened = performance.now(); // run_opened was written when the plane opened
  const fileSeqs = async () => seqsOf((await Deno.readTextFile(paths.events)).split("\n").filter((l) => l));
  // A lone event after a pause (more than the 5 ms batching window) is written at its boundary.
  await waitFor(() => performance.now() - opened > 6, { intervalMs: 2, what: "6 ms since the last write" });
  const lone = plane.record({ type: "message_streamed", data: { delta: "lone" } }, CTX);
  plane.boundary();
  assert.equal((await fileSeqs()).at(-1), lone.seq);
  // A backlog of ≥ 64 KiB is written at the next boundary, however recent the last write.
  let last = lone;
  for (let i = 0; i < 400; i++) {
    last = plane.record({ type: "message_streamed", data: { delta: "x".repeat(200) } }, CTX);
  }
  plane.boundary();
  assert.equal((await fileSeqs()).at(-1), last.seq);
  // The snapshot never names a seq the file does not hold.
  const more = plane.record({ type: "message_streamed", data: { delta: "y" } }, CTX);
  plane.transition({ session_live: true }); // written at once (the window has passed), with `more` still buffered
  // The events are flushed before the snapshot is even handed to its writer.
  assert.equal((await fileSeqs()).at(-1), more.seq);
  await plane.settled();
  const snap = JSON.parse(await Deno.readTextFile(paths.snapshot)) as { last_seq: number };
  assert.equal(snap.last_seq, more.seq);
  await plane.close("completed", null);
});

Deno.test("the store paths name segments with six-digit numbers", () => {
  const p = storePaths("/s");
  assert.equal(p.eventSegment(RUN_ID, 7), `/s/control/events/${RUN_ID}.000007.jsonl`);
});

Deno.test("a runner killed right after a seal loses and duplicates nothing when the run resumes", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/.prompt_runner`;
  const script = new URL("./_seal_crash.ts", import.meta.url).pathname;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", script, store],
    env: { PROMPT_RUNNER_FAILPOINT: "control.events_after_seal@2" },
    stderr: "piped",
  }).output();
  assert.equal(out.signal, "SIGKILL");
  assert.match(new TextDecoder().decode(out.stderr), /failpoint control\.events_after_seal reached/);
  const paths = storePaths(store);
  assert.deepEqual(sealedSegments(store, RUN_ID).map((s) => s.n), [1, 2]);
  await assert.rejects(Deno.stat(paths.events), Deno.errors.NotFound, "killed before the fresh events.jsonl");
  const sealedSeqs = seqsOf(await linesOf(runStreamFiles(store, RUN_ID, true)));
  assert.deepEqual(sealedSeqs, sealedSeqs.map((_, i) => i + 1));
  // Resume the same run: seq goes on from the last sealed line, the next seal gets number 3.
  const again = await testPlane(store, { segmentBytes: 4096, resumed: true });
  for (let i = 0; i < 100; i++) again.plane.record({ type: "message_streamed", data: { delta: `r${i} ` } }, CTX);
  await again.plane.close("completed", null);
  assert.deepEqual(sealedSegments(store, RUN_ID).map((s) => s.n).slice(0, 3), [1, 2, 3]);
  const all = seqsOf(await linesOf(runStreamFiles(store, RUN_ID, true)));
  assert.deepEqual(all, all.map((_, i) => i + 1));
  assert.equal(all.length, sealedSeqs.length + 102);
});

Deno.test("a seal that cannot rename keeps every line in the live file and is tried again later", async () => {
  await using tmp = await tempDir();
  const live = `${tmp.path}/events.jsonl`;
  let ok = false;
  let tries = 0;
  const a = new EventAppender(live, false, {
    maxBytes: 500,
    nextSegment: () => {
      tries++;
      return ok ? `${tmp.path}/seg.${tries}.jsonl` : `${tmp.path}/missing-dir/seg.jsonl`;
    },
  });
  const lines = Array.from({ length: 60 }, (_, i) => JSON.stringify({ seq: i + 1, pad: "p".repeat(20) }));
  for (const l of lines.slice(0, 30)) a.push(l);
  a.flush();
  assert.equal(a.sealed, 0);
  assert.ok(tries >= 1, "a seal was attempted");
  assert.deepEqual(await linesOf([live]), lines.slice(0, 30), "nothing lost while sealing fails");
  ok = true;
  for (const l of lines.slice(30)) a.push(l);
  a.close();
  assert.ok(a.sealed >= 1, "sealed once renaming works again");
  const sealed = [...Deno.readDirSync(tmp.path)].map((e) => e.name).filter((n) => n.startsWith("seg."))
    .sort((x, y) => Number(x.split(".")[1]) - Number(y.split(".")[1])).map((n) => `${tmp.path}/${n}`);
  assert.deepEqual(await linesOf([...sealed, live]), lines);
});
