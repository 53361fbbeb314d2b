/**
 * Refusals at the call (docs/reference/control-plane.md §10): every command that reaches the plane leaves an audit entry, and a
 * refusal made by the Control API itself — invalid view value, empty steer, missing reason, missing confirmation, a
 * run that is not running, … — is appended to `control/log.jsonl` as `outcome: "rejected"` with its reason, in the
 * docs/reference/control-plane.md §3.3 shape (`request: null`, key `refusal:<unique id>`). The API does it, so the CLI and any dashboard get it for
 * free. Nothing else is written: no request file, no receipt, no amendment record. A store root without a control
 * directory (a packet that never ran, a mistyped path) has no plane to reach, and nothing is created for it.
 */
import { PromptRunnerError } from "../errors.ts";
import { ControlError } from "./errors.ts";
import { FILE_MODE, prettyJson } from "../util/fs.ts";
import { appendStoreLine, ensureStoreDir, lstatStore } from "../util/safe_fs.ts";
import { normalizePromptId } from "../util/ids.ts";
import { nowIso } from "../util/time.ts";
import type { LogEntry, Receipt } from "./log.ts";
import { requestName } from "./request.ts";
import { readSnapshotOrNull } from "./snapshot.ts";
import { storePaths, storeRootForPacket } from "../store/paths.ts";
import { defaultAuthor, errorMessage } from "../util/common.ts";
import type { Target } from "./contract_view.ts";

/** What was asked, for the refusal's log entry. */
export interface RefusedCall {
  command: "set_view" | "steer" | "amend" | "relax" | "import_state";
  params: Record<string, unknown>;
  /** The addressed run; `undefined` = the store root's current run (null when none). */
  runId?: string | null;
  author?: string | undefined;
  promptId?: string | null;
}

async function isControlDir(path: string): Promise<boolean> {
  try {
    return (await Deno.lstat(path)).isDirectory;
  } catch {
    return false;
  }
}

/**
 * The log entry of a refusal (docs/reference/control-plane.md §3.3 shape). The reason is the error's message, so `control log` shows the caller
 * exactly what the caller was told.
 */
function refusalEntry(call: RefusedCall, runId: string | null, reason: string): LogEntry {
  const id = requestName().replace(/\.json$/, "");
  const prompt = call.promptId === undefined || call.promptId === null
    ? null
    : normalizePromptId(call.promptId) ?? call.promptId;
  return {
    at: nowIso(),
    key: `refusal:${id}`,
    request: null,
    run_id: runId,
    command: call.command,
    params: call.params,
    author: call.author?.trim() || defaultAuthor(),
    outcome: "rejected",
    reason,
    prompt_id: prompt,
    attempt: null,
  };
}

/**
 * Append the refusal of `error` to the store root's audit log when the store root has a control directory. One
 * write on an O_APPEND descriptor, fsynced. When the entry cannot be written the refusal still reaches the caller,
 * with a hint saying it is not on the record.
 */
async function recordRefusal(
  storeRoot: string,
  call: RefusedCall,
  error: PromptRunnerError,
  opts: { createControl?: boolean } = {},
): Promise<void> {
  const p = storePaths(storeRoot);
  if (opts.createControl && (await isControlDir(p.root))) {
    try {
      await ensureStoreDir(p.root, p.control);
    } catch { /* reported below: the entry cannot be written */ }
  }
  if (!(await isControlDir(p.control))) {
    if (opts.createControl) error.hints.push(`this refusal could not be recorded: ${p.control} is not a directory`);
    return;
  }
  try {
    await lstatStore(p.control, "dir"); // never written through a link (docs/store.md)
    const runId = call.runId !== undefined ? call.runId : (await readSnapshotOrNull(storeRoot))?.run_id ?? null;
    const entry = refusalEntry(call, runId, error.message);
    // A request taken back from an ended run is named, keyed like any request's outcome.
    const request = error.details.request;
    if (typeof request === "string") Object.assign(entry, { request, key: `${request}:rejected` });
    await appendStoreLine(p.log, JSON.stringify(entry), { fsync: true });
    if (typeof request === "string") await writeReceiptIfAbsent(p.outcomes, entry);
  } catch (e) {
    error.hints.push(`this refusal could not be recorded in ${p.log}: ${errorMessage(e)}`);
  }
}

/**
 * Record the refusal of a command that fills an existing store root itself (`workspace import-state`) in its audit
 * log, creating the control directory when the store root has none yet: that store root is the workspace's own, so a
 * refused import is on the record even before the first run. A store root that does not exist gets nothing.
 */
export async function recordStoreRefusal(
  storeRoot: string,
  call: RefusedCall,
  error: PromptRunnerError,
): Promise<void> {
  await recordRefusal(storeRoot, call, error, { createControl: true });
}

/** The receipt of a taken-back request (docs/reference/control-plane.md §3.2), so `outcome()` answers it too; never overwrites one. */
async function writeReceiptIfAbsent(outcomes: string, entry: LogEntry): Promise<void> {
  const receipt: Receipt = {
    request: entry.request!,
    run_id: entry.run_id,
    command: entry.command,
    outcome: "rejected",
    reason: entry.reason,
    recorded_at: entry.at,
  };
  await lstatStore(outcomes, "dir");
  try {
    await Deno.writeTextFile(`${outcomes}/${entry.request}`, prettyJson(receipt), { createNew: true, mode: FILE_MODE });
  } catch (e) {
    if (!(e instanceof Deno.errors.AlreadyExists)) throw e;
  }
}

/**
 * Run a Control API call; when it refuses (throws a {@link PromptRunnerError}), record the refusal and rethrow.
 * Other failures (I/O errors) are not refusals and pass through untouched. `storeRoot` null = no plane to record in.
 */
export async function orRecordRefusal<T>(
  storeRoot: string | null | (() => Promise<string | null>),
  call: RefusedCall,
  fn: () => Promise<T>,
): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof PromptRunnerError) {
      const root = typeof storeRoot === "function" ? await storeRoot().catch(() => null) : storeRoot;
      if (root !== null) await recordRefusal(root, call, e);
    }
    throw e;
  }
}

/** The store root a contract-command target names, or null when it cannot be known without a packet binding. */
export async function storeRootOfTarget(
  target: string | { storeRoot: string } | { packetDir: string; storeRoot: string } | { workspace: string },
): Promise<string | null> {
  if (typeof target === "string") return storeRootForPacket(await Deno.realPath(target).catch(() => target));
  return "storeRoot" in target ? target.storeRoot : null;
}

/** The refusal description of an `amend`/`relax` call (its params as given, plus `persist`). */
export function contractCall(
  command: "amend" | "relax",
  target: Target,
  promptId: string,
  opts: { author?: string; persist?: boolean; runId?: string | null },
  params: Record<string, unknown>,
): RefusedCall {
  const runId = opts.runId !== undefined
    ? opts.runId
    : typeof target !== "string" && "runId" in target
    ? target.runId
    : undefined;
  return {
    command,
    params: { ...params, persist: opts.persist === true },
    author: opts.author,
    promptId,
    ...(runId !== undefined ? { runId } : {}),
  };
}

/** Largest steer text a refusal entry keeps (a request file's limit); longer text is cut and its size noted. */
const MAX_REFUSED_TEXT_BYTES = 65536;

/** The params of a refused steer: the trimmed text as given, cut at {@link MAX_REFUSED_TEXT_BYTES} with its size. */
export function steerParams(trimmed: string): Record<string, unknown> {
  const bytes = new TextEncoder().encode(trimmed);
  if (bytes.length <= MAX_REFUSED_TEXT_BYTES) return { text: trimmed };
  const cut = new TextDecoder().decode(bytes.subarray(0, MAX_REFUSED_TEXT_BYTES)).replace(/\uFFFD$/, "");
  return { text: cut, text_bytes: bytes.length, truncated: true };
}

/** Test seam: awaited right after a request file is dropped, before the run status is re-checked. */
export const dropSeam: { afterDrop: ((request: string) => Promise<void>) | null } = { afterDrop: null };

/**
 * Take back a request just dropped into `requests/` (claim by rename into `control/.tmp/`, then delete), for a run
 * that ended before it could take it. True when this call removed it; false when someone else already claimed it
 * (a runner consumed it, or a sweep gave it an outcome), in which case it has or will get its outcome there.
 */
async function withdrawRequest(storeRoot: string, request: string): Promise<boolean> {
  const p = storePaths(storeRoot);
  const claimed = `${p.controlTmp}/.withdrawn-${Deno.pid}-${request}`;
  try {
    await Deno.rename(`${p.requests}/${request}`, claimed);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return false;
    throw e;
  }
  await Deno.remove(claimed).catch(() => {});
  return true;
}

/**
 * After a request is dropped: when the run is no longer running (`status` rejects with a {@link ControlError}, e.g.
 * `stale_run`, when it was replaced) and the request still waits in `requests/`, nothing will ever answer it. The
 * request is taken back and the call refused with `run_not_running` (details `status`, `request`), so the caller is
 * never told "queued".
 */
export async function refuseIfEnded(
  ref: { storeRoot: string; runId: string },
  request: string,
  status: () => Promise<string>,
): Promise<void> {
  const now = await status().catch((e) => e instanceof ControlError ? "replaced" : null);
  if (now === null || now === "running") return;
  if (!(await withdrawRequest(ref.storeRoot, request))) return;
  throw new ControlError("run_not_running", `run ${ref.runId} ended (${now}) before it took the request`, {
    details: { status: now, request },
  });
}
