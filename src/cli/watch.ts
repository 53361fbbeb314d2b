/**
 * `watch [TARGET] [--every DUR] [--for DUR] [--require-running] [--require-progress] [--progress-timeout DUR]
 * [--once] [--json]` (docs/reference/cli.md §3.5): periodic health samples of the status rollup for unattended runs. A violation
 * ends it with exit 1; samples are also appended to `<store>/acceptance/watch-<ts>.jsonl`.
 */
import type { CommandContext, CommandSpec } from "./frame.ts";
import { UsageError } from "../errors.ts";
import { type StatusRollup, statusRollup } from "../control/rollup.ts";
import { appendStoreLine, ensureStoreDir } from "../util/safe_fs.ts";
import { fileStamp, formatAge, parseDuration } from "../util/time.ts";
import { resolveTarget } from "./target.ts";

/** Why a watch ends with exit 1. */
export type WatchViolation = "unhealthy" | "not_running" | "progress_stale";

/** One sample (also the JSON line and the acceptance record). */
export interface WatchSample {
  at: string;
  target: string;
  state: StatusRollup["state"];
  healthy: boolean | null;
  prompt: string | null;
  seq: number;
  run_id: string | null;
  last_progress_at: string | null;
  /** Milliseconds since the last progress, or null when nothing progressed yet. */
  progress_age_ms: number | null;
  violation: WatchViolation | null;
}

/** The watch policy from the flags. */
export interface WatchPolicy {
  requireRunning: boolean;
  /**
   * Watching until the run ends (the default `--for`, without `--once`): a run that ends `completed` is the end being
   * waited for, not a `not_running` violation (docs/status.md). With an explicit `--for` or `--once`,
   * `--require-running` keeps its plain meaning: any state but `running` is a violation.
   */
  untilEnd?: boolean;
  requireProgress: boolean;
  progressTimeoutMs: number;
}

/** Default `--every`. */
const DEFAULT_EVERY_MS = 10 * 60_000;
/** Default `--progress-timeout`. */
const DEFAULT_PROGRESS_TIMEOUT_MS = 30 * 60_000;

/** The first violation of a sample under a policy, or null (pure). */
export function watchViolation(
  s: Pick<WatchSample, "state" | "healthy" | "progress_age_ms">,
  p: WatchPolicy,
): WatchViolation | null {
  if (s.healthy === false) return "unhealthy";
  if (p.requireRunning && s.state !== "running" && !(p.untilEnd === true && s.state === "completed")) {
    return "not_running";
  }
  if (p.requireProgress && (s.progress_age_ms === null || s.progress_age_ms > p.progressTimeoutMs)) {
    return "progress_stale";
  }
  return null;
}

/** Build a sample from a rollup (pure). */
export function watchSample(r: StatusRollup, p: WatchPolicy, nowMs: number): WatchSample {
  const last = r.last_progress_at ? Date.parse(r.last_progress_at) : NaN;
  const base = {
    at: new Date(nowMs).toISOString(),
    target: r.target,
    state: r.state,
    healthy: r.healthy,
    prompt: r.current?.prompt_id ?? null,
    seq: r.control?.last_seq ?? 0,
    run_id: r.run_id,
    last_progress_at: r.last_progress_at,
    progress_age_ms: Number.isFinite(last) ? Math.max(0, nowMs - last) : null,
  };
  return { ...base, violation: watchViolation(base, p) };
}

/** The human line `WATCH <ts> target=… state=… healthy=… prompt=… seq=… progress_age=…` (pure). */
export function watchLine(s: WatchSample): string {
  const ts = s.at.replace(/\.\d{3}Z$/, "Z");
  const age = s.progress_age_ms === null ? "-" : formatAge(s.progress_age_ms);
  const healthy = s.healthy === null ? "null" : String(s.healthy);
  const tail = s.violation ? ` violation=${s.violation}` : "";
  return `WATCH ${ts} target=${s.target} state=${s.state} healthy=${healthy} prompt=${s.prompt ?? "-"} seq=${s.seq} ` +
    `progress_age=${age}${tail}`;
}

/** Whether watching ends after this sample because the run is over (or never started). */
function runOver(s: Pick<WatchSample, "state">): boolean {
  return s.state !== "running";
}

function duration(ctx: CommandContext, name: string, fallback: number | null): number | null {
  const v = ctx.flags[name];
  if (typeof v !== "string") return fallback;
  const ms = parseDuration(v);
  if (ms === null || ms <= 0) {
    throw new UsageError("invalid_value", `--${name} does not take "${v}"; expected e.g. 30s`);
  }
  return ms;
}

const VIOLATION_TEXT: Record<WatchViolation, string> = {
  unhealthy: "the run is unhealthy",
  not_running: "the run is not running",
  progress_stale: "nothing progressed within --progress-timeout",
};

/** The command. */
export const spec: CommandSpec = {
  usage: "[TARGET] [--every DUR] [--for DUR] [--require-running] [--require-progress] [--progress-timeout DUR] " +
    "[--once] [--json]",
  description: "Sample the status rollup every --every (default 10m) for --for (default: until the run ends) and " +
    "print one WATCH line per sample. A violation (unhealthy; not running with --require-running; no progress " +
    "for --progress-timeout with --require-progress) ends it with exit 1. Watching until the run ends, a run that " +
    "ends completed exits 0 even with --require-running; with an explicit --for (or --once) a run that is not " +
    "running is a violation. Samples are appended to <store>/acceptance/watch-<ts>.jsonl.",
  flags: {
    every: { type: "string", value: "DUR", description: "time between samples (default 10m)" },
    for: { type: "string", value: "DUR", description: "how long to watch (default: until the run ends)" },
    "require-running": {
      type: "boolean",
      description: "not running is a violation (until the run ends, a completed run is not)",
    },
    "require-progress": { type: "boolean", description: "no progress for --progress-timeout is a violation" },
    "progress-timeout": { type: "string", value: "DUR", description: "allowed time without progress (default 30m)" },
    once: { type: "boolean", description: "take one sample and exit" },
    workspace: { type: "string", value: "M", description: "a workspace manifest or prepared workspace id" },
    packet: { type: "string", value: "DIR", description: "the packet directory" },
  },
  async run(ctx) {
    const every = duration(ctx, "every", DEFAULT_EVERY_MS)!;
    const forMs = duration(ctx, "for", null);
    const policy: WatchPolicy = {
      requireRunning: ctx.flags["require-running"] === true,
      untilEnd: forMs === null && ctx.flags.once !== true,
      requireProgress: ctx.flags["require-progress"] === true,
      progressTimeoutMs: duration(ctx, "progress-timeout", DEFAULT_PROGRESS_TIMEOUT_MS)!,
    };
    const t = await resolveTarget(ctx.positionals, ctx.flags, { idsFollow: false });
    const record = `${t.storeRoot}/acceptance/watch-${fileStamp()}.jsonl`;
    const started = Date.now();
    for (;;) {
      const r = await statusRollup({ target: t.label, packetDir: t.packetDir, storeRoot: t.storeRoot, kind: t.kind });
      const s = watchSample(r, policy, Date.now());
      try {
        await ensureStoreDir(t.storeRoot, `${t.storeRoot}/acceptance`);
        await appendStoreLine(record, JSON.stringify(s));
      } catch (e) {
        ctx.stderr.write(`warning: could not record the sample in ${record}: ${(e as Error).message}\n`);
      }
      ctx.stdout.write((ctx.json ? JSON.stringify(s) : watchLine(s)) + "\n");
      if (s.violation) {
        ctx.stderr.write(`error: watch violation ${s.violation}: ${VIOLATION_TEXT[s.violation]} (${t.label})\n`);
        return 1;
      }
      if (ctx.flags.once === true) return 0;
      if (forMs === null && runOver(s)) return 0;
      const left = forMs === null ? Infinity : started + forMs - Date.now();
      if (left <= 0) return 0;
      await new Promise((res) => setTimeout(res, Math.min(every, left)));
    }
  },
};
