/**
 * The request inbox (docs/reference/control-plane.md §6.3–§6.4, docs/control-protocol.md): lists `control/requests/`, claims each
 * entry by rename into the runner's private claim directory before touching it (so nothing can block the runner and
 * nothing gets two outcomes), rejects what it cannot use (refused names, non-files, oversized, undecodable,
 * ill-typed, too deep, other runs, unknown commands), hands `set_view` and `steer` to the plane for a decision, and
 * commits each outcome in the idempotent order — log entry unless keyed, receipt if absent, apply, remove — so a
 * failure part-way is retried from the claim directory without duplicates. A failure on one entry never stops the
 * scan; only later entries of the same writer wait, which keeps each writer's requests in the order it wrote them.
 */
import { nowIso } from "../util/time.ts";
import type { AuditWriter } from "./audit.ts";
import { byteOrder, Claimer, requestNameProblem } from "./claim.ts";
import { inspectBody } from "./request_body.ts";
import type { LogEntry, LogOutcome } from "./log.ts";
import type { StorePaths } from "../store/mod.ts";
import { errorMessage } from "../util/common.ts";
import { stageTraceOn, traceStage } from "../util/stage_trace.ts";

/** A decision for one request: its log entry, its receipt outcome, and what applying it does. */
export interface Decision {
  command: string;
  params: Record<string, unknown>;
  author: string;
  outcome: LogOutcome & ("applied" | "accepted" | "rejected");
  reason: string | null;
  apply?: () => void;
}

/** What the inbox needs from its plane. */
export interface InboxDeps {
  paths: StorePaths;
  runId: string;
  audit: AuditWriter;
  /** Build a log entry with run context. */
  entry(e: Pick<LogEntry, "key" | "request" | "command" | "params" | "author" | "outcome" | "reason">): LogEntry;
  /** The run is closing: every valid request is refused with `run has finished`. */
  closing(): boolean;
  /** Decide a `set_view` or `steer` request. */
  dispatch(name: string, command: "set_view" | "steer", params: Record<string, unknown>, author: string): Decision;
  /** Claim directory owner (default `runner-<pid>`). */
  owner?: string;
  /**
   * Report a scan failure (the plane shows it as a runner warning). Called once per distinct failure: an entry that
   * keeps failing is retried every scan but reported once.
   */
  warn?(text: string): void;
}

/** Listing rounds per scan (each round lists once more; see {@link readyNames}). */
const MAX_ROUNDS = 4;
const WRITER = /^\d{8}T\d{6}\.\d{6}Z-(\d+)-\d{6,}-[0-9a-f]{4}\.json$/;

/** The writer (pid) of a request-shaped name, else null. */
function writerOf(name: string): string | null {
  return WRITER.exec(name)?.[1] ?? null;
}

/**
 * The names of listing `cur` that are safe to process now, given the previous listing `prev`: `readdir` is not a
 * snapshot, so an entry renamed in during the listing can be missed while a later one of the same writer is seen.
 * An entry seen in both listings existed before `cur` began, and so did every earlier entry of its writer (writers
 * rename one request before naming the next) — those are all in `cur`. So: entries in both listings, plus every
 * earlier entry (same writer, smaller name) of those. The rest waits for the next round.
 */
export function readyNames(cur: string[], prev: ReadonlySet<string>): Set<string> {
  const ready = new Set(cur.filter((n) => prev.has(n)));
  const maxByWriter = new Map<string, string>();
  for (const n of ready) {
    const w = writerOf(n);
    if (w !== null && n > (maxByWriter.get(w) ?? "")) maxByWriter.set(w, n);
  }
  for (const n of cur) {
    const w = writerOf(n);
    if (w !== null && n < (maxByWriter.get(w) ?? "")) ready.add(n);
  }
  return ready;
}

/** Consumes request files for one plane. */
export class RequestInbox {
  readonly #d: InboxDeps;
  /** Outcome reasons already in the log, by key (a retried request keeps a refusal already logged). */
  readonly #logged = new Map<string, string | null>();
  #claimer: Claimer | null = null;
  /** The last error a scan met on some entry (diagnostics and tests). */
  lastError: string | null = null;
  /** Subjects already reported through `warn` (a failing entry is retried every scan, reported once). */
  readonly #warned = new Set<string>();

  constructor(deps: InboxDeps) {
    this.#d = deps;
  }

  /** Index the keys of existing log entries. */
  index(entries: Record<string, unknown>[]): void {
    for (const e of entries) {
      if (typeof e.key === "string") this.#logged.set(e.key, typeof e.reason === "string" ? e.reason : null);
    }
  }

  #claims(): Claimer {
    this.#claimer ??= new Claimer(this.#d.paths, this.#d.owner ?? `runner-${Deno.pid}`);
    return this.#claimer;
  }

  /** Take over entries claimed by a dead runner or a crashed sweep (they are processed first by the next scan). */
  adopt(): string[] {
    return this.#claims().adoptOrphans(Date.now());
  }

  /** The names in `requests/`, or null when it cannot be listed (absent: quiet; any other failure is reported). */
  #list(): string[] | null {
    try {
      const names: string[] = [];
      for (const e of Deno.readDirSync(this.#d.paths.requests)) names.push(e.name);
      return names.sort(byteOrder);
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) {
        this.lastError = `${this.#d.paths.requests}: ${errorMessage(e)}`;
        this.#report(
          this.#d.paths.requests,
          `control requests not read (${this.#d.paths.requests}): ${errorMessage(e)}`,
        );
      }
      return null;
    }
  }

  /** Warn about a failure on `subject` (an entry name or the requests directory), once per subject. */
  #report(subject: string, text: string): void {
    if (this.#warned.has(subject)) return;
    this.#warned.add(subject);
    this.#d.warn?.(text);
  }

  /**
   * Give every pending entry its one outcome: first what is left in the claim directory (in name order), then the
   * listing of `requests/`. A failing entry stays claimed (retried next scan) and holds back only its own writer.
   */
  scan(): void {
    const claims = this.#claims();
    const blocked = new Set<string>();
    for (const name of claims.pending()) {
      this.#guard(name, blocked, () => this.#processClaimed(name, `${claims.dir}/${name}`));
    }
    let prev = this.#list();
    if (prev === null || prev.length === 0) return;
    let prevSet = new Set(prev);
    if (stageTraceOn()) { for (const name of prev) traceStage("listed", name); }
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const cur = this.#list();
      if (cur === null || cur.length === 0) return;
      if (stageTraceOn()) { for (const name of cur) traceStage("listed", name); }
      const ready = readyNames(cur, prevSet);
      for (const name of cur) {
        if (!ready.has(name)) continue;
        const w = writerOf(name);
        if (w !== null && blocked.has(w)) continue;
        this.#guard(name, blocked, () => this.#claimAndProcess(name));
      }
      if (cur.every((n) => ready.has(n))) return;
      prev = cur;
      prevSet = new Set(prev);
    }
  }

  #guard(name: string, blocked: Set<string>, fn: () => void): void {
    try {
      fn();
    } catch (e) {
      // Not recorded: the entry stays in the claim directory (or in requests/) and is retried at the next scan.
      this.lastError = `${name}: ${errorMessage(e)}`;
      this.#report(name, `control request ${name} not processed (retried at the next scan): ${errorMessage(e)}`);
      const w = writerOf(name);
      if (w !== null) blocked.add(w);
    }
  }

  #claimAndProcess(name: string): void {
    const claims = this.#claims();
    const problem = requestNameProblem(name);
    if (problem !== null) {
      const as = Claimer.safeName();
      const path = claims.claim(name, as);
      if (path === null) return;
      this.#refuseName(as, name, problem, path);
      return;
    }
    const path = claims.claim(name);
    if (path === null) return; // another consumer took it
    traceStage("claimed", name);
    // A new entry under a name already decided (a receipt, or a log entry of any run) is a duplicate or a replay: it
    // is refused on the record under its own key, and the earlier decision and receipt stand. (Retries of an entry
    // this consumer left claimed come through the claim directory, never through here.)
    if (this.#decided(name)) {
      this.#refuseReplay(name, path);
      return;
    }
    this.#processClaimed(name, path);
  }

  /** Whether a request name already has an outcome: a receipt or a log entry. */
  #decided(name: string): boolean {
    if (this.#d.audit.hasReceipt(name)) return true;
    return ["applied", "accepted", "rejected"].some((o) => this.#logged.has(`${name}:${o}`));
  }

  #refuseReplay(name: string, path: string): void {
    const claims = this.#claims();
    const content = claims.read(path);
    let command = "unknown";
    let params: Record<string, unknown> = {};
    let author = "unknown";
    if (content.kind === "bytes") {
      const ins = inspectBody(content.bytes);
      if (ins.kind === "request" || ins.kind === "invalid" || ins.kind === "no_command") {
        command = ins.kind === "no_command" ? "unknown" : ins.command;
        params = ins.params;
        author = ins.author;
      }
    }
    const rand = crypto.getRandomValues(new Uint32Array(1))[0]!.toString(16).padStart(8, "0");
    this.#d.audit.append(this.#d.entry({
      key: `${name}:replayed:${Date.now()}-${rand}`,
      request: name,
      command,
      params,
      author,
      outcome: "rejected",
      reason: "request name already decided (a duplicate or replayed request); the earlier outcome stands",
    }));
    claims.discard(path, content.kind === "not_file" ? name : undefined);
  }

  /** An entry whose name is refused: logged under its original name (no receipt: no reader waits on it), removed. */
  #refuseName(claimedAs: string, original: string | null, problem: string, path: string): void {
    const claims = this.#claims();
    let st: Deno.FileInfo | null = null;
    try {
      st = Deno.lstatSync(path);
    } catch { /* gone */ }
    this.#d.audit.append(this.#d.entry({
      key: `${claimedAs}:rejected`,
      request: original,
      command: "rejected_file",
      params: { file: original, file_type: st ? kindOf(st) : "unknown", size: st?.size ?? 0 },
      author: "unknown",
      outcome: "rejected",
      reason: original === null ? `${problem} (original name lost in a crash)` : problem,
    }));
    claims.discard(path);
  }

  #processClaimed(name: string, path: string): void {
    const claims = this.#claims();
    if (name.startsWith("bad-")) {
      this.#refuseName(name, null, "refused file name", path);
      return;
    }
    const content = claims.read(path);
    traceStage("read", name);
    if (content.kind === "gone") return;
    if (content.kind === "not_file" || content.kind === "oversized") {
      const fileType = content.kind === "oversized" ? "file" : content.fileType;
      const reason = content.kind === "oversized"
        ? "request larger than 65536 bytes"
        : `not a regular file (${content.fileType})`;
      this.#commit(name, {
        command: "rejected_file",
        params: { file: name, file_type: fileType, size: content.size },
        author: "unknown",
        outcome: "rejected",
        reason,
      }, () => claims.discard(path, name));
      return;
    }
    const remove = () => claims.discard(path);
    if (this.#d.audit.hasReceipt(name)) {
      remove();
      return;
    }
    this.#commit(name, this.#decide(name, content.bytes), remove);
  }

  #decide(name: string, bytes: Uint8Array): Decision {
    const ins = inspectBody(bytes);
    const reject = (command: string, params: Record<string, unknown>, author: string, reason: string): Decision => ({
      command,
      params,
      author,
      outcome: "rejected",
      reason,
    });
    if (ins.kind === "unparseable") return reject("unparseable", {}, "unknown", `invalid JSON: ${ins.message}`);
    if (ins.kind === "invalid") return reject(ins.command, ins.params, ins.author, ins.reason);
    if (ins.kind === "no_command") return reject("unknown", ins.params, ins.author, "request has no command");
    if (ins.runId !== null && ins.runId !== this.#d.runId) {
      return reject(ins.command, ins.params, ins.author, `request targets run ${ins.runId}`);
    }
    if (this.#d.closing()) return reject(ins.command, ins.params, ins.author, "run has finished");
    if (ins.command === "set_view") return this.#d.dispatch(name, "set_view", ins.params, ins.author);
    if (ins.command === "steer") return this.#d.dispatch(name, "steer", ins.params, ins.author);
    return reject(ins.command, ins.params, ins.author, "unknown command");
  }

  /** docs/reference/control-plane.md §6.4: (1) log unless keyed, (2) receipt if absent, (3) apply, (4) remove. A throw at 1–2 leaves it claimed. */
  #commit(name: string, d: Decision, remove: () => void): void {
    // A request retried after a failed receipt write keeps a refusal already logged for it.
    const refusedKey = `${name}:rejected`;
    if (d.outcome !== "rejected" && this.#logged.has(refusedKey)) {
      d = {
        command: d.command,
        params: d.params,
        author: d.author,
        outcome: "rejected",
        reason: this.#logged.get(refusedKey) ?? null,
      };
    }
    const key = `${name}:${d.outcome}`;
    traceStage("decided", name);
    this.#d.audit.append(this.#d.entry({
      key,
      request: name,
      command: d.command,
      params: d.params,
      author: d.author,
      outcome: d.outcome,
      reason: d.reason,
    }));
    traceStage("appended", name);
    this.#logged.set(key, d.reason);
    this.#d.audit.writeReceipt({
      request: name,
      run_id: this.#d.runId,
      command: d.command,
      outcome: d.outcome,
      reason: d.reason,
      recorded_at: nowIso(),
    });
    d.apply?.();
    remove();
  }

  /** Remove the claim directory if empty (the plane closed). */
  release(): void {
    this.#claimer?.release();
  }
}

function kindOf(st: Deno.FileInfo): string {
  if (st.isSymlink) return "symlink";
  if (st.isDirectory) return "directory";
  if (st.isFifo) return "fifo";
  if (st.isSocket) return "socket";
  return st.isFile ? "file" : "other";
}
