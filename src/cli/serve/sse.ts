/**
 * Server-Sent Events of `control serve` (docs/reference/http_api.md §5): a run's events with their `seq` as the SSE
 * id, resumed from `Last-Event-ID`, and the audit log's entries numbered in order; both end with an `end` event
 * carrying the run's final status. A comment line every 15 s keeps idle connections open through proxies.
 */
import { currentRun, type Cursor, followLog, type RunRef, snapshot, subscribe } from "../../control/mod.ts";
import { HttpError } from "./guard.ts";

/** One SSE frame: `id` (optional), `event` (optional, default `message`), `data` (JSON). */
export interface SseFrame {
  id?: string;
  event?: string;
  data: unknown;
}

const encoder = new TextEncoder();

/** The bytes of one frame. */
export function frameBytes(f: SseFrame): Uint8Array {
  let text = "";
  if (f.id !== undefined) text += `id: ${f.id}\n`;
  if (f.event !== undefined) text += `event: ${f.event}\n`;
  text += `data: ${JSON.stringify(f.data)}\n\n`;
  return encoder.encode(text);
}

/** How often an idle stream sends a keep-alive comment. */
const KEEPALIVE_MS = 15_000;

/**
 * A `text/event-stream` response over `frames`, pulled one frame at a time (a slow client holds back only its own
 * follower). The stream ends when the frames end, the client goes away (`signal`), or the server closes.
 */
export function sseResponse(
  frames: (signal: AbortSignal) => AsyncIterable<SseFrame | Uint8Array>,
  signal: AbortSignal,
  headers: Record<string, string>,
  onClose: () => void = () => {},
): Response {
  const ac = new AbortController();
  let it: AsyncIterator<SseFrame | Uint8Array> | null = null;
  let timer: ReturnType<typeof setInterval> | undefined;
  let ctl: ReadableStreamDefaultController<Uint8Array> | null = null;
  // The server stopping (or the client leaving) ends the stream at once, even between two pulls.
  const stop = () => {
    close();
    try {
      ctl?.close();
    } catch { /* already closed */ }
    void it?.return?.();
  };
  signal.addEventListener("abort", stop, { once: true });
  const close = () => {
    clearInterval(timer);
    signal.removeEventListener("abort", stop);
    ac.abort();
    onClose();
  };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      ctl = controller;
      controller.enqueue(encoder.encode("retry: 1000\n\n"));
      timer = setInterval(() => {
        try {
          controller.enqueue(encoder.encode(": keep-alive\n\n"));
        } catch { /* closed */ }
      }, KEEPALIVE_MS);
    },
    async pull(controller) {
      try {
        it ??= frames(ac.signal)[Symbol.asyncIterator]();
        const next = await it.next();
        if (next.done) {
          close();
          controller.close();
          return;
        }
        controller.enqueue(next.value instanceof Uint8Array ? next.value : frameBytes(next.value));
      } catch (e) {
        // Whether the stream was already ending (server stop, client gone), read before close() aborts it too.
        const ending = ac.signal.aborted;
        close();
        if (ending) {
          try {
            controller.close();
          } catch { /* already closed */ }
          return;
        }
        controller.enqueue(frameBytes({ event: "error", data: errorData(e) }));
        controller.close();
      }
    },
    async cancel() {
      close();
      await it?.return?.();
    },
  });
  return new Response(body, {
    status: 200,
    headers: { ...headers, "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store" },
  });
}

function errorData(e: unknown): Record<string, unknown> {
  const err = e as { code?: unknown; message?: unknown };
  return { code: typeof err.code === "string" ? err.code : "internal_error", message: String(err.message ?? e) };
}

/**
 * The cursor of an events stream: `Last-Event-ID` (resume after it) wins over `?from=`. A `?from=` that is not
 * `start`, `current` or a seq is refused (400 `invalid_value`), as `control events --from` refuses it, rather than
 * read as `start`.
 */
export function eventsCursor(lastEventId: string | null, from: string | null): Cursor {
  if (from !== null && from !== "" && from !== "start" && from !== "current" && !/^\d{1,15}$/.test(from)) {
    throw new HttpError(400, "invalid_value", `from: expected start, current or a seq, got ${JSON.stringify(from)}`);
  }
  if (lastEventId !== null && /^\d+$/.test(lastEventId.trim())) return Number(lastEventId.trim()) + 1;
  if (from === null || from === "" || from === "start") return "start";
  if (from === "current") return "current";
  return Number(from);
}

/** The `end` frame of a run, from its snapshot (a stream that ended without a `run_finished` of its own). */
export async function endFrame(ref: RunRef): Promise<SseFrame> {
  return { event: "end", data: { run_id: ref.runId, ...await finalStatus(ref) } };
}

async function finalStatus(ref: RunRef): Promise<{ status: string; reason: string | null }> {
  const snap = await snapshot(ref).catch(() => null);
  return { status: snap?.status ?? "unknown", reason: snap?.reason ?? null };
}

/**
 * A run's events: every envelope with its `seq` as id (gap and resync items have none), then `end` with the run's
 * final status (from its `run_finished`, real or synthetic).
 */
export async function* eventFrames(ref: RunRef, from: Cursor, signal: AbortSignal): AsyncGenerator<SseFrame> {
  let ended: { status: string; reason: string | null } | null = null;
  for await (const item of subscribe(ref, { from, signal, pollMs: 500 })) {
    const seq = item.seq;
    yield typeof seq === "number" ? { id: String(seq), data: item } : { data: item };
    if (item.type === "run_finished") {
      const d = (item.data ?? {}) as { status?: unknown; reason?: unknown };
      ended = {
        status: typeof d.status === "string" ? d.status : "unknown",
        reason: typeof d.reason === "string" ? d.reason : null,
      };
    }
  }
  if (signal.aborted) return;
  yield { event: "end", data: { run_id: ref.runId, ...(ended ?? await finalStatus(ref)) } };
}

/** The audit log of a run: entry n has id n (1-based, in log order); a resume skips the ids it has. */
export async function* logFrames(
  ref: RunRef,
  after: number,
  allRuns: boolean,
  signal: AbortSignal,
): AsyncGenerator<SseFrame> {
  let n = 0;
  for await (const entry of followLog(ref, { allRuns, signal, pollMs: 500 })) {
    n += 1;
    if (n > after) yield { id: String(n), data: entry };
  }
  if (signal.aborted) return;
  yield { event: "end", data: { run_id: ref.runId, ...await finalStatus(ref) } };
}

/** The current run of a store root (for streams addressed without `?run=`). */
export async function runOf(storeRoot: string, runParam: string | null): Promise<RunRef> {
  if (runParam) return { storeRoot, runId: runParam };
  return await currentRun({ kind: "state", stateRoot: storeRoot });
}
