/**
 * Reading one entry of `control/requests/` defensively (control-plane.md §6.3 steps 1, 3, 4 and 7): never follows
 * symlinks, never opens FIFOs, never reads more than 64 KiB, and classifies everything it cannot use.
 */
import { isRecord } from "./_internal.ts";
import { MAX_REQUEST_BYTES } from "./request.ts";

/** What one request entry turned out to be. */
export type Inspection =
  | { kind: "gone" }
  | { kind: "not_file"; fileType: string; size: number; isDirectory: boolean }
  | { kind: "oversized"; size: number }
  | { kind: "unparseable"; message: string }
  | { kind: "no_command"; author: string; params: Record<string, unknown>; runId: string | null }
  | { kind: "request"; command: string; params: Record<string, unknown>; runId: string | null; author: string };

function fileType(st: Deno.FileInfo): string {
  if (st.isSymlink) return "symlink";
  if (st.isDirectory) return "directory";
  if (st.isFifo) return "fifo";
  if (st.isSocket) return "socket";
  if (st.isCharDevice) return "character device";
  if (st.isBlockDevice) return "block device";
  return "unknown";
}

const decoder = new TextDecoder("utf-8", { fatal: true });

/** Inspect `requests/<name>`: lstat, size cap, decode, and the `command` / `params` / `run_id` / `author` fields. */
export function inspectRequest(path: string): Inspection {
  let st: Deno.FileInfo;
  try {
    st = Deno.lstatSync(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return { kind: "gone" };
    throw e;
  }
  if (st.isSymlink || !st.isFile) {
    return { kind: "not_file", fileType: fileType(st), size: st.size, isDirectory: st.isDirectory };
  }
  if (st.size > MAX_REQUEST_BYTES) return { kind: "oversized", size: st.size };
  let bytes: Uint8Array;
  try {
    // A regular file was swapped for something else after lstat: refuse to block on it.
    const file = Deno.openSync(path, { read: true });
    try {
      const info = file.statSync();
      if (!info.isFile) return { kind: "not_file", fileType: fileType(info), size: info.size, isDirectory: false };
      const buf = new Uint8Array(MAX_REQUEST_BYTES + 1);
      let off = 0;
      while (off < buf.length) {
        const n = file.readSync(buf.subarray(off));
        if (n === null || n === 0) break;
        off += n;
      }
      if (off > MAX_REQUEST_BYTES) return { kind: "oversized", size: off };
      bytes = buf.subarray(0, off);
    } finally {
      file.close();
    }
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return { kind: "gone" };
    throw e;
  }
  let body: unknown;
  try {
    body = JSON.parse(decoder.decode(bytes));
  } catch (e) {
    return { kind: "unparseable", message: e instanceof Error ? e.message : String(e) };
  }
  if (!isRecord(body)) {
    const what = body === null ? "null" : Array.isArray(body) ? "an array" : typeof body;
    return { kind: "unparseable", message: `expected an object, got ${what}` };
  }
  const author = typeof body.author === "string" && body.author.trim() ? body.author : "unknown";
  const params = isRecord(body.params) ? body.params : {};
  const runId = body.run_id === undefined || body.run_id === null ? null : String(body.run_id);
  if (typeof body.command !== "string") return { kind: "no_command", author, params, runId };
  return { kind: "request", command: body.command, params, runId, author };
}
