/**
 * What CI systems read in a job's log (docs/ci.md): GitHub Actions workflow commands (`::group::`, `::endgroup::`,
 * `::error file=…::`, `::notice::`) and GitLab CI collapsible sections, plus the annotations of a finished run's
 * failing checks. Pure string builders; src/run/ci.ts decides when they are written.
 */
import type { CheckNote, RunSummary, RunSummaryStream } from "../events/mod.ts";
import { caseName, junitOutcome, wholeSummaryStream } from "./junit.ts";

/** Which CI service's log conventions apply. */
export type CiKind = "github" | "gitlab" | "generic";

/** A workflow command's message: `%`, CR and LF escaped as GitHub Actions reads them. */
export function ghData(text: string): string {
  return text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

/** A workflow command's property value: the message escapes plus `:` and `,`. */
export function ghProperty(text: string): string {
  return ghData(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

/** `::group::<title>`. */
export function ghGroup(title: string): string {
  return `::group::${ghData(title)}`;
}

/** `::endgroup::`. */
export const GH_END_GROUP = "::endgroup::";

/** `::notice title=…::message` (`title` optional). */
export function ghNotice(message: string, title?: string): string {
  const props = title ? ` title=${ghProperty(title)}` : "";
  return `::notice${props}::${ghData(message)}`;
}

/** Where an annotation points. */
export interface AnnotationPlace {
  file?: string;
  line?: number;
  title?: string;
}

/** `::error file=…,line=…,title=…::message`. */
export function ghError(message: string, place: AnnotationPlace = {}): string {
  const props: string[] = [];
  if (place.file) props.push(`file=${ghProperty(place.file)}`);
  if (place.file && place.line !== undefined) props.push(`line=${place.line}`);
  if (place.title) props.push(`title=${ghProperty(place.title)}`);
  return `::error${props.length > 0 ? " " + props.join(",") : ""}::${ghData(message)}`;
}

/** A GitLab section name: letters, digits, `_`, `.` and `-` only. */
export function gitlabSectionName(text: string): string {
  return text.replace(/[^A-Za-z0-9_.-]/g, "_");
}

/** GitLab's collapsible section start (`section_start:<unix>:<name>[collapsed=true]\r\e[0K<header>`). */
export function gitlabSectionStart(name: string, header: string, unixSeconds: number, collapsed = true): string {
  const opts = collapsed ? "[collapsed=true]" : "";
  return `\x1b[0Ksection_start:${unixSeconds}:${gitlabSectionName(name)}${opts}\r\x1b[0K${
    header.replace(/\r?\n/g, " ")
  }`;
}

/** GitLab's section end. */
export function gitlabSectionEnd(name: string, unixSeconds: number): string {
  return `\x1b[0Ksection_end:${unixSeconds}:${gitlabSectionName(name)}\r\x1b[0K`;
}

/** Clauses whose check names a file (its subject is a path relative to the repo), so an annotation can point at it. */
const PATH_CLAUSES = new Set([
  "files_exist",
  "files_absent",
  "contains",
  "matches",
  "doc",
  "yaml",
  "json",
  "source_absent",
  "changed_paths_only",
]);

/** A `path:line` subject or detail gives the line; else none. */
function lineOf(note: CheckNote): number | undefined {
  const m = /:(\d+)(?::\d+)?\b/.exec(note.detail) ?? /:(\d+)$/.exec(note.subject);
  const n = m ? Number(m[1]) : NaN;
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

/**
 * The `::error` lines of a finished run: one per failing check of each prompt that did not pass (a file annotation
 * when the clause names a path; `where` maps that path to one relative to the checkout), one per such prompt without
 * checks (its reason).
 */
export function runAnnotations(s: RunSummary, where: (promptId: string, path: string) => string): string[] {
  return [...annotationLines(s, where)];
}

/** {@link runAnnotations} one line at a time, from the document or its stream (one pass over the prompts). */
export function* annotationLines(
  s: RunSummary | RunSummaryStream,
  where: (promptId: string, path: string) => string,
): Generator<string> {
  for (const p of wholeSummaryStream(s).prompts()) {
    const outcome = junitOutcome(p);
    if (outcome !== "failure" && outcome !== "error") continue;
    const last = [...p.history].reverse().find((a) => a.verification !== null || a.checks.length > 0);
    const checks = last?.checks ?? [];
    const title = `prompt ${caseName(p)}: ${p.status.replaceAll("_", " ")}`;
    if (checks.length === 0) {
      yield ghError(p.reason ?? p.status.replaceAll("_", " "), { title });
      continue;
    }
    for (const c of checks) {
      const message = [`${c.clause}${c.subject ? " " + c.subject : ""}: ${c.detail}`, ...c.tail].join("\n");
      const place: AnnotationPlace = { title };
      if (PATH_CLAUSES.has(c.clause) && c.subject !== "") {
        place.file = where(p.id, c.subject.replace(/:\d+(?::\d+)?$/, ""));
        const line = lineOf(c);
        if (line !== undefined) place.line = line;
      }
      yield ghError(message, place);
    }
  }
}

/** The `::notice` lines of a finished run's steered and amended prompts. */
export function runNotices(s: RunSummary | RunSummaryStream): string[] {
  const out: string[] = [];
  for (const p of wholeSummaryStream(s).prompts()) {
    if (p.amended) {
      out.push(ghNotice(
        `prompt ${caseName(p)} ran under ${p.amendment_count} contract ${
          p.amendment_count === 1 ? "amendment" : "amendments"
        } (prompt_runner control log)`,
        "contract amended",
      ));
    }
  }
  return out;
}
