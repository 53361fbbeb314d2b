/**
 * Following a run's event stream (docs/reference/control-plane.md §11): replay, cursors, `resync` items, archives, and the end
 * conditions — the run's `run_finished` line, a finished snapshot, a dead runner (synthetic `run_finished` with
 * status `abandoned`), rotation — so a follower never hangs on a dead run. Also follows `log.jsonl`.
 */
import { nowIso } from "../util/time.ts";
import { isTempSiblingName } from "../util/fs.ts";
import { storePaths } from "../store/paths.ts";
import { LineReader, Wakeup } from "./tail.ts";
import { lastCompleteSeq } from "./event_log.ts";
import { lastRunSeq, runStreamFiles, sealedSegments } from "./segments.ts";
import { readLease } from "../store/lease.ts";
import { ControlError } from "./errors.ts";
import { readSnapshotOrNull } from "./snapshot.ts";

/** A stream with no new lines for this long is quiet: an idle wake then checks whether the run has ended. */
const QUIET_MS = 50;

/**
 * The snapshot and its temps: the runner replaces the snapshot every 50 ms while it streams, five watch events each
 * (temp created, written, renamed), none of which adds a line. A follower does not wake for them: the lines it reads
 * wake it, and the end checks a snapshot feeds (a run finished without its line) run at the poll as well
 * (docs/reference/control-plane.md §11.1).
 */
function snapshotFile(name: string): boolean {
  return name === "snapshot.json" || isTempSiblingName(name, "snapshot.json");
}

/** Where a subscription starts (docs/reference/control-plane.md §11.2). */
export type Cursor = "start" | "current" | number | { runId: string; seq: number };

/** Options of {@link followRun}. */
export interface FollowOptions {
  from?: Cursor;
  signal?: AbortSignal;
  /** Poll interval in ms (default 1000). */
  pollMs?: number;
  /** false: deliver what exists and end without waiting or a synthetic end item. */
  follow?: boolean;
  /** Wake on `Deno.watchFs` as well as the poll (default true; false is the polling baseline of benchmarks). */
  watch?: boolean;
  /** Remember each envelope's line as written (`rawLineOf`), for callers that forward it as is. */
  rawLines?: boolean;
  /**
   * At most one read per this many ms while the stream is busy (default 0): wakes in between are coalesced into the
   * next read, so a follower of a run writing at full speed reads big chunks instead of competing per event.
   */
  coalesceMs?: number;
  /** Called each time the follower has delivered everything available and is about to wait (batch boundary). */
  onIdle?: () => void;
  /**
   * Wait for more with this instead of a watcher of its own and the poll (a `control serve` client behind the shared
   * follower waits for the hub's next read). The end checks (snapshot, lease) still run at every idle wake.
   */
  wait?: (signal?: AbortSignal) => Promise<void>;
}

/** An item of a subscription: an envelope as written, or a synthetic `resync` / `run_finished`. */
export type StreamItem = Record<string, unknown>;

function synthetic(runId: string, status: string, reason: string | null): StreamItem {
  return {
    type: "run_finished",
    seq: null,
    at: nowIso(),
    run_id: runId,
    origin: "runner",
    synthetic: true,
    data: { status, reason },
  };
}

/**
 * Follow the events of run `runId` in a store root. Yields envelopes exactly as written and ends with one
 * `run_finished` item (real or synthetic). Throws `ControlError("no_run")` when neither the current stream nor an
 * archive holds the run.
 */
export async function* followRun(
  storeRoot: string,
  runId: string,
  opts: FollowOptions = {},
): AsyncGenerator<StreamItem> {
  for await (const batch of followRunBatches(storeRoot, runId, opts)) for (const item of batch) yield item;
}

/**
 * {@link followRun}'s items in batches: what one read of the stream delivered (at most 64 KiB of lines), one await
 * per batch instead of one per item (the shared follower of `control serve`). Same items, same order, same end.
 */
export async function* followRunBatches(
  storeRoot: string,
  runId: string,
  opts: FollowOptions = {},
): AsyncGenerator<StreamItem[]> {
  const p = storePaths(storeRoot);
  const pollMs = opts.pollMs ?? 1000;
  const follow = opts.follow ?? true;
  const snap = await readSnapshotOrNull(storeRoot);
  const live = snap?.run_id === runId;
  // The live file is the one being written (null while a seal has just renamed it away); sealed segments come first.
  // It is opened before the segments are listed, so a segment sealed in between is listed and the same file is not
  // read twice (matched by inode); an earlier run has no live file, only its archived files.
  const path = p.events;
  const from = opts.from ?? "start";
  const raw = opts.rawLines ?? false;
  const coalesceMs = opts.coalesceMs ?? 0;
  const start: "start" | "end" = from === "current" ? "end" : "start";
  let reader: LineReader | null = live ? LineReader.open(path, start, raw) : null;
  const files = live
    ? sealedSegments(storeRoot, runId).map((s) => s.path).filter((f) => reader === null || !reader.isFile(f))
    : runStreamFiles(storeRoot, runId, false);
  if (reader === null && files.length === 0) {
    throw new ControlError("no_run", `run ${runId} has no event stream in ${storeRoot}`);
  }
  const prefix = start === "end" ? [] : files;
  let minSeq = 1;
  if (from !== "start" && from !== "current") {
    const cursorRun = typeof from === "number" ? runId : from.runId;
    const seq = typeof from === "number" ? from : from.seq;
    const last = live ? lastRunSeq(storeRoot, runId).seq : lastCompleteSeq(files.at(-1) ?? "").seq;
    if (cursorRun !== runId) {
      yield [{ type: "resync", data: { reason: "rotated", cursor: from, run_id: runId, first_seq: 1 } }];
    } else if (seq > last + 1) {
      yield [{ type: "resync", data: { reason: "cursor_ahead", cursor: from, run_id: runId, first_seq: 1 } }];
    } else minSeq = seq;
  }
  const seqs = new SeqGuard(runId, start === "start" ? minSeq - 1 : null);
  // Following from "current": segments sealed before the follower came are not its business.
  const floor = start === "end" ? lastRunSeq(storeRoot, runId).seq : 0;
  // Open the file now at the live path, then queue every sealed segment holding lines not delivered yet that is not
  // that same file: segments sealed while the follower was busy (more than one rotation) are read in order first.
  const reopenLive = (): LineReader | null => {
    const next = LineReader.open(path, "start", raw);
    const done = seqs.last ?? floor;
    for (const s of sealedSegments(storeRoot, runId)) {
      if (prefix.includes(s.path) || (next !== null && next.isFile(s.path))) continue;
      if (lastCompleteSeq(s.path).seq > done) prefix.push(s.path);
    }
    return next;
  };
  // Armed at the first wait, not before the first drain: a finished run's stream ends in that drain, and a follower
  // of it starts no watcher (one is a thread to start and to stop at exit). A live one drains once more after arming.
  let wake: Wakeup | null = null;
  const wakes = live && follow && opts.wait === undefined;
  let lastLease = 0;
  let lastSnap = 0;
  let lastRead = 0;
  let lastBusy = 0;
  let delivered = 0;
  try {
    // Deliver one chunk's items as one batch; true when the run's run_finished line was delivered.
    const deliver = function* (items: StreamItem[]): Generator<StreamItem[], boolean> {
      const out: StreamItem[] = [];
      let finished = false;
      for (const item of items) {
        if (typeof item.seq === "number" && item.seq < minSeq) continue;
        const gap = seqs.admit(item);
        if (gap === false) continue; // already delivered (read again after a reopen)
        if (gap !== null) out.push(gap);
        delivered += 1;
        out.push(item);
        if (item.type === "run_finished" && item.run_id === runId) {
          finished = true;
          break;
        }
      }
      if (out.length > 0) yield out;
      return finished;
    };
    // Drain what is available: the sealed segments not read yet (whole, in order; those below the cursor are
    // skipped unread), then the live file; true when the run's run_finished line was delivered.
    // A sync generator: delegating to it costs one promise per item, not a chain of async generators.
    const drain = function* (): Generator<StreamItem[], boolean> {
      while (prefix.length > 0) {
        const next = prefix.shift()!;
        if (minSeq > 1 && lastCompleteSeq(next).seq < minSeq) continue;
        const seg = LineReader.open(next, "start", raw);
        if (seg === null) continue; // removed under us: a gap item names what is missing
        try {
          for (;;) {
            const { items, eof } = seg.readChunk();
            if (yield* deliver(items)) return true;
            if (eof) break;
          }
        } finally {
          seg.close();
        }
      }
      if (reader === null) return false;
      for (;;) {
        const { items, eof } = reader.readChunk();
        if (yield* deliver(items)) return true;
        if (eof) return false;
      }
    };
    for (;;) {
      if (opts.signal?.aborted) return;
      lastRead = Date.now();
      const before = delivered;
      if (yield* drain()) return;
      if (!follow) return;
      const busy = delivered > before;
      if (!live) {
        yield [synthetic(runId, "abandoned", null)];
        return;
      }
      if (reader === null) {
        // The live file was missing (a seal had just renamed it): follow it once it exists.
        reader = reopenLive();
        if (reader !== null || prefix.length > 0) continue;
      }
      // A read that delivered lines shows the run writing, to the file read: the end and file checks wait for the next
      // read that finds nothing (a run that ended, or a file sealed or replaced, gets no more lines, so that read
      // comes: at the next write or poll).
      if (busy) lastBusy = lastRead;
      else {
        // Idle: decide whether the run is over, or whether the file under us was truncated or replaced.
        if (reader !== null && reader.truncated()) {
          seqs.reason = "truncated";
          const fresh = LineReader.open(path, "start", raw);
          if (fresh !== null) {
            reader.close();
            reader = fresh;
            continue;
          }
          // Truncated, then removed: handled as a replacement below (wait for the runner to recreate it).
        }
        if (reader !== null && reader.replaced(path)) {
          if (yield* drain()) return;
          const again = await readSnapshotOrNull(storeRoot);
          if (again?.run_id !== runId) {
            yield [synthetic(runId, "abandoned", null)];
            return;
          }
          // Still this run's stream: sealed into a segment (the runner opened a fresh file), or replaced or removed
          // under the runner (which reopens the path at its next flush): follow the new file, after any segments
          // sealed meanwhile; while none exists, the end checks below still apply.
          const next = reopenLive();
          if (next !== null) {
            reader.close();
            reader = next;
            seqs.reason = "replaced";
            continue;
          }
        }
        // The snapshot is read once the stream has been quiet for QUIET_MS (or every 250 ms), not at every wake that
        // found nothing: at full speed about every other wake does (its watch event names a write already read).
        const check = Date.now() - lastBusy >= QUIET_MS || Date.now() - lastSnap >= 250;
        const now = check ? await readSnapshotOrNull(storeRoot) : null;
        if (check) lastSnap = Date.now();
        if (now && now.run_id === runId && (now.status === "completed" || now.status === "failed")) {
          if (yield* drain()) return;
          yield [synthetic(runId, now.status, now.reason)];
          return;
        }
        if (Date.now() - lastLease >= Math.min(500, pollMs)) {
          lastLease = Date.now();
          if ((await readLease(storeRoot)).state === "down") {
            if (yield* drain()) return;
            yield [synthetic(runId, "abandoned", null)];
            return;
          }
        }
      }
      opts.onIdle?.();
      if (wakes && wake === null) {
        // The watcher sees writes from now on: what was written before it is read by one more drain.
        wake = new Wakeup(opts.watch === false ? null : p.control, { ignore: snapshotFile });
        continue;
      }
      if (opts.wait) await opts.wait(opts.signal);
      else await wake!.wait(pollMs, opts.signal);
      const since = Date.now() - lastRead;
      if (busy && coalesceMs > 0 && since < coalesceMs) await pause(coalesceMs - since, opts.signal);
    }
  } finally {
    reader?.close();
    await wake?.close();
  }
}

/**
 * Resolves after `ms` (the coalescing pause: a few ms). An abort during it is seen when it ends: an abort listener
 * added and removed per read would cost more than the pause.
 */
function pause(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Sequence continuity of one run's stream: items already delivered are dropped, and a jump in `seq` is announced
 * by a `gap` item naming the missing range and why (the file was truncated, replaced, or lines are missing).
 */
class SeqGuard {
  readonly #runId: string;
  #last: number | null;
  /** The last seq delivered (null before the first). */
  get last(): number | null {
    return this.#last;
  }

  /** Why the next jump happened (set when the follower reopened the file). */
  reason = "missing";

  constructor(runId: string, last: number | null) {
    this.#runId = runId;
    this.#last = last;
  }

  /** `false`: skip (duplicate); a gap item to yield first; or null. */
  admit(item: StreamItem): StreamItem | false | null {
    if (typeof item.seq !== "number" || item.run_id !== this.#runId) return null;
    const last = this.#last;
    if (last !== null && item.seq <= last) return false;
    this.#last = item.seq;
    if (last === null || item.seq === last + 1) return null;
    const gap: StreamItem = {
      type: "gap",
      seq: null,
      at: nowIso(),
      run_id: this.#runId,
      origin: "runner",
      synthetic: true,
      data: { reason: this.reason, from_seq: last + 1, to_seq: item.seq - 1 },
    };
    this.reason = "missing";
    return gap;
  }
}

/**
 * Follow `log.jsonl` from its current end (or start), yielding decodable entries until `until()` says the run is
 * over (checked when idle), the signal aborts, or the consumer stops.
 */
export async function* followLines(
  path: string,
  watchDir: string,
  opts: { fromStart: boolean; pollMs?: number; signal?: AbortSignal; until: () => Promise<boolean> },
): AsyncGenerator<StreamItem> {
  const pollMs = opts.pollMs ?? 1000;
  let reader = LineReader.open(path, opts.fromStart ? "start" : "end");
  const wake = new Wakeup(watchDir);
  try {
    for (;;) {
      if (opts.signal?.aborted) return;
      if (reader === null) reader = LineReader.open(path, "start");
      if (reader) {
        for (;;) {
          const { items, eof } = reader.readChunk();
          for (const item of items) yield item;
          if (eof) break;
        }
        // Truncated in place, or replaced (the old file is drained above): read the file now at the path from its
        // start. A truncation may have dropped lines not yet read, which is announced rather than hidden.
        const truncated = reader.truncated();
        if (truncated || reader.replaced(path)) {
          reader.close();
          reader = LineReader.open(path, "start");
          if (truncated) {
            yield { type: "gap", data: { reason: "truncated", file: path.slice(path.lastIndexOf("/") + 1) } };
          }
          continue;
        }
      }
      if (await opts.until()) {
        if (reader) { for (const item of reader.readChunk().items) yield item; }
        return;
      }
      await wake.wait(pollMs, opts.signal);
    }
  } finally {
    reader?.close();
    await wake.close();
  }
}
