/**
 * The `junit` report of a run (docs/ci.md): the run-summary document (docs/run-summary.md) as JUnit XML, the format CI
 * systems read as test results. One `<testsuite>` per run (name = packet), one `<testcase>` per selected prompt (name
 * `01 <title>`, classname = packet). A verification failure, an agent's `blocked` and an iteration cap are
 * `<failure>`; a verifier fault, a provider error, a failed commit and an interrupt are `<error>`; a prompt not reached
 * or blocked by a dependency is `<skipped>`. Pure.
 */
import type { RunSummary, RunSummaryStream, SummaryPrompt } from "../events/mod.ts";
import { checkHeadline, type CheckNote } from "../events/mod.ts";

/** Failure classes that are the agent's verdict on its own work, reported as a `<failure>` (docs/agent-control.md). */
const AGENT_FAILURES = new Set(["agent_blocked", "agent_control_iteration_limit"]);

/** How one prompt lands in JUnit. */
export type JunitOutcome = "passed" | "failure" | "error" | "skipped";

/** The JUnit outcome of one prompt of the summary. */
export function junitOutcome(p: SummaryPrompt): JunitOutcome {
  switch (p.status) {
    case "completed":
      return "passed";
    case "verification_failed":
      return "failure";
    case "failed":
      return AGENT_FAILURES.has(p.failure_class ?? "") ? "failure" : "error";
    case "blocked_by_dependency":
    case "not_run":
      return "skipped";
    default: // verifier_fault, commit_failed, interrupted, and a prompt still running when the run stopped
      return "error";
  }
}

/** Text escaped for XML content and attribute values; characters XML 1.0 cannot carry become U+FFFD. */
export function xmlEscape(text: string): string {
  return text
    // deno-lint-ignore no-control-regex
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, "\uFFFD")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;")
    .replace(/\r/g, "&#13;")
    .replace(/\n/g, "&#10;")
    .replace(/\t/g, "&#9;");
}

/** Content text escaped (newlines kept as they are, so the text reads as written). */
function contentEscape(text: string): string {
  return xmlEscape(text).replace(/&#10;/g, "\n").replace(/&#9;/g, "\t");
}

function seconds(ms: number | null): string {
  return ((ms ?? 0) / 1000).toFixed(3);
}

/** `01 Title`: the testcase name. */
export function caseName(p: Pick<SummaryPrompt, "id" | "name">): string {
  return `${p.id} ${p.name}`;
}

function attr(name: string, value: string | number): string {
  return `${name}="${xmlEscape(String(value))}"`;
}

function property(name: string, value: string | number | boolean): string {
  return `<property ${attr("name", name)} ${attr("value", String(value))}/>`;
}

/** The checks that did not pass in the prompt's last verification. */
function lastChecks(p: SummaryPrompt): CheckNote[] {
  for (let i = p.history.length - 1; i >= 0; i--) {
    const a = p.history[i]!;
    if (a.checks.length > 0) return a.checks;
    if (a.verification !== null) return [];
  }
  return [];
}

/** The body of a failure or error: each failing check (clause, path, expected vs found, output tail), one per block. */
export function checksText(checks: readonly CheckNote[]): string {
  const blocks = checks.map((c) => {
    const lines = [checkHeadline(c)];
    if (c.omitted > 0 && c.tail.length > 0) lines.push(`  … (${c.omitted} earlier lines)`);
    for (const l of c.tail) lines.push(`  | ${l}`);
    return lines.join("\n");
  });
  return blocks.join("\n");
}

/** What the prompt's result says when it did not pass: the reason, else the status in words. */
function messageOf(p: SummaryPrompt): string {
  if (p.status === "interrupted") {
    return p.reason && p.reason !== "interrupted" ? `interrupted: ${p.reason}` : "interrupted";
  }
  if (p.status === "blocked_by_dependency") return `blocked by ${(p.blocked_by ?? []).join(", ") || "a dependency"}`;
  if (p.status === "not_run") return "not reached: the run ended before this prompt started";
  return p.reason ?? p.status.replaceAll("_", " ");
}

/** The document's fields a testcase names. */
type Head = Pick<RunSummary, "packet" | "run_id">;

function caseProperties(p: SummaryPrompt, s: Head): string[] {
  const props = [
    property("status", p.status),
    property("attempts", p.attempts),
    property("modes", p.path === "" ? "none" : p.path),
    property("steered", p.steered),
    property("steer_count", p.steer_count),
    property("amended", p.amended),
    property("amendment_count", p.amendment_count),
    property("vacuous", p.vacuous === true),
    property("run_id", s.run_id ?? ""),
  ];
  if (p.preflight) props.push(property("completed_by", "preflight"));
  if (p.failure_class) props.push(property("failure_class", p.failure_class));
  for (const c of p.commits) props.push(property(`commit.${c.repo}`, c.sha));
  if (p.commits[0]) props.push(property("commit", p.commits[0].sha));
  return props;
}

function testcase(p: SummaryPrompt, s: Head): string[] {
  const open = `    <testcase ${attr("name", caseName(p))} ${attr("classname", s.packet)} ${
    attr("time", seconds(p.duration_ms))
  }>`;
  const out = [open, "      <properties>", ...caseProperties(p, s).map((l) => `        ${l}`), "      </properties>"];
  const outcome = junitOutcome(p);
  const msg = messageOf(p);
  if (outcome === "skipped") out.push(`      <skipped ${attr("message", msg)}/>`);
  else if (outcome !== "passed") {
    const body = checksText(lastChecks(p));
    const type = p.failure_class ?? p.status;
    const text = body === "" ? msg : `${msg}\n${body}`;
    out.push(`      <${outcome} ${attr("message", msg)} ${attr("type", type)}>${contentEscape(text)}</${outcome}>`);
  }
  out.push("    </testcase>");
  return out;
}

/** A run that stopped before any prompt could be judged (an abort) is one errored testcase named `run`. */
function abortCase(s: RunSummaryStream["head"]): string[] {
  const msg = s.reason ?? s.status;
  return [
    `    <testcase ${attr("name", "run")} ${attr("classname", s.packet)} time="0.000">`,
    `      <error ${attr("message", msg)} ${attr("type", s.status)}>${contentEscape(msg)}</error>`,
    "    </testcase>",
  ];
}

/** A whole document read as a stream (one pass over its held prompts per call); a stream as it is. */
export function wholeSummaryStream(summary: RunSummary | RunSummaryStream): RunSummaryStream {
  if (typeof summary.prompts === "function") return summary as RunSummaryStream;
  const { prompts, ...head } = summary as RunSummary;
  return { head, prompts: () => prompts };
}

/**
 * The JUnit XML of a run summary in pieces (each a line with its newline): a first pass over the prompts counts the
 * outcomes for the totals the root elements carry, a second writes the testcases as each prompt is built, so no more
 * than one prompt's part is held at a time (a 10,000-prompt run's report, docs/bench.md `scale`).
 */
export function* junitPieces(s: RunSummaryStream): Generator<string> {
  const head = s.head;
  const counts = { tests: 0, failures: 0, errors: 0, skipped: 0 };
  for (const p of s.prompts()) {
    counts.tests++;
    const o = junitOutcome(p);
    if (o === "failure") counts.failures++;
    else if (o === "error") counts.errors++;
    else if (o === "skipped") counts.skipped++;
  }
  const aborted = counts.tests === 0 && head.exit_code !== null && head.exit_code !== 0;
  if (aborted) {
    counts.tests++;
    counts.errors++;
  }
  const totals = `${attr("tests", counts.tests)} ${attr("failures", counts.failures)} ${
    attr("errors", counts.errors)
  } ${attr("skipped", counts.skipped)} ${attr("time", seconds(head.duration_ms))}`;
  const stamp = head.started_at ? ` ${attr("timestamp", head.started_at)}` : "";
  yield [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites ${attr("name", "prompt_runner")} ${totals}>`,
    `  <testsuite ${attr("name", head.packet)} ${totals}${stamp}>`,
    "    <properties>",
    `      ${property("run_id", head.run_id ?? "")}`,
    `      ${property("status", head.status)}`,
    `      ${property("reason", head.reason ?? "")}`,
    `      ${property("exit_code", head.exit_code ?? "")}`,
    "    </properties>",
    "",
  ].join("\n");
  for (const p of s.prompts()) yield testcase(p, head).join("\n") + "\n";
  if (aborted) yield abortCase(head).join("\n") + "\n";
  yield "  </testsuite>\n</testsuites>\n";
}

/** The JUnit XML of a run summary, whole ({@link junitPieces} joined). */
export function junitReport(s: RunSummary): string {
  return [...junitPieces(wholeSummaryStream(s))].join("");
}
