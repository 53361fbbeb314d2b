/**
 * One-line values of the authoring commands (`packet new`, `profile new`, `prompt new`): a name, a model, a path
 * given on the command line ends up in a YAML file, a file name, a commit message or a listing, where a newline or
 * another control character only ever hides or forges something. Refused naming the flag and what it takes.
 */
import type { FlagValues } from "./frame.ts";
import { UsageError } from "../errors.ts";

// deno-lint-ignore no-control-regex
const CONTROL = /[\x00-\x1f\x7f]/;

/** Refuse the first value holding a control character (newline, tab, escape, …); `label` names its flag. */
export function refuseControlChars(values: [label: string, value: string | null | undefined][]): void {
  for (const [label, value] of values) {
    if (typeof value === "string" && CONTROL.test(value)) {
      throw new UsageError(
        "invalid_value",
        `${label} is ${JSON.stringify(value)}; expected one line of text without control characters`,
      );
    }
  }
}

/** Every string value of the named flags (a repeated flag's values each), labelled `--flag`. */
export function flagValues(flags: FlagValues, names: string[]): [string, string][] {
  const out: [string, string][] = [];
  for (const name of names) {
    const v = flags[name];
    for (const s of Array.isArray(v) ? v : [v]) if (typeof s === "string") out.push([`--${name}`, s]);
  }
  return out;
}
