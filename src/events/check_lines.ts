/**
 * A check that did not pass, as the `verification_finished` event carries it and as every reader prints it (the run's
 * retry/repair lines, `verify`, `replay`): docs/reference/contract.md §7. Pure string builders.
 */

/** One check that did not pass, named. */
export interface CheckNote {
  /** The report item id (`files_exist#2`). */
  id: string;
  /** The clause as written in `verify:` (`files_exist`, `commands`, …). */
  clause: string;
  /** The path, else the command, else the repo the check is about (control characters escaped). */
  subject: string;
  /** `fail` or `fault`. */
  status: "fail" | "fault";
  /** The verdict's first line: what was expected and what was found (`missing`, `exit 1`, `missing text "meta"`). */
  detail: string;
  /** The last lines of the rest of the details (a command's output), sanitized; empty when there are none. */
  tail: string[];
  /** Lines of the rest of the details left out before {@link CheckNote.tail}. */
  omitted: number;
}

/** `files_exist hello.meta.txt: missing` (with ` (fault)` for a verifier fault). */
export function checkHeadline(note: Pick<CheckNote, "clause" | "subject" | "detail" | "status">): string {
  const subject = note.subject === "" ? "" : ` ${note.subject}`;
  return `${note.clause}${subject}: ${note.detail}${note.status === "fault" ? " (fault)" : ""}`;
}

/**
 * The lines of one note, without colour: `<indent>✗ <headline>`, then the output tail indented under it
 * (`<indent>    │ <line>`), led by `<indent>    … (<n> earlier lines)` when lines were left out.
 */
export function checkNoteLines(note: CheckNote, indent = "  "): string[] {
  const out = [`${indent}✗ ${checkHeadline(note)}`];
  if (note.tail.length > 0 && note.omitted > 0) out.push(`${indent}    … (${note.omitted} earlier lines)`);
  for (const l of note.tail) out.push(`${indent}    │ ${l}`);
  return out;
}
