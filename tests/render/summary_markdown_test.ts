/**
 * The `summary` report (src/render/summary_markdown.ts) against golden files: a passing run, and a run with every
 * outcome — the failing checks in `<details>`, steers and amendments in the audit table, table cells escaped.
 */
import { assertGolden } from "../support/golden.ts";
import { type AuditEntry, summaryMarkdown } from "../../src/render/summary_markdown.ts";
import { mixedSummary, prompt, summary } from "./_ci_summaries.ts";

Deno.test("summary markdown: a passing run", () => {
  assertGolden("ci/summary_passing.md.txt", summaryMarkdown(summary([prompt("01", "One"), prompt("02", "Two")])));
});

Deno.test("summary markdown: every outcome, failing checks, steering and amendments (counts only)", () => {
  assertGolden("ci/summary_mixed.md.txt", summaryMarkdown(mixedSummary()));
});

Deno.test("summary markdown: the audit records of the run's steers and amendments, first lines, cells escaped", () => {
  const audit: AuditEntry[] = [
    { prompt: "01", kind: "steer", at: "2026-12-01T10:00:01.000Z", author: "ana", what: "use | pipes\nsecond line" },
    { prompt: "01", kind: "steer", at: "2026-12-01T10:00:01.500Z", author: "bo", what: "x".repeat(120) },
    {
      prompt: "03",
      kind: "amendment",
      at: "2026-12-01T10:00:03.000Z",
      author: "ana",
      what: "relax files_exist remove: the guide moved",
    },
  ];
  assertGolden("ci/summary_audit.md.txt", summaryMarkdown(mixedSummary(), audit));
});

Deno.test("summary markdown: a run refused before it started", () => {
  const s = summary([], {
    status: "aborted",
    reason: "no packet at ./x",
    exit_code: 4,
    run_id: null,
    duration_ms: null,
  });
  assertGolden("ci/summary_aborted.md.txt", summaryMarkdown(s));
});
