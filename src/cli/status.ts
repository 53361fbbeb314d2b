/** `status [TARGET] [--json] [--watch]` (docs/reference/control-plane.md §13, docs/reference/workspace.md §8): the rollup report. */
import { agentRows } from "./control/status.ts";
import { type CommandContext, type CommandSpec, untilInterrupted } from "./frame.ts";
import { resolveTarget } from "./target.ts";
import { type StatusRollup, statusRollup, watchStatus } from "../control/mod.ts";
import { attemptPhrase, plural, timelineLine, tokenPhrase } from "../render/status_words.ts";
import { UsageError } from "../errors.ts";
import { describeLeftovers } from "../control/leftovers.ts";
import { type Paint, painter, stripAnsi } from "../render/ansi.ts";
import { formatAge, formatDuration, parseDuration } from "../util/time.ts";
import { escapeControl as esc } from "../util/escape.ts";

/** `text`'s words, control characters escaped, wrapped at `width` columns; continuation lines start with `indent`. */
function wrap(text: string, width: number, indent: string): string {
  const words = text.split(/\s+/).map(esc);
  const lines: string[] = [];
  let cur = "";
  for (const w of words) {
    if (cur && cur.length + 1 + w.length > width) {
      lines.push(cur);
      cur = w;
    } else cur = cur ? `${cur} ${w}` : w;
  }
  if (cur) lines.push(cur);
  return lines.join(`\n${indent}`);
}

/** The header state word: `FAILED`, `NOT STARTED`. */
function stateWord(state: StatusRollup["state"]): string {
  return state.replace("_", " ").toUpperCase();
}

/**
 * The human report (docs/reference/workspace.md §8.1, vocabulary in docs/status.md). Text from the packet and the
 * store (names, ids, reasons, errors) is shown with its control characters escaped: a `row` value as one line, a
 * `wrapped` one word by word.
 */
export function formatStatus(r: StatusRollup, paint: Paint, nowMs = Date.now()): string {
  const stateColor = r.state === "running" || r.state === "completed"
    ? "green"
    : r.state === "failed" || r.state === "abandoned"
    ? "red"
    : "yellow";
  const lines = [`  ${paint(stateColor, esc(`${r.target} — ${stateWord(r.state)} · ${r.health}`))}`];
  // Labels pad to 11 columns; the longest ("last prompt") still gets one separating space.
  const shown = (label: string, text: string) => lines.push(`  ${paint("dim", label.padEnd(10) + " ")}${text}`);
  const row = (label: string, value: string) => shown(label, esc(value));
  const indent = " ".repeat(13);
  const wrapped = (label: string, text: string) => shown(label, wrap(text, 88, indent));
  if (r.attention) wrapped("attention", r.attention);
  const p = r.progress;
  if (p.selected > 1) {
    const parts = [`${p.completed}/${p.selected} prompts complete`];
    for (const k of ["running", "failed", "blocked", "pending"] as const) if (p[k] > 0) parts.push(`${p[k]} ${k}`);
    row("progress", parts.join(" · "));
  }
  const c = r.current;
  if (c) {
    const label = r.state === "running" ? "current" : r.state === "completed" ? "last prompt" : "stopped at";
    const pos = p.current_position !== null && p.selected > 0 ? ` · ${p.current_position} of ${p.selected}` : "";
    row(label, `${c.prompt_id}${c.prompt_name ? ` — ${c.prompt_name}` : ""}${pos}`);
    if (c.attempt !== null && (c.attempt > 1 || (c.mode !== null && c.mode !== "run"))) {
      row("attempt", attemptPhrase(c.attempt, c.mode));
    }
    if (c.provider) row("provider", `${c.provider}${c.model ? ` / ${c.model}` : ""}`);
  }
  if (r.control) {
    const status = r.state === "running" ? "running" : "completed";
    for (const [label, value] of agentRows({ ...r.control, status })) row(label, value);
  }
  const a = r.activity;
  if (a && r.state !== "not_started") {
    const parts = [`${formatDuration(a.prompt_elapsed_ms)} this prompt`];
    if (a.updated_at) parts.push(`updated ${formatAge(nowMs - Date.parse(a.updated_at))} ago`);
    if (a.tool_count > 0) parts.push(`${plural(a.tool_count, "tool")} this attempt`);
    if (a.event_count > 0) parts.push(`${plural(a.event_count, "event")} this run`);
    row("activity", parts.join(" · "));
    const tokens = tokenPhrase(a);
    if (tokens) row("tokens", tokens);
  }
  const timeline = r.timeline ?? [];
  timeline.forEach((t, i) => row(i === 0 ? "attempts" : "", timelineLine(t)));
  const s = r.steering;
  if (s && s.used > 0) {
    row("steering", `${s.used} of ${s.max} steers used on ${s.prompt_id}${s.pending ? ` · ${s.pending} pending` : ""}`);
  }
  for (const am of r.amendments) {
    row(
      "contract",
      `${am.prompt_id} amended ${am.count} ${am.count === 1 ? "time" : "times"} (${am.phases.join(", ")})`,
    );
  }
  for (const w of r.preserved ?? []) row("preserved", `${w.prompt_id}: ${w.ref} (${w.repos.join(", ")})`);
  for (const c of r.commit_pending ?? []) {
    const where = c.repos.map((x) => `${x.repo}: ${x.paths} path(s)`).join(", ");
    wrapped("commit", `${c.prompt_id} needs a commit: its verified work (${where}) waits for its next run`);
  }
  if ((r.vacuous ?? []).length > 0) {
    row("vacuous", `${r.vacuous.join(", ")} (contract passed before any session ran)`);
  }
  if ((r.state === "failed" || r.state === "abandoned") && p.reason) wrapped("reason", p.reason);
  if (p.last_verification) row("last check", p.last_verification);
  if (p.error) row("error", p.error);
  const l = r.lease;
  const who = l.pid !== null && l.state !== "down" ? ` (pid ${l.pid}${l.hostname ? ` on ${l.hostname}` : ""})` : "";
  const mode = r.service.unit ? `systemd unit ${r.service.unit}` : r.service.mode;
  row("service", `${mode} · process ${l.state}${who}`);
  if (r.leftovers) wrapped("leftovers", describeLeftovers(r.leftovers));
  return lines.join("\n") + "\n";
}

/** An environment variable, or undefined when it is unset or may not be read. */
function envText(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
}

function consoleSize(): { columns: number; rows: number } {
  try {
    return Deno.consoleSize();
  } catch {
    return { columns: 80, rows: 24 };
  }
}

/** Terminal rows `text` takes at `columns` (a long line wraps). */
export function rowsOf(text: string, columns: number): number {
  const width = Math.max(1, columns);
  return text.split("\n").slice(0, -1).reduce(
    (n, line) => n + Math.max(1, Math.ceil([...stripAnsi(line)].length / width)),
    0,
  );
}

/**
 * What moves the cursor back over the `drawn` rows of the previous report and clears them: up and erase below, or the
 * whole screen when the report no longer fits (nothing before the first report).
 */
export function redrawFrom(drawn: number, rows: number): string {
  if (drawn === 0) return "";
  return drawn < rows ? `\x1b[${drawn}A\r\x1b[J` : "\x1b[H\x1b[2J";
}

/** The command. */
export const spec: CommandSpec = {
  usage: "[TARGET] [--json] [--watch [--interval DUR] | --summary]",
  description:
    "The rollup report: run state and health, selected-prompt progress, the current attempt, last verification, " +
    "provider activity, steering, amendments and the process lease. Exit 0 even when unhealthy or not started.",
  flags: {
    workspace: { type: "string", value: "M", description: "a workspace manifest or prepared workspace id" },
    packet: { type: "string", value: "DIR", description: "the packet directory" },
    watch: {
      type: "boolean",
      description: "until the run ends: redraw the report in place on a terminal, print it on change elsewhere",
    },
    interval: { type: "string", value: "DUR", description: "polling interval for --watch (default 1s)" },
    summary: { type: "boolean", description: "the run-summary table (or document, with --json) of the current run" },
  },
  async run(ctx: CommandContext): Promise<number> {
    const t = await resolveTarget(ctx.positionals, ctx.flags, { idsFollow: false });
    if (ctx.flags.summary === true) return await (await import("./status_summary.ts")).printRunSummary(ctx, t);
    const opts = { target: t.label, packetDir: t.packetDir, storeRoot: t.storeRoot, kind: t.kind };
    const paint = painter(ctx.color);
    if (ctx.flags.watch !== true) {
      const r = await statusRollup(opts);
      if (t.kind === "workspace" && t.workspace) {
        // Workspace targets add the clone facts (docs/reference/workspace.md §8.2), read from files: status may not spawn git.
        const { loadWorkspaceManifest } = await import("../workspace/manifest.ts");
        const { withCloneLines, workspaceSectionFromFiles } = await import("../workspace/status.ts");
        const section = await workspaceSectionFromFiles(await loadWorkspaceManifest(t.workspace.manifest));
        ctx.stdout.write(
          ctx.json
            ? JSON.stringify({ ...r, workspace: section }) + "\n"
            : withCloneLines(formatStatus(r, paint), section, (s) => paint("dim", s)),
        );
        return 0;
      }
      ctx.stdout.write(ctx.json ? JSON.stringify(r) + "\n" : formatStatus(r, paint));
      return 0;
    }
    const intervalText = typeof ctx.flags.interval === "string" ? ctx.flags.interval : "1s";
    const intervalMs = parseDuration(intervalText);
    if (intervalMs === null || intervalMs <= 0) {
      throw new UsageError("invalid_value", `--interval does not take "${intervalText}"; expected e.g. 500ms, 2s`);
    }
    // A terminal redraws the report in place on every poll (its clocks move); elsewhere a report is appended only
    // when something changed, separated by a blank line (docs/status.md).
    const live = !ctx.json && ctx.stdout.isTerminal && envText("TERM") !== "dumb";
    await untilInterrupted(async (signal) => {
      let first = true;
      let drawn = 0;
      let shown = "";
      for await (const r of watchStatus(opts, { intervalMs, signal, ticks: live })) {
        if (ctx.json) ctx.stdout.write(JSON.stringify(r) + "\n");
        else if (live) {
          const text = formatStatus(r, paint);
          const size = consoleSize();
          ctx.stdout.write(redrawFrom(drawn, size.rows) + text);
          drawn = rowsOf(text, size.columns);
        } else {
          // Appended only when more than the clocks changed.
          const still = r.activity ? { ...r, activity: { ...r.activity, prompt_elapsed_ms: 0, updated_at: null } } : r;
          const key = formatStatus(still, paint, 0);
          if (key !== shown) ctx.stdout.write((first ? "" : "\n") + formatStatus(r, paint));
          shown = key;
          first = false;
        }
      }
    });
    return 0;
  },
};
