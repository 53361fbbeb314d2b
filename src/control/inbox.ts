/**
 * The request inbox (control-plane.md §6.3–§6.4): scans `control/requests/` in byte order of names, rejects what it
 * cannot use (non-files, oversized, undecodable, command-less, other runs, unknown commands), hands `set_view` and
 * `steer` to the plane for a decision, and commits each outcome in the idempotent order — log entry unless keyed,
 * receipt if absent, apply, remove — so a failure part-way is retried without duplicates.
 */
import { nowIso } from "../util/time.ts";
import type { AuditWriter } from "./audit.ts";
import { inspectRequest } from "./inspect.ts";
import type { LogEntry, LogOutcome } from "./log.ts";
import type { StorePaths } from "./store.ts";

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
}

/** Consumes request files for one plane. */
export class RequestInbox {
  readonly #d: InboxDeps;
  /** Outcome reasons already in the log, by key (a retried request keeps a refusal already logged). */
  readonly #logged = new Map<string, string | null>();

  constructor(deps: InboxDeps) {
    this.#d = deps;
  }

  /** Index the keys of existing log entries. */
  index(entries: Record<string, unknown>[]): void {
    for (const e of entries) {
      if (typeof e.key === "string") this.#logged.set(e.key, typeof e.reason === "string" ? e.reason : null);
    }
  }

  /** Process every pending request in byte order of names; stops at the first I/O failure (retried later). */
  scan(): void {
    let names: string[];
    try {
      names = [];
      for (const e of Deno.readDirSync(this.#d.paths.requests)) if (!e.name.startsWith(".")) names.push(e.name);
    } catch {
      return;
    }
    names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const name of names) {
      try {
        this.#process(name);
      } catch {
        // Log or receipt not written: the request stays pending and is retried at the next poll tick.
        return;
      }
    }
  }

  #process(name: string): void {
    const path = `${this.#d.paths.requests}/${name}`;
    const ins = inspectRequest(path);
    if (ins.kind === "gone") return;
    const removeFile = () => {
      try {
        Deno.removeSync(path);
      } catch (e) {
        if (!(e instanceof Deno.errors.NotFound)) throw e;
      }
    };
    if (ins.kind === "not_file" || ins.kind === "oversized") {
      const fileType = ins.kind === "oversized" ? "file" : ins.fileType;
      const reason = ins.kind === "oversized"
        ? "request larger than 65536 bytes"
        : `not a regular file (${ins.fileType})`;
      const remove = ins.kind === "not_file" && ins.isDirectory
        ? () => Deno.renameSync(path, `${this.#d.paths.rejected}/${name}-${Date.now()}`)
        : removeFile;
      this.#commit(name, {
        command: "rejected_file",
        params: { file: name, file_type: fileType, size: ins.size },
        author: "unknown",
        outcome: "rejected",
        reason,
      }, remove);
      return;
    }
    if (this.#d.audit.hasReceipt(name)) {
      removeFile();
      return;
    }
    let d: Decision;
    if (ins.kind === "unparseable") {
      d = {
        command: "unparseable",
        params: {},
        author: "unknown",
        outcome: "rejected",
        reason: `invalid JSON: ${ins.message}`,
      };
    } else if (ins.kind === "no_command") {
      d = {
        command: "unknown",
        params: ins.params,
        author: ins.author,
        outcome: "rejected",
        reason: "request has no command",
      };
    } else if (ins.runId !== null && ins.runId !== this.#d.runId) {
      d = {
        command: ins.command,
        params: ins.params,
        author: ins.author,
        outcome: "rejected",
        reason: `request targets run ${ins.runId}`,
      };
    } else if (this.#d.closing()) {
      d = {
        command: ins.command,
        params: ins.params,
        author: ins.author,
        outcome: "rejected",
        reason: "run has finished",
      };
    } else if (ins.command === "set_view") {
      d = this.#d.dispatch(name, "set_view", ins.params, ins.author);
    } else if (ins.command === "steer") {
      d = this.#d.dispatch(name, "steer", ins.params, ins.author);
    } else {
      d = {
        command: ins.command,
        params: ins.params,
        author: ins.author,
        outcome: "rejected",
        reason: "unknown command",
      };
    }
    this.#commit(name, d, removeFile);
  }

  /** §6.4: (1) log unless keyed, (2) receipt if absent, (3) apply, (4) remove. A throw at 1–2 leaves it pending. */
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
    this.#d.audit.append(this.#d.entry({
      key,
      request: name,
      command: d.command,
      params: d.params,
      author: d.author,
      outcome: d.outcome,
      reason: d.reason,
    }));
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
}
