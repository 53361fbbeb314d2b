/**
 * `run` / `start` flags and environment variables of the event stream's limits (docs/reference/control-plane.md
 * §5.2, §5.5): the segment size bound and the retention of earlier runs' archives. A flag beats its variable; a
 * value that does not parse is a usage error naming the flag or variable and what it takes.
 */
import type { CommandContext, FlagSpec } from "./frame.ts";
import { UsageError } from "../errors.ts";
import type { EventLimits } from "../run/mod.ts";

/** The flags, shared by `run` and `start`. */
export const EVENT_LIMIT_FLAGS: Record<string, FlagSpec> = {
  "events-segment-size": {
    type: "string",
    value: "SIZE",
    description: "seal events.jsonl into a segment at this size: bytes, or with K, M, G (default 64M; min 4K)",
  },
  "keep-runs": {
    type: "string",
    value: "N",
    description: "keep the event archives of the N newest earlier runs (default 20; 0 keeps none)",
  },
  "keep-archives-size": {
    type: "string",
    value: "SIZE",
    description: "keep at most this much of earlier runs' event archives, newest first (default 2G)",
  },
};

const UNITS: Record<string, number> = { "": 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 };

/** Parse `4096`, `512K`, `64M`, `2G` (binary units, case-insensitive, optional trailing `B`/`iB`); null if bad. */
export function parseSize(text: string): number | null {
  const m = /^\s*(\d+)\s*([kmg]?)(i?b)?\s*$/i.exec(text);
  if (!m) return null;
  return Number(m[1]) * UNITS[m[2]!.toUpperCase()]!;
}

function envValue(name: string): string | undefined {
  try {
    const v = Deno.env.get(name);
    return v === undefined || v.trim() === "" ? undefined : v;
  } catch {
    return undefined; // no env permission: the defaults apply
  }
}

/** One setting from its flag, else its variable; parsed and checked, or a usage error naming where it came from. */
function setting(
  ctx: Pick<CommandContext, "flags">,
  flag: string,
  env: string,
  parse: (text: string) => number | null,
  expected: string,
): number | undefined {
  const raw = typeof ctx.flags[flag] === "string" ? ctx.flags[flag] as string : envValue(env);
  if (raw === undefined) return undefined;
  const where = typeof ctx.flags[flag] === "string" ? `--${flag}` : `the environment variable ${env}`;
  const v = parse(raw);
  if (v === null) throw new UsageError("invalid_value", `${where} takes ${expected}, got "${raw}"`);
  return v;
}

/**
 * The limits given on the command line or in the environment (`PROMPT_RUNNER_EVENTS_SEGMENT_SIZE`,
 * `PROMPT_RUNNER_KEEP_RUNS`, `PROMPT_RUNNER_KEEP_ARCHIVES_SIZE`); unset ones are left to the plane's defaults.
 */
export function eventLimits(ctx: Pick<CommandContext, "flags">): EventLimits {
  const out: EventLimits = {};
  const segment = setting(
    ctx,
    "events-segment-size",
    "PROMPT_RUNNER_EVENTS_SEGMENT_SIZE",
    (t) => {
      const n = parseSize(t);
      return n !== null && n >= 4096 ? n : null;
    },
    "a size of at least 4K (bytes, or with K, M, G: 64M)",
  );
  if (segment !== undefined) out.segmentBytes = segment;
  const runs = setting(
    ctx,
    "keep-runs",
    "PROMPT_RUNNER_KEEP_RUNS",
    (t) => (/^\s*\d+\s*$/.test(t) ? Number(t) : null),
    "a whole number of runs (0 or more)",
  );
  if (runs !== undefined) out.keepRuns = runs;
  const size = setting(
    ctx,
    "keep-archives-size",
    "PROMPT_RUNNER_KEEP_ARCHIVES_SIZE",
    parseSize,
    "a size (bytes, or with K, M, G: 2G)",
  );
  if (size !== undefined) out.keepBytes = size;
  return out;
}
