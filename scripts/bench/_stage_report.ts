/**
 * Where control requests' time went, from a stage trace (src/util/stage_trace.ts) written by the `control` case and
 * its runners on one clock: `PROMPT_RUNNER_STAGE_TRACE=<file> deno task bench control`, then
 * `deno run -A scripts/bench/_stage_report.ts <file>`. Per request, from the bench's call start: the call, the runner's
 * watch callback, the scan that took it, the claim, the log entry appended, the bench's wake-up and its sight of the
 * entry; and what the runner's stream loop was doing meanwhile (its longest stretch without a turn of the event loop,
 * and its longest wait for one). Prints percentiles of every stage and the slowest requests in full.
 */
import { percentile, round } from "./_harness.ts";

/** One request's stages, ms from its call's start (NaN when the trace has no such stage). */
export interface RequestStages {
  request: string;
  /** The bench's case (`full_watch`, `real_run`, …). */
  label: string;
  total: number;
  stages: Record<string, number>;
}

const KEYED = [
  "bench_call_end",
  "watch",
  "listed",
  "claimed",
  "read",
  "decided",
  "appended",
  "bench_woken",
  "bench_seen",
] as const;

function lowerBound(xs: number[], x: number): number {
  let lo = 0, hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Parse a trace and give each fully traced request its stages. */
export function requestStages(text: string): RequestStages[] {
  const byKey = new Map<string, Map<string, number>>();
  const scans: number[] = [], yields: number[] = [], turns: number[] = [];
  const labels = new Map<string, string>();
  for (const line of text.split("\n")) {
    const [at, stage, key] = line.split(" ");
    const t = Number(at);
    if (!stage || !Number.isFinite(t)) continue;
    if (stage === "scan") scans.push(t);
    else if (stage === "yield") yields.push(t);
    else if (stage === "turn") turns.push(t);
    else if (key && key !== "-" && stage.startsWith("bench_case_")) labels.set(key, stage.slice(11));
    else if (key && key !== "-") {
      const name = stage.startsWith("watch_") ? "watch" : stage.startsWith("bench_woken_") ? "bench_woken" : stage;
      const m = byKey.get(key) ?? new Map<string, number>();
      if (!m.has(name)) m.set(name, t); // the first sight of each stage
      byKey.set(key, m);
    }
  }
  for (const xs of [scans, yields, turns]) xs.sort((a, b) => a - b);
  const out: RequestStages[] = [];
  for (const [request, m] of byKey) {
    const t0 = m.get("bench_call_start");
    const seen = m.get("bench_seen");
    if (t0 === undefined || seen === undefined) continue;
    const stages: Record<string, number> = {};
    for (const k of KEYED) stages[k] = (m.get(k) ?? NaN) - t0;
    const watch = m.get("watch");
    if (watch !== undefined) {
      const s = scans[lowerBound(scans, watch)];
      stages.scan_after_watch = s === undefined ? NaN : s - t0;
    }
    // The stream loop between the call's end and the claim: its longest run without a turn, its longest wait for one.
    const from = m.get("bench_call_end") ?? t0, to = m.get("claimed") ?? seen;
    let busy = 0, wait = 0;
    for (let i = Math.max(0, lowerBound(turns, from) - 1); i < turns.length && turns[i]! < to; i++) {
      const y = yields[lowerBound(yields, turns[i]!)];
      if (y !== undefined) busy = Math.max(busy, Math.min(y, to) - Math.max(turns[i]!, from));
    }
    for (let i = Math.max(0, lowerBound(yields, from) - 1); i < yields.length && yields[i]! < to; i++) {
      const t = turns[lowerBound(turns, yields[i]!)];
      if (t !== undefined) wait = Math.max(wait, Math.min(t, to) - Math.max(yields[i]!, from));
    }
    stages.loop_longest_busy = turns.length ? busy : NaN;
    stages.loop_longest_turn_wait = yields.length ? wait : NaN;
    out.push({ request, label: labels.get(request) ?? "?", total: seen - t0, stages });
  }
  return out.sort((a, b) => a.total - b.total);
}

/** Each seal of `events.jsonl` in the trace: its fsync and its whole duration, ms, in the order they happened. */
export function sealSpans(text: string): { fsync: number; total: number }[] {
  const byPid = new Map<string, { start: number; fsync: number }>();
  const out: { at: number; fsync: number; total: number }[] = [];
  for (const line of text.split("\n")) {
    const [at, stage, , pid = "?"] = line.split(" ");
    const t = Number(at);
    if (!Number.isFinite(t)) continue;
    if (stage === "seal") byPid.set(pid, { start: t, fsync: NaN });
    else if (stage === "sealed_fsync" && byPid.has(pid)) byPid.get(pid)!.fsync = t;
    else if (stage === "sealed" && byPid.has(pid)) {
      const s = byPid.get(pid)!;
      byPid.delete(pid);
      out.push({ at: s.start, fsync: s.fsync - s.start, total: t - s.start });
    }
  }
  return out.sort((a, b) => a.at - b.at).map(({ fsync, total }) => ({ fsync, total }));
}

function fmt(x: number): string {
  return Number.isFinite(x) ? round(x, 2).toFixed(2).padStart(8) : "       -";
}

/** The report's text. */
export function stageReport(reqs: RequestStages[], slowest: number): string {
  if (reqs.length === 0) return "no traced request (was PROMPT_RUNNER_STAGE_TRACE set for the bench?)\n";
  const names = ["total", ...Object.keys(reqs[0]!.stages)];
  const col = (r: RequestStages, n: string) => n === "total" ? r.total : r.stages[n]!;
  const rows = [`${reqs.length} requests; ms from the call's start (loop_*: ms spans of the runner's stream loop)`];
  rows.push(`${"stage".padEnd(24)}     p50      p90      p99      max`);
  for (const n of names) {
    const xs = reqs.map((r) => col(r, n)).filter(Number.isFinite);
    if (xs.length === 0) continue;
    rows.push(
      `${n.padEnd(24)}${fmt(percentile(xs, 50))} ${fmt(percentile(xs, 90))} ${fmt(percentile(xs, 99))} ${
        fmt(Math.max(...xs))
      }`,
    );
  }
  rows.push("", `the slowest ${slowest}:`, names.map((n) => n.slice(0, 8).padStart(8)).join(" "));
  for (const r of reqs.slice(-slowest)) rows.push(names.map((n) => fmt(col(r, n))).join(" "));
  return rows.join("\n") + "\n";
}

if (import.meta.main) {
  const text = await Deno.readTextFile(Deno.args[0]!);
  const seals = sealSpans(text);
  if (seals.length > 0) {
    console.log(
      `seals of events.jsonl (fsync / all, ms): ${
        seals.map((s) => `${fmt(s.fsync).trim()} / ${fmt(s.total).trim()}`).join(", ")
      }\n`,
    );
  }
  const all = requestStages(text);
  for (const label of new Set(all.map((r) => r.label))) {
    const reqs = all.filter((r) => r.label === label);
    console.log(`--- ${label}\n${stageReport(reqs, Math.max(5, Math.ceil(reqs.length / 100)))}`);
  }
}
