/**
 * A run's log as a CI service reads it (docs/ci.md): under GitHub Actions each prompt's output sits inside
 * `::group::`/`::endgroup::`, accepted and delivered steers are `::notice::` lines, and when the run ends the failing
 * checks become `::error file=…::` annotations, contract amendments `::notice::` lines, and the Markdown summary is
 * appended to `$GITHUB_STEP_SUMMARY`; under GitLab CI each prompt is a collapsible section. Fed by `trackPlane()`
 * (src/run/run_progress.ts) like the status line.
 */
import type { Envelope, RunSummary } from "../events/mod.ts";
import type { SnapshotPatch } from "../control/runner_api.ts";
import {
  type AuditEntry,
  GH_END_GROUP,
  ghGroup,
  ghNotice,
  gitlabSectionEnd,
  gitlabSectionStart,
  junitOutcome,
  runAnnotations,
  runNotices,
  summaryMarkdown,
} from "../render/mod.ts";
import type { CiEnvironment } from "../util/mod.ts";
import { isAbsolute, join, relative } from "../util/path.ts";
import type { TextOut } from "../util/mod.ts";

/** Where a prompt's checks are evaluated (its session directory), by prompt id. */
export type PromptDirs = ReadonlyMap<string, { name: string; cwd: string }>;

/** The CI side of one run's output. */
export class CiLog {
  readonly #ci: CiEnvironment;
  readonly #out: TextOut;
  readonly #prompts: PromptDirs;
  readonly #now: () => number;
  #open: string | null = null;
  #breakLine: () => void = () => {};

  /** `out` is the stream the markers go to (stderr under `--json`, so stdout stays JSON lines). */
  constructor(ci: CiEnvironment, out: TextOut, prompts: PromptDirs, now: () => number = Date.now) {
    this.#ci = ci;
    this.#out = out;
    this.#prompts = prompts;
    this.#now = now;
  }

  /** How to end the stream's open line before a marker (the run context's `breakStream`). */
  attach(breakLine: () => void): void {
    this.#breakLine = breakLine;
  }

  #line(text: string): void {
    this.#breakLine();
    this.#out.write(text + "\n");
  }

  #unix(): number {
    return Math.floor(this.#now() / 1000);
  }

  /** A runner transition: a new prompt opens its group (closing the one before). */
  patch(p: SnapshotPatch): void {
    if (p.prompt_id === undefined || p.prompt_id === null || p.prompt_id === this.#open) return;
    this.end();
    const name = p.prompt_name ?? this.#prompts.get(p.prompt_id)?.name ?? "";
    const title = `${p.prompt_id} ${name}`.trimEnd();
    if (this.#ci.kind === "github") this.#line(ghGroup(title));
    else if (this.#ci.kind === "gitlab") this.#line(gitlabSectionStart(`prompt_${p.prompt_id}`, title, this.#unix()));
    else return;
    this.#open = p.prompt_id;
  }

  /** A recorded event: steers become notices on GitHub. */
  event(e: Envelope): void {
    if (this.#ci.kind !== "github") return;
    const prompt = e.prompt_id ? `prompt ${e.prompt_id}: ` : "";
    if (e.type === "steer_accepted") {
      this.#line(ghNotice(`${prompt}steer ${e.data.request} from ${e.data.author} accepted`, "steer accepted"));
    } else if (e.type === "steer_delivered") {
      const how = e.data.delivery.replaceAll("_", " ");
      this.#line(ghNotice(`${prompt}steer ${e.data.request} from ${e.data.author} delivered (${how})`, "steered"));
    }
  }

  /** Close the open group or section. */
  end(): void {
    if (this.#open === null) return;
    if (this.#ci.kind === "github") this.#line(GH_END_GROUP);
    else if (this.#ci.kind === "gitlab") this.#line(gitlabSectionEnd(`prompt_${this.#open}`, this.#unix()));
    this.#open = null;
  }

  /** A check's path as an annotation names it: relative to the checkout when it lies inside it. */
  #where(promptId: string, path: string): string {
    const cwd = this.#prompts.get(promptId)?.cwd;
    const abs = isAbsolute(path) || !cwd ? path : join(cwd, path);
    const root = this.#ci.workspace;
    if (root === null || !isAbsolute(abs)) return abs;
    const rel = relative(root, abs);
    return rel.startsWith("..") ? abs : rel;
  }

  /**
   * The run ended with `summary`: close the open group, write the annotations and notices, append the Markdown to
   * the step summary. Returns a warning line per thing that could not be written.
   */
  async finish(summary: RunSummary, audit: readonly AuditEntry[] | null = null): Promise<string[]> {
    this.end();
    if (this.#ci.kind !== "github") return [];
    for (const l of runAnnotations(summary, (id, path) => this.#where(id, path))) this.#line(l);
    for (const l of runNotices(summary)) this.#line(l);
    return this.#ci.stepSummary === null
      ? []
      : await appendStepSummary(this.#ci.stepSummary, stepSummaryMarkdown(summary, audit));
  }
}

/** GitHub refuses a job summary over 1 MiB; the Markdown stays under this many bytes. */
export const STEP_SUMMARY_MAX_BYTES = 1000 * 1000;

/**
 * The Markdown for `$GITHUB_STEP_SUMMARY`: the whole summary when it fits {@link STEP_SUMMARY_MAX_BYTES}, else only the
 * prompts that did not pass in its table (a 10,000-prompt run), else cut at the bound — each time saying so and naming
 * the `summary` report, which always has everything.
 */
export function stepSummaryMarkdown(
  summary: RunSummary,
  audit: readonly AuditEntry[] | null,
  maxBytes = STEP_SUMMARY_MAX_BYTES,
): string {
  const size = (t: string) => new TextEncoder().encode(t).length;
  const full = summaryMarkdown(summary, audit);
  if (size(full) <= maxBytes) return full;
  const failing = summary.prompts.filter((p) => junitOutcome(p) !== "passed");
  const passed = summary.prompts.length - failing.length;
  const note = `_${passed} passing prompts are left out of this table (GitHub's job summary is limited to 1 MiB); ` +
    "the `summary` and `junit` reports have every prompt._\n";
  const short = summaryMarkdown({ ...summary, prompts: failing }, audit) + "\n" + note;
  if (size(short) <= maxBytes) return short;
  const cut = "\n\n_…cut at GitHub's 1 MiB job-summary limit; the `summary` report has all of it._\n";
  const bytes = new TextEncoder().encode(short).slice(0, maxBytes - size(cut));
  return new TextDecoder().decode(bytes).replace(/\uFFFD+$/, "") + cut;
}

/** Append to `$GITHUB_STEP_SUMMARY` (GitHub's file: appended to, never replaced). */
export async function appendStepSummary(path: string, markdown: string): Promise<string[]> {
  try {
    await Deno.writeTextFile(path, markdown + "\n", { append: true, create: true });
    return [];
  } catch (e) {
    return [
      `warning: could not append the run summary to GITHUB_STEP_SUMMARY (${path}): ${
        e instanceof Error ? e.message : e
      }`,
    ];
  }
}
