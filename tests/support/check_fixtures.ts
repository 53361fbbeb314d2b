/**
 * Failing-check notes as a `verification_finished` event carries them (src/events/check_lines.ts), for tests that
 * assert how they are recorded (tests/cli/run_summary_test.ts) and how they are printed
 * (tests/render/replay_checks_test.ts, tests/cli/control_format_test.ts).
 */
import type { CheckNote } from "../../src/events/check_lines.ts";

/** `files_exist#<n>` failing because `path` is missing. */
export function missingFileCheck(path: string, n = 2): CheckNote {
  return {
    id: `files_exist#${n}`,
    clause: "files_exist",
    subject: path,
    status: "fail",
    detail: "missing",
    tail: [],
    omitted: 0,
  };
}

/** `commands#<n>` (the command `subject`) failing with `detail`, the last output lines `tail` after `omitted` more. */
export function failedCommandCheck(subject: string, detail: string, tail: string[], omitted = 0, n = 1): CheckNote {
  return { id: `commands#${n}`, clause: "commands", subject, status: "fail", detail, tail, omitted };
}
