/**
 * Following a run's event stream (docs/reference/control-plane.md §11): replay, cursors, `resync` items, archives, and the end
 * conditions — the run's `run_finished` line, a finished snapshot, a dead runner (synthetic `run_finished` with
 * status `abandoned`), rotation — so a follower never hangs on a dead run. Also follows `log.jsonl`.
 */
import { nowIso } from "../util/time.ts";
import { storePaths } from "../store/paths.ts";
import { LineReader, Wakeup } from "./tail.ts";
import { lastCompleteSeq } from "./event_log.ts";
import { readLease } from "../store/lease.ts";
import { ControlError } from "./errors.ts";
import { readSnapshotOrNull } from "./snapshot.ts";

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
}

/** An item of a subscription: an envelope as written, or a synthetic `resync` / `run_finished`. */
export type StreamItem = Record<string, unknown>;

/** The archive of an earlier run's stream, or null. */
function archivePath(storeRoot: string, runId: string): string | null {
  const p = storePaths(storeRoot);
  try {
    Deno.statSync(p.archivedEvents(runId));
    return p.archivedEvents(runId);
  } catch {
    return null;
  }
}

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
  const p = storePaths(storeRoot);
  const pollMs = opts.pollMs ?? 1000;
  const follow = opts.follow ?? true;
  const snap = await readSnapshotOrNull(storeRoot);
  const live = snap?.run_id === runId;
  const path = live ? p.events : archivePath(storeRoot, runId);
  if (path === null) throw new ControlError("no_run", `run ${runId} has no event stream in ${storeRoot}`);
  const from = opts.from ?? "start";
  let minSeq = 1;
  let start: "start" | "end" = "start";
  if (from === "current") start = "end";
  else if (from !== "start") {
    const cursorRun = typeof from === "number" ? runId : from.runId;
    const seq = typeof from === "number" ? from : from.seq;
    if (cursorRun !== runId) {
      yield { type: "resync", data: { reason: "rotated", cursor: from, run_id: runId, first_seq: 1 } };
    } else if (seq > lastCompleteSeq(path).seq + 1) {
      yield { type: "resync", data: { reason: "cursor_ahead", cursor: from, run_id: runId, first_seq: 1 } };
    } else minSeq = seq;
  }
  const opened = LineReader.open(path, start);
  if (opened === null) throw new ControlError("no_run", `run ${runId} has no event stream in ${storeRoot}`);
  let reader: LineReader = opened;
  const seqs = new SeqGuard(runId, start === "start" ? minSeq - 1 : null);
  const wake = live && follow ? new Wakeup(opts.watch === false ? null : p.control) : null;
  let lastLease = 0;
  try {
    // Drain what is available; true when the run's run_finished line was delivered.
    const drain = async function* (): AsyncGenerator<StreamItem, boolean> {
      for (;;) {
        const { items, eof } = reader.readChunk();
        for (const item of items) {
          if (typeof item.seq === "number" && item.seq < minSeq) continue;
          const gap = seqs.admit(item);
          if (gap === false) continue; // already delivered (read again after a reopen)
          if (gap !== null) yield gap;
          yield item;
          if (item.type === "run_finished" && item.run_id === runId) return true;
        }
        if (eof) return false;
      }
    };
    for (;;) {
      if (opts.signal?.aborted) return;
      if (yield* drain()) return;
      if (!follow) return;
      if (!live) {
        yield synthetic(runId, "abandoned", null);
        return;
      }
      // Idle: decide whether the run is over, or whether the file under us was truncated or replaced.
      if (reader.truncated()) {
        seqs.reason = "truncated";
        const fresh = LineReader.open(path, "start");
        if (fresh !== null) {
          reader.close();
          reader = fresh;
          continue;
        }
        // Truncated, then removed: handled as a replacement below (wait for the runner to recreate it).
      }
      if (reader.replaced(path)) {
        if (yield* drain()) return;
        const again = await readSnapshotOrNull(storeRoot);
        if (again?.run_id !== runId) {
          yield synthetic(runId, "abandoned", null);
          return;
        }
        // Still this run's stream, replaced or removed under the runner (which reopens the path at its next
        // flush): follow the new file; while none exists, the end checks below still apply.
        const next = LineReader.open(path, "start");
        if (next !== null) {
          reader.close();
          reader = next;
          seqs.reason = "replaced";
          continue;
        }
      }
      const now = await readSnapshotOrNull(storeRoot);
      if (now && now.run_id === runId && (now.status === "completed" || now.status === "failed")) {
        if (yield* drain()) return;
        yield synthetic(runId, now.status, now.reason);
        return;
      }
      if (Date.now() - lastLease >= Math.min(500, pollMs)) {
        lastLease = Date.now();
        if ((await readLease(storeRoot)).state === "down") {
          if (yield* drain()) return;
          yield synthetic(runId, "abandoned", null);
          return;
        }
      }
      await wake!.wait(pollMs, opts.signal);
    }
  } finally {
    reader.close();
    await wake?.close();
  }
}

/**
 * Sequence continuity of one run's stream: items already delivered are dropped, and a jump in `seq` is announced
 * by a `gap` item naming the missing range and why (the file was truncated, replaced, or lines are missing).
 */
class SeqGuard {
  readonly #runId: string;
  #last: number | null;
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
