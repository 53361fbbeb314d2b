/**
 * `run` / `start` / `repair`: `--report FORMAT=PATH` and the CI service the command runs under (docs/ci.md). The
 * runner writes the reports when the run ends; {@link withAbortReports} writes them when the command stops before
 * the runner could (a refusal, a failed preflight, a held lease), so a CI job never reads a stale report.
 */
import type { CommandContext, FlagSpec } from "./frame.ts";
import { PromptRunnerError } from "../errors.ts";
import type { CiRequest } from "../run/mod.ts";
import { abortedSummary, parseReports, REPORT_FORMATS, writeReports } from "../run/reports.ts";
import { appendStepSummary } from "../run/ci.ts";
import { ghError, summaryMarkdown } from "../render/mod.ts";
import { ciEnvironment, denoEnv } from "../util/ci_env.ts";
import { writeCommand } from "../util/text_out.ts";

/** The flag. */
export const REPORT_FLAGS: Record<string, FlagSpec> = {
  report: {
    type: "string",
    multiple: true,
    value: "FORMAT=PATH",
    description: `write a report when the run ends (${REPORT_FORMATS.join(", ")}; repeatable), e.g. junit=report.xml`,
  },
};

/** The reports asked for and the CI service; throws a usage error naming a bad `--report`. */
export function ciRequest(ctx: CommandContext): CiRequest {
  const raw = ctx.flags.report;
  const values = Array.isArray(raw) ? raw : typeof raw === "string" ? [raw] : [];
  return { reports: parseReports(values, Deno.cwd()), env: ciEnvironment(denoEnv) };
}

/**
 * A command's `run` that writes every report (and under GitHub Actions the step summary and an `::error` line) when
 * it throws — a run that ended before any prompt was judged — then rethrows. A bad `--report` is refused first.
 */
export function withAbortReports(
  run: (ctx: CommandContext, ci: CiRequest) => Promise<number>,
): (ctx: CommandContext) => Promise<number> {
  return async (ctx) => {
    const ci = ciRequest(ctx);
    try {
      return await run(ctx, ci);
    } catch (e) {
      // The runner wrote them already (an error after the run closed): they hold the run's verdict, keep them.
      if (ci.written === true || (ci.reports.length === 0 && ci.env?.kind !== "github")) throw e;
      const message = e instanceof Error ? e.message : String(e);
      const exit = e instanceof PromptRunnerError ? e.exit : 1;
      const summary = abortedSummary(ctx.positionals[0] ?? ".", message, exit);
      const warnings = await writeReports(ci.reports, summary);
      if (ci.env?.kind === "github") {
        writeCommand(ctx.stderr, ghError(message, { title: "prompt_runner" }));
        if (ci.env.stepSummary) warnings.push(...await appendStepSummary(ci.env.stepSummary, summaryMarkdown(summary)));
      }
      for (const w of warnings) ctx.stderr.write(w + "\n");
      throw e;
    }
  };
}
