/**
 * The runner's side of agent control (docs/agent-control.md §2–§3): one invocation per attempt of a controlled
 * iteration — a private directory, an opaque token, the environment and the `prompt_runner` shim on the session's
 * PATH — and the judging of the records the agent's command created there. Every record is authenticated against
 * token, run, prompt and iteration and audited with author `agent:<prompt>#<iteration>`, accepted or refused with
 * its reason. Records are only read here; the agent never writes the audit log.
 */
import type { AgentScope } from "../store/mod.ts";
import {
  AGENT_SDK_FILES,
  type AgentRecord,
  closedMarker,
  envOfScope,
  parseAgentRecord,
  type TerminalAction,
} from "../store/agent_records.ts";
import { storePaths } from "../store/paths.ts";
import { createStoreFileOnceSync, ensureStoreDir } from "../util/safe_fs.ts";
import type { AgentControlSnap } from "../control/mod.ts";
import type { RunContext } from "./context.ts";
import { judgeRecord } from "./agent_decide.ts";
import { agentShim } from "./agent_shim.ts";

/** A terminal directive the runner holds until the iteration's contract has passed. */
export interface HeldDirective {
  action: TerminalAction;
  reason: string | null;
  file: string;
}

/** One controlled attempt's invocation. */
export class AgentInvocation {
  readonly #seen = new Set<string>();
  /** The sdk progress file's last judged text and how many versions were judged (it is replaced, not added). */
  #progressText: string | null = null;
  #progressVersion = 0;
  #held: HeldDirective | null = null;
  #timer: ReturnType<typeof setInterval> | null = null;

  private constructor(
    private readonly ctx: RunContext,
    readonly scope: AgentScope,
    readonly attempt: number,
    /** Variables added to the provider session's environment. */
    readonly env: Record<string, string>,
  ) {}

  /** The audit author of this iteration's records. */
  get author(): string {
    return `agent:${this.scope.promptId}#${this.scope.iteration}`;
  }

  /** The terminal directive accepted so far (first wins), or null. */
  get held(): HeldDirective | null {
    return this.#held;
  }

  /** Create the private directory, the token and the shim; null without a store (`--runtime-store memory|noop`). */
  static async open(ctx: RunContext, promptId: string, iteration: number, attempt: number): Promise<AgentInvocation> {
    const base = `${storePaths(ctx.storeRoot).runDir(ctx.runId)}/agent-control`;
    const dir = `${base}/${promptId}-i${iteration}-a${attempt}`;
    await ensureStoreDir(ctx.storeRoot, dir);
    const bytes = crypto.getRandomValues(new Uint8Array(24));
    const token = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
    const scope: AgentScope = { dir, token, runId: ctx.runId, promptId, iteration };
    const bin = await agentShim(ctx.storeRoot, `${base}/bin`);
    const path = Deno.env.get("PATH") ?? "/usr/bin:/bin";
    const env = { ...envOfScope(scope), PATH: `${bin}:${path}` };
    return new AgentInvocation(ctx, scope, attempt, env);
  }

  /** Judge new progress records every `ms` while the session runs (live cursor in the snapshot and status). */
  watch(ms = 250): void {
    this.#timer ??= setInterval(() => this.scan(false), ms);
  }

  /** Stop watching, judge whatever arrived last, and close the invocation (a late command is refused unwritten). */
  settle(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    this.scan(true);
    try {
      createStoreFileOnceSync(closedMarker(this.scope.dir), `${new Date().toISOString()}\n`);
    } catch { /* the store is gone or read-only: nothing more is read from this directory either way */ }
  }

  /**
   * Judge every record not judged yet, oldest first (by modification time, then name): progress is accepted into the
   * snapshot; the first valid terminal directive is held (logged `received`) until the iteration's verdict; every
   * other record is refused. The sdk's progress file is judged again whenever its content changes; the temporary
   * files of its atomic replacement are not records. While the session runs (`final` false) a file that does not
   * parse yet is left for a later scan — a writer may have created it and not written it yet; the final scan, once
   * the session ended, judges everything.
   */
  scan(final = true): void {
    const progressName = AGENT_SDK_FILES.progress.name;
    let found: Found[];
    try {
      found = [];
      for (const e of Deno.readDirSync(this.scope.dir)) {
        if (this.#seen.has(e.name) || e.name.startsWith(`${progressName}.tmp`)) continue;
        let mtime = 0;
        let file = false;
        let size = 0;
        try {
          const info = Deno.lstatSync(`${this.scope.dir}/${e.name}`);
          mtime = info.mtime?.getTime() ?? 0;
          file = info.isFile;
          size = info.size;
        } catch { /* gone again: refused below as unreadable */ }
        found.push({ name: e.name, mtime, file, size });
      }
    } catch {
      return;
    }
    found.sort((a, b) => a.mtime - b.mtime || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const f of found) {
      // Only regular files are read: a link, directory, FIFO or anything else is refused, never followed or opened.
      // While the session runs such an entry is left for a later scan: a sandbox puts transient mount points in its
      // writable roots (codex's .git, .codex, .agents …) and removes them when its command ends.
      if (!f.file && !final) continue;
      const read = f.file ? readRecordText(`${this.scope.dir}/${f.name}`, f.size) : NOT_A_FILE;
      const record = typeof read === "string" ? fileRecord(f.name, parseAgentRecord(read)) : null;
      const why = typeof read === "string" ? null : read.why;
      if (record === null && why === null && !final) continue;
      if (f.name === progressName) {
        // The progress file is replaced, not added: judge each new version once.
        const version = typeof read === "string" ? read : `${why}@${f.size}:${f.mtime}`;
        if (version === this.#progressText) continue;
        this.#progressText = version;
        this.#judge(`${f.name}#${++this.#progressVersion}`, record, why);
        continue;
      }
      this.#seen.add(f.name);
      this.#judge(f.name, record, why);
    }
  }

  #judge(name: string, record: AgentRecord | null, why: string | null = null): void {
    const verdict = why !== null
      ? { ok: false as const, reason: why }
      : judgeRecord(record, this.scope, this.#held?.action ?? null);
    const params = record
      ? { file: name, reason: record.reason, cursor: record.cursor, unit: record.unit, summary: record.summary }
      : { file: name };
    const base = {
      kind: record?.kind ?? "unreadable" as const,
      author: this.author,
      prompt_id: this.scope.promptId,
      attempt: this.attempt,
      iteration: this.scope.iteration,
      params,
    };
    const key = `agent:${this.ctx.runId}:${this.scope.promptId}:${this.scope.iteration}:${this.attempt}:${name}`;
    if (!verdict.ok) {
      this.ctx.plane.agentControl({ ...base, key, outcome: "rejected", reason: verdict.reason });
      return;
    }
    const r = record!;
    if (r.kind === "progress") {
      this.ctx.plane.agentControl({ ...base, key, outcome: "accepted", reason: null });
      this.#progress(r);
      return;
    }
    this.#held = { action: r.kind, reason: r.reason, file: name };
    this.ctx.plane.agentControl({ ...base, key, outcome: "received", reason: "held until the iteration is verified" });
  }

  #progress(r: AgentRecord): void {
    const snap = this.ctx.agentSnap;
    if (!snap) return;
    const progress = {
      run_id: r.run_id,
      prompt_id: r.prompt_id,
      iteration: r.iteration,
      cursor: r.cursor!,
      unit: r.unit,
      summary: r.summary!,
      updated_at: r.at,
      stale: false,
    };
    this.ctx.setAgentSnap({ ...snap, progress });
  }

  /** The held directive's final verdict: applied, or rejected with the reason (it then changes nothing). */
  conclude(outcome: "applied" | "rejected", reason: string | null): void {
    const h = this.#held;
    if (!h) return;
    const key =
      `agent:${this.ctx.runId}:${this.scope.promptId}:${this.scope.iteration}:${this.attempt}:${h.file}:final`;
    this.ctx.plane.agentControl({
      key,
      kind: h.action,
      outcome,
      reason,
      author: this.author,
      prompt_id: this.scope.promptId,
      attempt: this.attempt,
      iteration: this.scope.iteration,
      params: { file: h.file, reason: h.reason },
    });
    const snap = this.ctx.agentSnap;
    if (snap) this.ctx.setAgentSnap({ ...snap, last_directive: { action: h.action, outcome, reason } });
  }

  /** No directive was given: the default action applies (audited as such). */
  applyDefault(action: "continue" | "repeat"): void {
    const key = `agent:${this.ctx.runId}:${this.scope.promptId}:${this.scope.iteration}:${this.attempt}:default`;
    const reason = "no directive: the packet's default_action applies";
    this.ctx.plane.agentControl({
      key,
      kind: action,
      outcome: "applied",
      reason,
      author: "runner",
      prompt_id: this.scope.promptId,
      attempt: this.attempt,
      iteration: this.scope.iteration,
      params: {},
      default: true,
    });
    const snap = this.ctx.agentSnap;
    if (snap) this.ctx.setAgentSnap({ ...snap, last_directive: { action, outcome: "applied", reason } });
  }
}

/** An entry of the private directory as the scan found it. */
interface Found {
  name: string;
  mtime: number;
  file: boolean;
  size: number;
}

/** The largest record the runner reads (a record is a few hundred bytes; anything far larger is refused unread). */
export const MAX_RECORD_BYTES = 64 * 1024;

const NOT_A_FILE = { why: "not a regular file (links, directories and other entries are never followed)" };

/**
 * A record file's text, read through at most {@link MAX_RECORD_BYTES} + 1 bytes (never the whole of a huge file, even
 * one that grows while it is read), or why it is refused unread; an unreadable file reads as empty text.
 */
function readRecordText(path: string, size: number): string | { why: string } {
  const tooBig = (n: number) => ({ why: `record too large (${n} bytes; at most ${MAX_RECORD_BYTES})` });
  if (size > MAX_RECORD_BYTES) return tooBig(size);
  try {
    using f = Deno.openSync(path, { read: true });
    const buf = new Uint8Array(MAX_RECORD_BYTES + 1);
    let n = 0;
    while (n < buf.length) {
      const got = f.readSync(buf.subarray(n));
      if (got === null || got === 0) break;
      n += got;
    }
    if (n > MAX_RECORD_BYTES) return tooBig(n);
    return new TextDecoder().decode(buf.subarray(0, n));
  } catch {
    return "";
  }
}

/** A record read from the sdk's request file must be a terminal request, from its progress file progress; else null. */
function fileRecord(name: string, record: AgentRecord | null): AgentRecord | null {
  if (record === null) return null;
  if (name === AGENT_SDK_FILES.request.name && record.kind === "progress") return null;
  if (name === AGENT_SDK_FILES.progress.name && record.kind !== "progress") return null;
  return record;
}

/** Mark retained progress stale (a new attempt or iteration has not refreshed it yet). */
export function staleProgress(snap: AgentControlSnap): AgentControlSnap {
  return snap.progress ? { ...snap, progress: { ...snap.progress, stale: true } } : snap;
}
