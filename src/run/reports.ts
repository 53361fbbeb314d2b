/**
 * `--report FORMAT=PATH` (docs/ci.md): the reports a run writes when it ends — `junit` (src/render/junit.ts),
 * `summary` (GitHub-flavoured Markdown, src/render/summary_markdown.ts) and `json` (the run-summary document,
 * docs/run-summary.md). Each is written whole (temp file, fsync, rename) when the run ends: completed, failed,
 * interrupted, or aborted before any prompt was judged — entry by entry from the run summary's stream, so a long run's
 * report is never held whole in memory (docs/bench.md, `scale`).
 */
import type { RunSummary, RunSummaryStream } from "../events/mod.ts";
import { RUN_SUMMARY_SCHEMA } from "../events/mod.ts";
import { type AuditEntry, junitPieces, summaryMarkdownPieces, wholeSummaryStream } from "../render/mod.ts";
import { readInterventions } from "../control/runner_api.ts";
import { readAmendments } from "../contract/mod.ts";
import { UsageError } from "../errors.ts";
import { atomicWriteChunks } from "../util/fs.ts";
import { dirname, resolve } from "../util/path.ts";
import { prettySummaryJsonPieces, zeroCounts } from "./summary.ts";

/** The report formats. */
export const REPORT_FORMATS = ["junit", "summary", "json"] as const;

/** A report format. */
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/** One `--report` value: a format and the absolute path it is written to. */
export interface ReportRequest {
  format: ReportFormat;
  path: string;
}

/** Parse the `--report` values (relative paths against `cwd`); a bad value is a usage error naming it. */
export function parseReports(values: readonly string[], cwd: string): ReportRequest[] {
  const out: ReportRequest[] = [];
  for (const v of values) {
    const eq = v.indexOf("=");
    const format = eq < 0 ? v : v.slice(0, eq);
    const path = eq < 0 ? "" : v.slice(eq + 1);
    if (!(REPORT_FORMATS as readonly string[]).includes(format)) {
      throw new UsageError(
        "invalid_value",
        `--report "${v}": the format must be one of ${REPORT_FORMATS.join(", ")} (FORMAT=PATH)`,
      );
    }
    if (path === "") {
      throw new UsageError("invalid_value", `--report "${v}": expected FORMAT=PATH, the path is missing`);
    }
    const abs = resolve(cwd, path);
    if (out.some((r) => r.path === abs)) {
      throw new UsageError("invalid_value", `--report "${v}": ${abs} is named by another --report`);
    }
    out.push({ format: format as ReportFormat, path: abs });
  }
  return out;
}

/**
 * The steers delivered in the run and the contract amendments of its amended prompts, from the audit records
 * (`interventions/`, `amendments/`), in time order. Only steered or amended prompts are read.
 */
export async function runAudit(storeRoot: string, summary: RunSummary | RunSummaryStream): Promise<AuditEntry[]> {
  const out: AuditEntry[] = [];
  const s = wholeSummaryStream(summary);
  for (const p of s.prompts()) {
    if (p.steered) {
      for (const r of await readInterventions(storeRoot, p.id)) {
        if (r.run_id !== s.head.run_id) continue;
        out.push({ prompt: p.id, kind: "steer", at: r.at, author: r.author, what: r.text });
      }
    }
    if (p.amended) {
      for (const r of await readAmendments(storeRoot, p.id)) {
        const what = `${r.direction} ${r.clause} ${r.operation}${r.reason ? `: ${r.reason}` : ""}`;
        out.push({ prompt: p.id, kind: "amendment", at: r.at, author: r.author, what });
      }
    }
  }
  return out.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
}

/** The text of one report in pieces (`audit`: the run's steers and amendments for the Markdown, null for counts only). */
export function reportPieces(
  format: ReportFormat,
  summary: RunSummary | RunSummaryStream,
  audit: readonly AuditEntry[] | null = null,
): Iterable<string> {
  const s = wholeSummaryStream(summary);
  if (format === "junit") return junitPieces(s);
  if (format === "summary") return summaryMarkdownPieces(s, audit);
  return prettySummaryJsonPieces(s);
}

/** The text of one report, whole ({@link reportPieces} joined; small runs and tests). */
export function reportText(
  format: ReportFormat,
  summary: RunSummary | RunSummaryStream,
  audit: readonly AuditEntry[] | null = null,
): string {
  return [...reportPieces(format, summary, audit)].join("");
}

/**
 * Write each report (temp file written entry by entry, fsync, rename); returns one warning line per report that could
 * not be written (nothing else changes).
 */
export async function writeReports(
  reports: readonly ReportRequest[],
  summary: RunSummary | RunSummaryStream,
  audit: readonly AuditEntry[] | null = null,
): Promise<string[]> {
  const warnings: string[] = [];
  for (const r of reports) {
    try {
      await Deno.mkdir(dirname(r.path), { recursive: true });
      await atomicWriteChunks(r.path, reportPieces(r.format, summary, audit), { fsync: true });
    } catch (e) {
      warnings.push(`warning: --report ${r.format}: could not write ${r.path}: ${e instanceof Error ? e.message : e}`);
    }
  }
  return warnings;
}

/**
 * The summary of a run that ended before the runner could judge any prompt (a refusal, a failed preflight, a held
 * lease, a crash of the runner itself): no prompts, the error as its reason, the exit code the process ends with.
 */
export function abortedSummary(packet: string, reason: string, exitCode: number): RunSummary {
  return {
    type: "run_summary",
    schema: RUN_SUMMARY_SCHEMA,
    run_id: null,
    packet,
    status: "aborted",
    reason,
    exit_code: exitCode,
    store_root: null,
    started_at: null,
    finished_at: null,
    duration_ms: null,
    counts: zeroCounts(),
    vacuous: [],
    prompts: [],
  };
}
