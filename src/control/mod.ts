/**
 * The Control API (docs/reference/control-plane.md §12): the one typed surface through which the CLI's `control` commands, the
 * dashboard and scripts read a run's state, follow its events, change its view, steer it and amend contracts.
 * No function writes to stdout, reads a terminal, or talks to the runner process: reads open files, writes drop
 * request files that the runner consumes at its next boundary.
 *
 * @module
 */
import { DEFAULT_VIEW, type View } from "../events/types.ts";
import { readTextOrNull } from "../util/fs.ts";
import { nowIso } from "../util/time.ts";
import type { PromptRunnerError } from "../errors.ts";
import { storePaths, storeRootForPacket } from "../store/paths.ts";
import { ControlError } from "./errors.ts";
import { readLease } from "../store/lease.ts";
import type { LogEntry, Receipt } from "./log.ts";
import { effectiveStatus, readSnapshotFile, type SnapshotRead } from "./snapshot.ts";
import { validateView } from "./view.ts";
import { checkSteerText } from "./steer.ts";
import { REQUEST_SCHEMA, writeRequest } from "./request.ts";
import type { Cursor, StreamItem } from "./follow.ts";
import { defaultAuthor } from "../util/common.ts";
import {
  contractCall,
  dropSeam,
  orRecordRefusal,
  type RefusedCall,
  refuseIfEnded,
  steerParams,
  storeRootOfTarget,
} from "./refusal.ts";

export { ControlError } from "./errors.ts";
export { recordStoreRefusal, type RefusedCall } from "./refusal.ts";
export { checkSteerText, MAX_STEER_BYTES, type SteerTextCheck } from "./steer.ts";
export type { LogEntry, Receipt } from "./log.ts";
export type { Cursor, StreamItem } from "./follow.ts";
export { isRequestName } from "./request.ts";
export type { AmendOptions, RelaxOptions } from "./amend.ts";
export type { ContractView, Target } from "./contract_view.ts";
export type { RollupState, StatusRollup } from "./rollup.ts";
export type { TimelineAttempt, TimelinePrompt } from "./timeline.ts";
import type { AmendOptions, RelaxOptions } from "./amend.ts";
import type { ContractView, Target } from "./contract_view.ts";
import type { AmendmentRecord } from "../contract/mod.ts";
import type { StatusRollup } from "./rollup.ts";

// The packet- and contract-reading functions load lazily: readers such as `control status` never pay for the packet
// loader and the verifier at start-up. So do the followers and the audit-log reader: `control steer` and
// `control status` start without them.

async function readLogEntries(storeRoot: string): Promise<LogEntry[]> {
  return (await import("./log.ts")).readLogEntries(storeRoot);
}

/** The packet contract, the enforced contract, the amendments and their diff for one prompt (docs/reference/control-plane.md §9.7). */
export async function contract(target: Target, promptId: string): Promise<ContractView> {
  return (await import("./contract_view.ts")).contract(target, promptId);
}

/**
 * Add entries to a clause (`amend`, docs/reference/control-plane.md §9); see `./amend.ts` for the validation order. A refusal writes no amendment and
 * is recorded in the audit log (`rejected`, with its reason) when the store root has a control directory.
 */
export async function amend(target: Target, promptId: string, opts: AmendOptions): Promise<AmendmentRecord> {
  const call = contractCall("amend", target, promptId, opts, { clause: opts.clause, entries: opts.entries });
  return await orRecordRefusal(() => storeRootOfTarget(target), call, async () => {
    return (await import("./amend.ts")).amend(target, promptId, opts);
  });
}

/** Remove or weaken a clause (`relax`, needs `confirm: true`, docs/reference/control-plane.md §9). Refusals are recorded like {@link amend}'s. */
export async function relax(target: Target, promptId: string, opts: RelaxOptions): Promise<AmendmentRecord> {
  const params = { clause: opts.clause, operation: opts.operation ?? "drop", entries: opts.entries ?? [] };
  const call = contractCall("relax", target, promptId, opts, { ...params, confirm: opts.confirm === true });
  return await orRecordRefusal(() => storeRootOfTarget(target), call, async () => {
    return (await import("./amend.ts")).relax(target, promptId, opts);
  });
}

/** The status rollup of a store root (docs/reference/workspace.md §8). */
export async function statusRollup(
  opts: { target: string; packetDir: string; storeRoot: string; kind?: "packet" | "workspace" },
): Promise<StatusRollup> {
  return (await import("./rollup.ts")).statusRollup(opts);
}

/** Rollups on every change (with `ticks`, on every poll too) until the run stops (`status --watch`). */
export async function* watchStatus(
  opts: { target: string; packetDir: string; storeRoot: string; kind?: "packet" | "workspace" },
  watch: { intervalMs?: number; signal?: AbortSignal; ticks?: boolean } = {},
): AsyncGenerator<StatusRollup> {
  yield* (await import("./rollup.ts")).watchStatus(opts, watch);
}

/** A store root named by its form (docs/reference/control-plane.md §2.1), or a plain packet directory path. */
export type StoreRoot = { kind: "packet"; packetDir: string } | { kind: "state"; stateRoot: string };

/** The address of a run: `{storeRoot, runId}` (docs/reference/control-plane.md §2.2). `storeRoot` is canonical. */
export interface RunRef {
  storeRoot: string;
  runId: string;
}

/** A snapshot as reported by the API: total (docs/reference/control-plane.md §4.3), with the lease and the derived `abandoned` status. */
export interface Snapshot extends SnapshotRead {
  lease: { state: "up" | "down" | "unknown"; pid: number | null; hostname: string | null };
}

/** What `setView` and `steer` return: the request was accepted for delivery, not yet applied. */
export interface RequestHandle {
  request: string;
  runId: string;
}

function canonical(path: string): string {
  const abs = path.startsWith("/") ? path : `${Deno.cwd()}/${path}`;
  const parts = abs.split("/").filter((s) => s !== "" && s !== ".");
  const stack: string[] = [];
  for (const s of parts) s === ".." ? stack.pop() : stack.push(s);
  // Resolve symlinks of the longest existing prefix; keep the rest as written.
  for (let i = stack.length; i >= 0; i--) {
    const head = "/" + stack.slice(0, i).join("/");
    try {
      const real = Deno.realPathSync(head);
      const tail = stack.slice(i).join("/");
      return tail ? `${real === "/" ? "" : real}/${tail}` : real;
    } catch { /* try a shorter prefix */ }
  }
  return "/" + stack.join("/");
}

/**
 * The canonical store root directory for a packet path or a {@link StoreRoot}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveStoreRoot } from "./mod.ts";
 * const root = resolveStoreRoot({ kind: "state", stateRoot: "/nonexistent/state/demo" });
 * assert.ok(root === "/nonexistent/state/demo");
 * ```
 */
export function resolveStoreRoot(root: string | StoreRoot): string {
  if (typeof root === "string") return storeRootForPacket(canonical(root));
  return root.kind === "packet" ? storeRootForPacket(canonical(root.packetDir)) : canonical(root.stateRoot);
}

function noRun(storeRoot: string): ControlError {
  return new ControlError("no_run", `no run has started in ${storeRoot}`, {
    hints: ["start one with: prompt_runner run"],
  });
}

/**
 * The newest run of a store root, running or finished (the run named by `control/snapshot.json`).
 * Throws `no_run` for a packet that never ran.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ControlError, currentRun } from "./mod.ts";
 * const dir = await Deno.makeTempDir();
 * await assert.rejects(currentRun(dir), (e) => e instanceof ControlError && e.code === "no_run");
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function currentRun(root: string | StoreRoot): Promise<RunRef> {
  const storeRoot = resolveStoreRoot(root);
  const raw = await readSnapshotFile(storeRoot);
  if (raw.kind === "invalid") {
    throw new ControlError("invalid_snapshot", `${storePaths(storeRoot).snapshot} is not valid: ${raw.message}`);
  }
  if (raw.kind === "none") throw noRun(storeRoot);
  return { storeRoot, runId: raw.value.run_id };
}

/**
 * The live snapshot of a run (docs/reference/control-plane.md §4): total reading, the lease, and `abandoned` when the snapshot says `running` but
 * no runner holds the lease. Errors: `no_run`, `stale_run` (details `current`), `invalid_snapshot`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { snapshot } from "./mod.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.mkdir(`${dir}/control`);
 * await Deno.writeTextFile(`${dir}/control/snapshot.json`, JSON.stringify({ run_id: "20261130T120501Z-7QK2MD", status: "running" }));
 * const snap = await snapshot({ storeRoot: dir, runId: "20261130T120501Z-7QK2MD" });
 * assert.ok(snap.status === "abandoned" && snap.lease.state === "down"); // no runner holds the lease
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function snapshot(ref: RunRef): Promise<Snapshot> {
  const raw = await readSnapshotFile(ref.storeRoot);
  if (raw.kind === "invalid") {
    throw new ControlError("invalid_snapshot", `${storePaths(ref.storeRoot).snapshot} is not valid: ${raw.message}`);
  }
  if (raw.kind === "none") throw noRun(ref.storeRoot);
  if (raw.value.run_id !== ref.runId) {
    throw new ControlError("stale_run", `run ${ref.runId} is not the current run (current: ${raw.value.run_id})`, {
      details: { current: raw.value.run_id },
    });
  }
  const lease = await readLease(ref.storeRoot);
  let value = raw.value;
  if (value.status === "running" && lease.state === "down") {
    // The runner writes its final snapshot before it drops the lease: a run that closed between the two reads is
    // finished, not abandoned. One re-read tells them apart.
    const again = await readSnapshotFile(ref.storeRoot);
    if (again.kind === "ok" && again.value.run_id === ref.runId) value = again.value;
  }
  const status = effectiveStatus(value.status, lease.state);
  return { ...value, status, lease: { state: lease.state, pid: lease.pid, hostname: lease.hostname } };
}

/**
 * The audit log, oldest first, refusals included: entries of this run plus run-less ones, or every run with
 * `allRuns`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { log } from "./mod.ts";
 * const dir = await Deno.makeTempDir();
 * const entries = await log({ storeRoot: dir, runId: "20261130T120501Z-7QK2MD" });
 * assert.ok(entries.length === 0);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function log(ref: RunRef, opts: { allRuns?: boolean } = {}): Promise<LogEntry[]> {
  const entries = await readLogEntries(ref.storeRoot);
  return opts.allRuns ? entries : entries.filter((e) => e.run_id === ref.runId || e.run_id === null);
}

/**
 * Follow a run's events (docs/reference/control-plane.md §11): replays from the cursor, then follows, and ends with one `run_finished` item (real,
 * or synthetic with status `abandoned` when the runner died). Breaking out of the loop or aborting `signal`
 * unsubscribes. `follow: false` delivers what exists and ends.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { subscribe } from "./mod.ts";
 * const dir = await Deno.makeTempDir();
 * const follow = async () => {
 *   for await (const _ of subscribe({ storeRoot: dir, runId: "20261130T120501Z-7QK2MD" })) break;
 * };
 * await assert.rejects(follow(), (e) => (e as { code?: string }).code === "no_run");
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function subscribe(ref: RunRef, opts: SubscribeOptions = {}): AsyncIterable<StreamItem> {
  return lazyFollower((f) => f.followRun(ref.storeRoot, ref.runId, opts));
}

/** The options of {@link subscribe} and {@link subscribeBatches} (docs/reference/control-plane.md §11). */
export interface SubscribeOptions {
  from?: Cursor;
  signal?: AbortSignal;
  pollMs?: number;
  follow?: boolean;
  rawLines?: boolean;
  coalesceMs?: number;
  onIdle?: () => void;
  wait?: (signal?: AbortSignal) => Promise<void>;
}

/**
 * {@link subscribe}'s items in batches, one per read of the stream (the same items in the same order): one await per
 * batch instead of one per item, for a consumer that handles every item at once (`control serve`'s shared follower).
 */
export function subscribeBatches(ref: RunRef, opts: SubscribeOptions = {}): AsyncIterable<StreamItem[]> {
  return lazyFollower((f) => f.followRunBatches(ref.storeRoot, ref.runId, opts));
}

// The follower itself once loaded, not a generator around it: one async layer per item fewer.
function lazyFollower<T>(start: (f: typeof import("./follow.ts")) => AsyncGenerator<T>): AsyncIterable<T> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<T> {
      let it: AsyncGenerator<T> | null = null;
      const open = async () => (it ??= start(await import("./follow.ts")));
      return {
        // Once open, the follower's own next(): no async layer of ours per item.
        next: () => it !== null ? it.next() : open().then((g) => g.next()),
        return: async (v?: unknown) => it === null ? { done: true, value: v } : await it.return(v),
        throw: async (e?: unknown) => (await open()).throw(e),
      };
    },
  };
}

/**
 * Follow the audit log (`control log --follow`): yields the entries already written (of this run plus run-less
 * ones, or all with `allRuns`), then new ones, and ends when the run is no longer running — finished, abandoned
 * (lease down) or replaced by a newer run — after draining what was written.
 *
 * @example
 * ```ts ignore
 * import { currentRun, followLog } from "./mod.ts";
 * for await (const entry of followLog(await currentRun("examples/demo"))) console.log(entry.outcome);
 * ```
 */
export async function* followLog(
  ref: RunRef,
  opts: { allRuns?: boolean; signal?: AbortSignal; pollMs?: number } = {},
): AsyncGenerator<LogEntry> {
  const [{ followLines }, { normalizeEntry }] = await Promise.all([import("./follow.ts"), import("./log.ts")]);
  const p = storePaths(ref.storeRoot);
  const until = async (): Promise<boolean> => {
    const raw = await readSnapshotFile(ref.storeRoot);
    if (raw.kind !== "ok" || raw.value.run_id !== ref.runId || raw.value.status !== "running") return true;
    return effectiveStatus(raw.value.status, (await readLease(ref.storeRoot)).state) !== "running";
  };
  const lines = followLines(p.log, p.control, {
    fromStart: true,
    until,
    ...(opts.pollMs !== undefined ? { pollMs: opts.pollMs } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  for await (const line of lines) {
    if (line.type === "gap") {
      // Never a silent loss: the follower says entries may be missing.
      yield normalizeEntry({
        at: nowIso(),
        key: `gap:${nowIso()}`,
        command: "log_gap",
        outcome: "received",
        author: "prompt_runner",
        reason: "log.jsonl was truncated while followed; entries written just before may be missing",
      });
      continue;
    }
    if (typeof line.key !== "string" || typeof line.command !== "string" || typeof line.outcome !== "string") continue;
    const entry = normalizeEntry(line);
    if (opts.allRuns || entry.run_id === ref.runId || entry.run_id === null) yield entry;
  }
}

/**
 * Record a refusal made in front of the Control API — a dashboard's role check or write rate limit — in the audit log
 * exactly like a refusal of the API itself (`rejected`, the error's message as reason, `request: null`), so a refused
 * request is on the record whoever refused it. Nothing is written for a store root without a control directory.
 */
export async function recordRefusal(storeRoot: string, call: RefusedCall, error: PromptRunnerError): Promise<void> {
  await orRecordRefusal(storeRoot, call, () => Promise.reject(error)).catch(() => {});
}

/** Give stale requests their outcome (stale.ts); a failure here never fails the caller's own command. */
async function sweepAfterRun(storeRoot: string): Promise<void> {
  try {
    await (await import("./stale.ts")).sweepStaleRequests(storeRoot);
  } catch { /* retried by the next writer */ }
}

async function requireRunning(ref: RunRef): Promise<void> {
  const snap = await snapshot(ref);
  if (snap.status !== "running") {
    await sweepAfterRun(ref.storeRoot);
    throw new ControlError("run_not_running", `run ${ref.runId} is ${snap.status}; nothing will answer a request`, {
      details: { status: snap.status },
    });
  }
}

async function dropRequest(
  ref: RunRef,
  command: "set_view" | "steer",
  params: Record<string, unknown>,
  author: string | undefined,
): Promise<RequestHandle> {
  try {
    const request = await writeRequest(ref.storeRoot, {
      schema: REQUEST_SCHEMA,
      command,
      params,
      run_id: ref.runId,
      author: author?.trim() || defaultAuthor(),
      issued_at: nowIso(),
    });
    await dropSeam.afterDrop?.(request);
    // The run may end between the running check and the request landing: take it back and refuse (never "queued").
    await refuseIfEnded(ref, request, () => snapshot(ref).then((x) => x.status));
    return { request, runId: ref.runId };
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) throw noRun(ref.storeRoot);
    throw e;
  }
}

/**
 * Ask the live run to change its view (docs/reference/control-plane.md §7). Validated here first — no request is written on error
 * (`unknown_view_key`, `invalid_view_value`, `empty_view`); refuses a run that is not running
 * (`run_not_running`), also when it ends before taking the request. Every refusal is recorded in the audit log
 * (`rejected`, with its reason) when the store root has a control directory. Returns once the request file exists;
 * the runner applies it at its next boundary.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { setView } from "./mod.ts";
 * await assert.rejects(
 *   setView({ storeRoot: "/nonexistent", runId: "x" }, { tool_output: "everything" }),
 *   (e) => (e as { code?: string }).code === "invalid_view_value", // no control directory: nothing was written
 * );
 * ```
 */
export async function setView(
  ref: RunRef,
  view: Partial<Record<keyof View, string>>,
  opts: { author?: string } = {},
): Promise<RequestHandle> {
  const call: RefusedCall = { command: "set_view", params: { ...view }, runId: ref.runId, author: opts.author };
  return await orRecordRefusal(ref.storeRoot, call, async () => {
    const v = validateView(view);
    if (!v.ok) {
      const details: Record<string, unknown> = v.code === "empty_view" ? {} : { key: v.key };
      if (v.code === "invalid_view_value") details.value = v.value;
      throw new ControlError(v.code, v.reason, { details });
    }
    await requireRunning(ref);
    return await dropRequest(ref, "set_view", { ...v.changed }, opts.author);
  });
}

/**
 * Send guidance to the live agent (docs/reference/control-plane.md §8): by default into the running turn where the
 * session's transport takes input (else by interrupting and resuming); `interrupt: true` stops the running turn first
 * (in the process where the transport can, else by interrupting it). The text is trimmed; `empty_steer` and `steer_too_long` (over 8192 UTF-8
 * bytes) are refused with no request written, as is a run that is not running (`run_not_running`). Refusals are
 * recorded like {@link setView}'s.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { steer } from "./mod.ts";
 * await assert.rejects(
 *   steer({ storeRoot: "/nonexistent", runId: "x" }, "   "),
 *   (e) => (e as { code?: string }).code === "empty_steer",
 * );
 * ```
 */
export async function steer(
  ref: RunRef,
  text: string,
  opts: { author?: string; interrupt?: boolean } = {},
): Promise<RequestHandle> {
  const trimmed = text.trim();
  const kind = opts.interrupt === true ? { interrupt: true } : {};
  const params = { ...steerParams(trimmed), ...kind };
  const call: RefusedCall = { command: "steer", params, runId: ref.runId, author: opts.author };
  return await orRecordRefusal(ref.storeRoot, call, async () => {
    const checked = checkSteerText(trimmed);
    if (!checked.ok) throw new ControlError(checked.code, checked.message);
    await requireRunning(ref);
    return await dropRequest(ref, "steer", { text: trimmed, ...kind }, opts.author);
  });
}

/**
 * The outcome of a request: its receipt and the final log entry for it, or null while it is pending (a steer is
 * final once `applied` or `rejected` is logged).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { outcome } from "./mod.ts";
 * const dir = await Deno.makeTempDir();
 * assert.ok(await outcome({ storeRoot: dir, runId: "r" }, "nothing.json") === null);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function outcome(
  ref: RunRef,
  request: string,
): Promise<{ receipt: Receipt; entry: LogEntry } | null> {
  const text = await readTextOrNull(`${storePaths(ref.storeRoot).outcomes}/${request}`);
  if (text === null) return null;
  let receipt: Receipt;
  try {
    receipt = JSON.parse(text) as Receipt;
  } catch {
    return null;
  }
  const entries = (await readLogEntries(ref.storeRoot)).filter((e) => e.request === request);
  const final = entries.filter((e) => e.outcome === "applied" || e.outcome === "rejected").pop();
  if (!final) return null;
  return { receipt, entry: final };
}

export { eventStream, readEventFiles } from "./event_files.ts";

/** The default view, for callers that render one. */
export const defaultView: Readonly<View> = DEFAULT_VIEW;
export { describeLeftovers } from "./leftovers.ts";
export { rawLineOf } from "./tail.ts";
export { effectiveStatus, readSnapshotFile, readSnapshotOrNull, type ReadStatus } from "./snapshot.ts";
export type { SteerLedger } from "./steer_ledger.ts";
export type { AgentControlSnap, AgentProgressSnap } from "./plane_types.ts";
