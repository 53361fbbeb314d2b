/**
 * The files of one run's event stream (docs/reference/control-plane.md §5.2): its sealed segments
 * `events/<run_id>.<n>.jsonl` in order, then its last segment — `events.jsonl` while it is the current run,
 * `events/<run_id>.jsonl` once a later run archived it. Also the streaming reader every offline consumer uses
 * (`replay`, `control events --no-follow` on an archive): one 64 KiB chunk at a time, never the whole file.
 */
import { storePaths } from "../store/paths.ts";
import { firstRunId, lastCompleteSeq } from "./event_log.ts";
import { LineReader } from "./tail.ts";
import { readSnapshotOrNull } from "./snapshot.ts";

const SEGMENT_NAME = /^(.+)\.(\d{6,})\.jsonl$/;

/** One sealed segment of a run's stream. */
export interface SealedSegment {
  /** 1-based segment number. */
  n: number;
  path: string;
}

/** The sealed segments of run `runId`, oldest first (none for a run that never reached the size bound). */
export function sealedSegments(storeRoot: string, runId: string): SealedSegment[] {
  const p = storePaths(storeRoot);
  const out: SealedSegment[] = [];
  try {
    for (const e of Deno.readDirSync(p.eventsArchive)) {
      if (!e.isFile) continue;
      const m = SEGMENT_NAME.exec(e.name);
      if (m && m[1] === runId) out.push({ n: Number(m[2]), path: `${p.eventsArchive}/${e.name}` });
    }
  } catch { /* no archive directory yet */ }
  return out.sort((a, b) => a.n - b.n);
}

/** The run id and segment number a file name in `events/` belongs to (`n` 0 for a run's last segment), or null. */
export function archiveEntry(name: string): { runId: string; n: number } | null {
  const m = SEGMENT_NAME.exec(name);
  if (m) return { runId: m[1]!, n: Number(m[2]) };
  if (!name.endsWith(".jsonl")) return null;
  const base = name.slice(0, -".jsonl".length);
  // `<run_id>-<k>.jsonl`: an archive whose name was taken (docs/reference/control-plane.md §5.2).
  const dup = /^(\d{8}T\d{6}Z-[A-Za-z0-9]+)-\d+$/.exec(base);
  return { runId: dup ? dup[1]! : base, n: 0 };
}

/**
 * Every existing file of run `runId`'s stream in read order: sealed segments, then the last segment (the live
 * `events.jsonl` when `live`, else the archived `events/<run_id>.jsonl`).
 */
export function runStreamFiles(storeRoot: string, runId: string, live: boolean): string[] {
  const p = storePaths(storeRoot);
  const files = sealedSegments(storeRoot, runId).map((s) => s.path);
  const last = live ? p.events : p.archivedEvents(runId);
  try {
    if (Deno.statSync(last).isFile) files.push(last);
  } catch { /* not (yet) there */ }
  return files;
}

/**
 * The files of run `runId`'s stream in read order, or of the latest run when `runId` is null. The live file is the
 * run's when its first line or the snapshot names the run. `runId` null in the result: no recorded run at all.
 */
export async function eventStream(
  storeRoot: string,
  runId: string | null,
): Promise<{ runId: string | null; files: string[] }> {
  const liveId = firstRunId(storePaths(storeRoot).events) ?? (await readSnapshotOrNull(storeRoot))?.run_id ?? null;
  const id = runId ?? liveId;
  if (id === null) return { runId: null, files: [] };
  return { runId: id, files: runStreamFiles(storeRoot, id, id === liveId) };
}

/**
 * The last `seq` a run wrote: the live file's last complete line, else (a crash right after a segment was sealed
 * left `events.jsonl` missing or empty) the last sealed segment's. `torn`: the live file ends mid-line.
 */
export function lastRunSeq(storeRoot: string, runId: string): { seq: number; torn: boolean } {
  const live = lastCompleteSeq(storePaths(storeRoot).events);
  if (live.seq > 0) return live;
  const sealed = sealedSegments(storeRoot, runId);
  for (let i = sealed.length - 1; i >= 0; i--) {
    const s = lastCompleteSeq(sealed[i]!.path);
    if (s.seq > 0) return { seq: s.seq, torn: live.torn };
  }
  return live;
}

/**
 * Stream the decodable envelopes of the given files in order, one chunk at a time (memory bounded by one 64 KiB
 * chunk, whatever the run's size). Files whose last `seq` is below `minSeq` are skipped unread.
 */
export function* readStreamFiles(files: readonly string[], minSeq = 1): Generator<Record<string, unknown>> {
  for (const [i, path] of files.entries()) {
    if (minSeq > 1 && i < files.length - 1 && lastCompleteSeq(path).seq < minSeq) continue;
    const reader = LineReader.open(path, "start");
    if (reader === null) continue;
    try {
      for (;;) {
        const { items, eof } = reader.readChunk();
        for (const item of items) yield item;
        if (eof) break;
      }
    } finally {
      reader.close();
    }
  }
}
