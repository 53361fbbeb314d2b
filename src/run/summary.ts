/**
 * The run-summary document (docs/run-summary.md) built from the authoritative records only — `state.json` (its
 * attempts and results under the run id) and the run record — so the end of `run` and `status --summary` of the
 * finished run produce the same document. Pure apart from {@link readRunSummary}.
 */
import { checkNotes } from "../contract/check_notes.ts";
import type { VerifyReport } from "../contract/mod.ts";
import {
  RUN_SUMMARY_SCHEMA,
  type RunSummary,
  type RunSummaryStream,
  type SummaryAttempt,
  type SummaryCommit,
  type SummaryCounts,
  type SummaryPrompt,
} from "../events/mod.ts";
import type { RunRecord } from "../store/mod.ts";
import { readCurrentRunRecord, readRunRecord } from "../store/run_record_read.ts";
import { INTERRUPTED_EXIT } from "./interrupts.ts";
import { type AttemptRecord, type PromptState, readState, type StateDoc } from "./state.ts";

/** How the run ended (or stands), as its record says. */
export interface SummaryRun {
  runId: string;
  status: string;
  reason: string | null;
  exitCode: number | null;
  startedAt: string | null;
  finishedAt: string | null;
}

/** Inputs of {@link buildRunSummary}. */
export interface SummaryInput {
  run: SummaryRun;
  packet: { name: string; prompts: readonly { id: string; name: string }[] };
  /** The ids the run selected; prompts with records under the run id are added. */
  selected: readonly string[];
  /** The state document, or a store whose entries are read one at a time (no whole copy of the document). */
  state: StateDoc | PromptEntries;
  storeRoot: string | null;
}

/** Prompt entries read one at a time by id (the runner's `StateStore` is one). */
export interface PromptEntries {
  /** Every prompt id with an entry. */
  ids(): Iterable<string>;
  /** One prompt's entry (a copy the reader may keep), or undefined. */
  entry(id: string): PromptState | undefined;
}

function entriesOf(state: StateDoc | PromptEntries): PromptEntries {
  if (!("prompts" in state)) return state;
  return { ids: () => Object.keys(state.prompts), entry: (id) => state.prompts[id] };
}

function ms(from: string | null | undefined, to: string | null | undefined): number | null {
  if (!from || !to) return null;
  const d = Date.parse(to) - Date.parse(from);
  return Number.isFinite(d) ? Math.max(0, d) : null;
}

function verificationOf(v: VerifyReport | null | undefined): SummaryAttempt["verification"] {
  if (!v || typeof v !== "object" || !v.counts) return null;
  const c = v.counts;
  return { status: v.status, items: c.items, passed: c.passed, failed: c.failed, faulted: c.faulted };
}

function attemptOf(a: AttemptRecord): SummaryAttempt {
  const report = a.verification && Array.isArray(a.verification.items) ? a.verification : null;
  return {
    attempt: a.attempt,
    mode: a.mode,
    status: a.status,
    decision: a.decision ?? null,
    started_at: a.started_at,
    completed_at: a.completed_at ?? null,
    duration_ms: ms(a.started_at, a.completed_at),
    streams: Array.isArray(a.streams) ? a.streams.length : 0,
    failure_class: a.failure?.class ?? null,
    failure_message: a.failure?.message || null,
    verification: verificationOf(report),
    checks: report ? checkNotes(report) : [],
    retry_delay_ms: typeof a.retry_delay_ms === "number" ? a.retry_delay_ms : null,
  };
}

function commitsOf(commit: unknown): SummaryCommit[] {
  const repos = (commit as { repos?: unknown } | null)?.repos;
  if (!Array.isArray(repos)) return [];
  const out: SummaryCommit[] = [];
  for (const r of repos as { repo?: unknown; status?: unknown; sha?: unknown }[]) {
    if (r.status === "ok" && typeof r.sha === "string" && typeof r.repo === "string") {
      out.push({ repo: r.repo, sha: r.sha, short: r.sha.slice(0, 8) });
    }
  }
  return out;
}

/** One prompt's part of the document, from its state entry (or none: not run). */
function promptOf(id: string, name: string, entry: PromptState | undefined, runId: string): SummaryPrompt {
  const attempts = (entry?.attempts ?? []).filter((a) => a.run_id === runId);
  const result = entry?.result?.run_id === runId ? entry.result : null;
  const history = attempts.map(attemptOf);
  const preflight = result?.source === "preflight_verify";
  const status = result?.status ?? (attempts.length > 0 && entry ? entry.status : "not_run");
  const startedAt = attempts[0]?.started_at ?? null;
  const finishedAt = result?.finished_at ?? attempts.at(-1)?.completed_at ?? null;
  const preserved = entry?.preserved?.run_id === runId ? entry.preserved : undefined;
  const blocked = result?.blocked_by ?? (status === "blocked_by_dependency" ? entry?.blocked_by : undefined);
  return {
    id,
    name,
    status,
    attempts: result ? result.attempts : attempts.length,
    history,
    path: preflight && history.length === 0 ? "preflight" : history.map((a) => a.mode).join(" → "),
    preflight,
    reason: result?.reason ?? null,
    failure_class: result?.failure_class ?? null,
    commit: result?.commit ?? null,
    commits: commitsOf(result?.commit ?? null),
    started_at: startedAt,
    finished_at: finishedAt,
    duration_ms: ms(startedAt, finishedAt),
    steered: result?.steered === true,
    steer_count: result?.steer_count ?? 0,
    amended: result?.amended === true,
    amendment_count: Array.isArray(result?.amendments) ? result.amendments.length : 0,
    ...(result?.vacuous === true ? { vacuous: true as const } : {}),
    ...(blocked && blocked.length > 0 ? { blocked_by: blocked } : {}),
    ...(preserved ? { preserved } : {}),
    ...(status === "commit_failed" && entry?.commit_pending ? { needs_commit: true as const } : {}),
  };
}

const FAILED = new Set(["failed", "verification_failed", "verifier_fault", "commit_failed"]);
const RUNNING = new Set(["running", "retry_scheduled", "repairing"]);

/** Every count at zero (a run with no prompt judged). */
export function zeroCounts(): SummaryCounts {
  return {
    prompts: 0,
    completed: 0,
    failed: 0,
    blocked: 0,
    interrupted: 0,
    not_run: 0,
    running: 0,
    attempts: 0,
    run: 0,
    retry: 0,
    repair: 0,
    steered: 0,
    amended: 0,
    vacuous: 0,
  };
}

/** Add one prompt to the counts. */
function count(c: SummaryCounts, p: SummaryPrompt): void {
  c.prompts++;
  if (p.status === "completed") c.completed++;
  else if (FAILED.has(p.status)) c.failed++;
  else if (p.status === "blocked_by_dependency") c.blocked++;
  else if (p.status === "interrupted") c.interrupted++;
  else if (p.status === "not_run") c.not_run++;
  else if (RUNNING.has(p.status)) c.running++;
  for (const a of p.history) {
    c.attempts++;
    if (a.mode === "run" || a.mode === "retry" || a.mode === "repair") c[a.mode]++;
  }
  if (p.steered) c.steered++;
  if (p.amended) c.amended++;
  if (p.vacuous) c.vacuous++;
}

/**
 * The document entry by entry (docs/run-summary.md): every selected prompt (packet order), every attempt under the
 * run id, counts, the exit code. The head's counts take one pass over the entries; each `prompts()` call is another,
 * building each prompt's part from its state entry when it is reached, so no more than one prompt's part is held by
 * the stream at a time (a 10,000-prompt run's summary was its peak memory, docs/bench.md).
 */
export function streamRunSummary(input: SummaryInput): RunSummaryStream {
  const { run, packet } = input;
  // Entries are read one at a time: a 10,000-prompt run's whole document is never decoded at once (docs/bench.md).
  const state = entriesOf(input.state);
  const ids = new Set(input.selected);
  for (const id of state.ids()) {
    if (ids.has(id)) continue;
    const entry = state.entry(id);
    if (entry?.result?.run_id === run.runId || entry?.attempts.some((a) => a.run_id === run.runId)) ids.add(id);
  }
  const names = new Map(packet.prompts.map((p) => [p.id, p.name]));
  const order = [
    ...packet.prompts.map((p) => p.id).filter((id) => ids.has(id)),
    ...[...ids].filter((id) => !names.has(id)),
  ];
  function* prompts(): Generator<SummaryPrompt> {
    for (const id of order) yield promptOf(id, names.get(id) ?? id, state.entry(id), run.runId);
  }
  const counts = zeroCounts();
  const vacuous: string[] = [];
  for (const p of prompts()) {
    count(counts, p);
    if (p.vacuous) vacuous.push(p.id);
  }
  const head: RunSummaryStream["head"] = {
    type: "run_summary",
    schema: RUN_SUMMARY_SCHEMA,
    run_id: run.runId,
    packet: packet.name,
    status: run.status,
    reason: run.reason,
    exit_code: run.exitCode,
    store_root: input.storeRoot,
    started_at: run.startedAt,
    finished_at: run.finishedAt,
    duration_ms: ms(run.startedAt, run.finishedAt),
    counts,
    vacuous,
  };
  return { head, prompts };
}

/** The whole document at once (small runs, tests): {@link streamRunSummary} with its prompts collected. */
export function buildRunSummary(input: SummaryInput): RunSummary {
  const s = streamRunSummary(input);
  return { ...s.head, prompts: [...s.prompts()] };
}

/** A whole document as a stream (one pass over its held prompts). */
export function summaryStreamOf(summary: RunSummary): RunSummaryStream {
  const { prompts, ...head } = summary;
  return { head, prompts: () => prompts };
}

/**
 * The `--json` document of a stream, written in pieces of about `chunk` characters: the same text as
 * `JSON.stringify(document) + "\n"`, with no more than one prompt's part built at a time.
 */
export function writeSummaryJson(s: RunSummaryStream, write: (text: string) => void, chunk = 64 * 1024): void {
  const top = JSON.stringify(s.head);
  let buf = `${top.slice(0, -1)},"prompts":[`;
  let first = true;
  for (const p of s.prompts()) {
    buf += (first ? "" : ",") + JSON.stringify(p);
    first = false;
    if (buf.length >= chunk) {
      write(buf);
      buf = "";
    }
  }
  write(buf + "]}\n");
}

/**
 * The `json` report's text (docs/ci.md) in pieces: the same text as `JSON.stringify(document, null, 2) + "\n"`, one
 * prompt's part per piece, built when it is reached.
 */
export function* prettySummaryJsonPieces(s: RunSummaryStream): Generator<string> {
  const top = JSON.stringify(s.head, null, 2); // "{\n  …\n}": its last field, then the document's closing brace
  yield `${top.slice(0, -2)},\n  "prompts": [`;
  let first = true;
  for (const p of s.prompts()) {
    yield (first ? "\n" : ",\n") + JSON.stringify(p, null, 2).replace(/^/gm, "    ");
    first = false;
  }
  yield first ? "]\n}\n" : "\n  ]\n}\n";
}

/** The exit code a closed run record stands for: its recorded one, else derived from its state and reason. */
export function recordExitCode(record: RunRecord): number | null {
  if (record.state === "running") return null;
  if (typeof record.exit_code === "number") return record.exit_code;
  if (record.state === "completed") return 0;
  if (record.state === "failed") return record.reason === "interrupted" ? INTERRUPTED_EXIT : 1;
  return null;
}

/** What a run record says about its run. */
export function summaryRunOf(record: RunRecord): SummaryRun {
  const closed = record.state !== "running";
  return {
    runId: record.run_id,
    status: record.state,
    reason: record.reason,
    exitCode: recordExitCode(record),
    startedAt: record.created_at || null,
    finishedAt: closed ? record.updated_at || null : null,
  };
}

/**
 * The summary of a store's run from its files, as a stream: the current run (or `runId`), its record and `state.json`
 * with the pending entries merged. Null when the store has no such run.
 */
export async function readRunSummaryStream(
  storeRoot: string,
  packet: SummaryInput["packet"],
  runId: string | null = null,
): Promise<RunSummaryStream | null> {
  const record = runId === null ? await readCurrentRunRecord(storeRoot) : await readRunRecord(storeRoot, runId);
  if (record === null) return null;
  return streamRunSummary({
    run: summaryRunOf(record),
    packet,
    selected: record.selection.ids,
    state: await readState(storeRoot),
    storeRoot,
  });
}

/** {@link readRunSummaryStream} collected whole (small runs, tests). */
export async function readRunSummary(
  storeRoot: string,
  packet: SummaryInput["packet"],
  runId: string | null = null,
): Promise<RunSummary | null> {
  const s = await readRunSummaryStream(storeRoot, packet, runId);
  return s === null ? null : { ...s.head, prompts: [...s.prompts()] };
}
