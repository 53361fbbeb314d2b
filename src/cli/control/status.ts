/** `control status [TARGET] [--json]` (docs/reference/control-plane.md §13): the live snapshot of the current run. */
import type { CommandContext, CommandSpec } from "../frame.ts";
import { type Snapshot, snapshot } from "../../control/mod.ts";
import { formatDuration } from "../../util/time.ts";
import { controlTarget, paintFor, printJson, runRef, TARGET_FLAGS } from "./_common.ts";
import type { Paint } from "../../render/mod.ts";
import { attemptPhrase, tokenPhrase } from "../../render/status_words.ts";
import { escapeControl as esc } from "../../util/escape.ts";

/** The lease phrase of the status line: `lease up (pid 4242 on build-01)`. */
function leasePhrase(lease: Snapshot["lease"]): string {
  const who = lease.pid !== null ? ` (pid ${lease.pid}${lease.hostname ? ` on ${lease.hostname}` : ""})` : "";
  return `lease ${lease.state}${lease.state === "down" ? "" : who}`;
}

/**
 * Agent-control rows (docs/agent-control.md §4): the iteration only when loop semantics apply, the cursor while a
 * provider runs (labelled `previous iteration` or `earlier attempt` while no fresh progress replaced it), the last
 * directive.
 */
export function agentRows(s: Pick<Snapshot, "agent_control" | "session_live" | "status">): [string, string][] {
  const a = s.agent_control;
  if (!a) return [];
  const rows: [string, string][] = [];
  if (a.loop) rows.push(["iteration", `${a.iteration} of ${a.max_iterations}`]);
  const p = a.progress;
  if (p && s.status === "running") {
    const unit = p.unit ? ` · unit ${p.unit}` : "";
    // Retained progress is never presented as fresh (the sdk's label): from an earlier iteration, or an earlier attempt.
    const stale = !p.stale ? "" : p.iteration < a.iteration ? " · previous iteration" : " · earlier attempt";
    rows.push(["cursor", `${p.cursor}${unit}${stale} — ${p.summary}`]);
  }
  if (a.last_directive) {
    const d = a.last_directive;
    rows.push(["directive", `${d.action} ${d.outcome}${d.reason ? ` — ${d.reason}` : ""}`]);
  }
  return rows;
}

/**
 * The human report of a snapshot (docs/reference/control-plane.md §13, vocabulary in docs/status.md); `label` names
 * the target as every command does (the packet directory's name or the workspace id).
 */
export function formatControlStatus(s: Snapshot, paint: Paint, nowMs = Date.now(), label?: string): string {
  // A live run's clocks keep going between snapshot writes.
  const since = (iso: string | null, stored: number) => {
    const t = iso ? Date.parse(iso) : NaN;
    return s.status === "running" && Number.isFinite(t) ? Math.max(stored, nowMs - t) : stored;
  };
  const rows: [string, string][] = [];
  rows.push(["status", `${s.status} · ${leasePhrase(s.lease)}`]);
  rows.push(["stage", s.stage]);
  if (s.prompt_id !== null) {
    const pos = s.prompt_position > 0 && s.selected_count > 0 ? ` (${s.prompt_position} of ${s.selected_count})` : "";
    rows.push(["prompt", `${s.prompt_id}${s.prompt_name ? ` — ${s.prompt_name}` : ""}${pos}`]);
  }
  if (s.attempt !== null) {
    rows.push(["attempt", `${attemptPhrase(s.attempt, s.mode)}${s.stream ? `, stream ${s.stream}` : ""}`]);
  }
  if (s.provider) rows.push(["provider", `${s.provider}${s.model ? ` / ${s.model}` : ""}`]);
  rows.push(...agentRows(s));
  rows.push([
    "elapsed",
    `${formatDuration(since(s.run_started_at, s.elapsed_ms))} run${
      s.prompt_id !== null ? `, ${formatDuration(since(s.prompt_started_at, s.prompt_elapsed_ms))} this prompt` : ""
    }`,
  ]);
  rows.push(["tools", `${s.tool_count} this attempt`]);
  rows.push(["tokens", tokenPhrase(s) ?? "none reported"]);
  rows.push(["steers", `${s.steer_count} of ${s.max_steers} used, ${s.steers_pending} pending`]);
  rows.push(["events", `${s.event_count} this run`]);
  rows.push([
    "view",
    `log_mode=${s.view.log_mode} tool_output=${s.view.tool_output} thinking=${s.view.thinking} diff=${s.view.diff}`,
  ]);
  if (s.reason) rows.push(["reason", s.reason]);
  if (s.updated_at) rows.push(["updated", s.updated_at]);
  // Every value read from the snapshot (names, ids, reasons) is shown as one line, its control characters escaped.
  const lines = ["", `  ${paint("bold", esc(label || s.packet || "run"))}  ${esc(s.run_id)}`, ""];
  for (const [label, value] of rows) lines.push(`  ${paint("dim", label.padEnd(10))}${esc(value)}`);
  lines.push("");
  return lines.join("\n") + "\n";
}

/** The command. */
export const spec: CommandSpec = {
  usage: "[TARGET] [--json]",
  description: "The live snapshot of the current run: status, lease, prompt, attempt, counters and view.",
  flags: { ...TARGET_FLAGS },
  async run(ctx: CommandContext): Promise<number> {
    const target = await controlTarget(ctx, { idsFollow: false });
    const snap = await snapshot(await runRef(target));
    if (ctx.json) printJson(ctx, snap);
    else ctx.stdout.write(formatControlStatus(snap, paintFor(ctx), Date.now(), target.label));
    return 0;
  },
};
