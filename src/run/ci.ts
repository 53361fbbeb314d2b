/**
 * A run's log as a CI service reads it (docs/ci.md): under GitHub Actions each prompt's output sits inside
 * `::group::`/`::endgroup::`, accepted and delivered steers are `::notice::` lines, and when the run ends the failing
 * checks become `::error file=…::` annotations, contract amendments `::notice::` lines, and the Markdown summary is
 * appended to `$GITHUB_STEP_SUMMARY`; under GitLab CI each prompt is a collapsible section. Fed by `trackPlane()`
 * (src/run/run_progress.ts) like the status line.
 */
import type { Envelope, RunSummary, RunSummaryStream, SummaryPrompt } from "../events/mod.ts";
import type { SnapshotPatch } from "../control/runner_api.ts";
import {
  annotationLines,
  type AuditEntry,
  GH_END_GROUP,
  ghGroup,
  ghNotice,
  gitlabSectionEnd,
  gitlabSectionStart,
  junitOutcome,
  runNotices,
  summaryMarkdownPieces,
  wholeSummaryStream,
} from "../render/mod.ts";
import type { CiEnvironment } from "../util/mod.ts";
import { isAbsolute, join, relative } from "../util/path.ts";
import { type TextOut, writeCommand } from "../util/mod.ts";

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
    writeCommand(this.#out, text);
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
   * the step summary. Returns a warning line per thing that could not be written. The summary is read entry by entry
   * (a stream, or a whole document): nothing here holds more than a prompt's part and 1 MB of Markdown.
   */
  async finish(summary: RunSummary | RunSummaryStream, audit: readonly AuditEntry[] | null = null): Promise<string[]> {
    this.end();
    if (this.#ci.kind !== "github") return [];
    for (const l of annotationLines(summary, (id, path) => this.#where(id, path))) this.#line(l);
    for (const l of runNotices(summary)) this.#line(l);
    return this.#ci.stepSummary === null
      ? []
      : await appendStepSummary(this.#ci.stepSummary, stepSummaryPieces(summary, audit));
  }
}

/** GitHub refuses a job summary over 1 MiB; the Markdown stays under this many bytes. */
export const STEP_SUMMARY_MAX_BYTES = 1000 * 1000;

/** UTF-8 length of a text (a lone surrogate counts as U+FFFD, 3 bytes, as `TextEncoder` writes it). */
export function utf8Length(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}

/** The pieces, collected while their UTF-8 size stays within `maxBytes`; null once it is over (nothing more kept). */
function collectWithin(pieces: Iterable<string>, maxBytes: number): string[] | null {
  const out: string[] = [];
  let size = 0;
  for (const p of pieces) {
    size += utf8Length(p);
    if (size > maxBytes) return null;
    out.push(p);
  }
  return out;
}

/**
 * The first `budget` bytes of the pieces' UTF-8 text, a character cut in two and the U+FFFD run before the cut
 * dropped (what decoding the byte prefix and trimming its trailing U+FFFD gives).
 */
function* bytePrefix(pieces: Iterable<string>, budget: number): Generator<string> {
  const encoder = new TextEncoder();
  let before: string | null = null;
  let left = budget;
  for (const p of pieces) {
    const size = utf8Length(p);
    if (size <= left) {
      if (before !== null) yield before;
      before = p;
      left -= size;
      continue;
    }
    const part = new TextDecoder().decode(encoder.encode(p).slice(0, left));
    yield ((before ?? "") + part).replace(/\uFFFD+$/, "");
    return;
  }
  if (before !== null) yield before.replace(/\uFFFD+$/, "");
}

/**
 * The Markdown for `$GITHUB_STEP_SUMMARY` in pieces: the whole summary when it fits {@link STEP_SUMMARY_MAX_BYTES},
 * else only the prompts that did not pass in its table (a 10,000-prompt run), else cut at the bound — each time saying
 * so and naming the `summary` report, which always has everything. Read from the summary's stream: at most the bound's
 * worth of Markdown is held while deciding.
 */
export function* stepSummaryPieces(
  summary: RunSummary | RunSummaryStream,
  audit: readonly AuditEntry[] | null,
  maxBytes = STEP_SUMMARY_MAX_BYTES,
): Generator<string> {
  const s = wholeSummaryStream(summary);
  const full = collectWithin(summaryMarkdownPieces(s, audit), maxBytes);
  if (full !== null) {
    yield* full;
    return;
  }
  const notPassed = (p: SummaryPrompt) => junitOutcome(p) !== "passed";
  let passed = 0;
  for (const p of s.prompts()) if (!notPassed(p)) passed++;
  const note = `_${passed} passing prompts are left out of this table (GitHub's job summary is limited to 1 MiB); ` +
    "the `summary` and `junit` reports have every prompt._\n";
  function* short(): Generator<string> {
    yield* summaryMarkdownPieces(s, audit, notPassed);
    yield "\n" + note;
  }
  const fits = collectWithin(short(), maxBytes);
  if (fits !== null) {
    yield* fits;
    return;
  }
  const cut = "\n\n_…cut at GitHub's 1 MiB job-summary limit; the `summary` report has all of it._\n";
  yield* bytePrefix(short(), maxBytes - utf8Length(cut));
  yield cut;
}

/** {@link stepSummaryPieces} joined (tests, small runs). */
export function stepSummaryMarkdown(
  summary: RunSummary | RunSummaryStream,
  audit: readonly AuditEntry[] | null,
  maxBytes = STEP_SUMMARY_MAX_BYTES,
): string {
  return [...stepSummaryPieces(summary, audit, maxBytes)].join("");
}

/**
 * Append to `$GITHUB_STEP_SUMMARY` (GitHub's file: appended to, never replaced), the Markdown and a newline; given as
 * pieces, it is written about 64 KiB at a time.
 */
export async function appendStepSummary(path: string, markdown: string | Iterable<string>): Promise<string[]> {
  try {
    if (typeof markdown === "string") await Deno.writeTextFile(path, markdown + "\n", { append: true, create: true });
    else {
      using file = await Deno.open(path, { append: true, create: true });
      const encoder = new TextEncoder();
      let buf = "";
      const flush = async () => {
        const bytes = encoder.encode(buf);
        buf = "";
        let off = 0;
        while (off < bytes.length) off += await file.write(bytes.subarray(off));
      };
      for (const piece of markdown) {
        buf += piece;
        if (buf.length >= 64 * 1024) await flush();
      }
      buf += "\n";
      await flush();
    }
    return [];
  } catch (e) {
    return [
      `warning: could not append the run summary to GITHUB_STEP_SUMMARY (${path}): ${
        e instanceof Error ? e.message : e
      }`,
    ];
  }
}
