/** `prompt_runner list [TARGET] [--json]` (docs/reference/cli.md §3.2, docs/reference/runner.md §11): prompts with their progress. */
import type { CommandSpec } from "./frame.ts";
import { resolveTarget, TARGET_FLAGS } from "./target.ts";
import { loadPacket } from "../packet/load.ts";
import type { Packet, Prompt } from "../packet/mod.ts";
import { type ProgressMap, readProgressAndCommits, suffixNamesCommits } from "../store/progress.ts";
import { escapeControl as esc } from "../util/escape.ts";

/** Display form of a progress suffix: 8-char sha, named suffix, or `N repos`. */
function shortSuffix(suffix: string | null): string {
  if (!suffix) return "";
  if (suffix.includes("=")) return `${suffix.split(",").length} repos`;
  if (/^[0-9a-f]{7,40}$/i.test(suffix)) return suffix.slice(0, 8);
  return suffix;
}

function targetsOf(packet: Packet, p: Prompt): string[] {
  if (p.targets.length > 0) return p.targets;
  return packet.defaultRepo ? [packet.defaultRepo.name] : [];
}

/**
 * The commit a completed prompt stands on: its latest completion's suffix when that names commits, else the latest
 * earlier one that does (a rerun that changed nothing keeps the commit of the work it verified; docs/status.md).
 */
function commitOf(rec: { status: string; suffix: string | null } | undefined, last: string | undefined): string | null {
  if (rec?.status !== "completed") return null;
  return suffixNamesCommits(rec.suffix) ? rec.suffix : last ?? null;
}

/** The suffix column: the commit, and the latest run's outcome when that run made no commit (`9f3c2a17 · rerun: no_changes`). */
function suffixText(rec: { status: string; suffix: string | null } | undefined, last: string | undefined): string {
  if (rec?.status !== "completed") return "";
  const commit = commitOf(rec, last);
  if (commit === rec.suffix || commit === null) return shortSuffix(rec.suffix);
  return `${shortSuffix(commit)} · rerun: ${rec.suffix ?? "no commit"}`;
}

/**
 * The human listing (docs/reference/runner.md §11); `label` names the packet as every command does. Packet and store
 * text is shown with its control characters escaped, before it is padded or coloured.
 */
function renderList(
  packet: Packet,
  progress: ProgressMap,
  commits: Map<string, string>,
  color: boolean,
  label: string,
): string {
  const paint = (code: string, s: string) => (color ? `\x1b[${code}m${s}\x1b[0m` : s);
  const project = packet.defaultRepo?.path || packet.dir;
  const lines = [`${esc(label)} (${esc(project)})`];
  const names = new Map(packet.prompts.map((p) => [p, esc(p.name)]));
  const width = Math.max(0, ...[...names.values()].map((n) => n.length));
  const phases = [...new Set(packet.prompts.map((p) => p.phase))].sort((a, b) => a - b);
  for (const phase of phases) {
    const label = packet.phases[String(phase)];
    lines.push(label ? `Phase ${phase}: ${esc(label)}` : `Phase ${phase}`);
    for (const p of packet.prompts.filter((q) => q.phase === phase)) {
      const rec = progress.get(p.id);
      const marker = rec?.status === "completed"
        ? paint("32", "[x]")
        : rec?.status === "failed"
        ? paint("31", "[!]")
        : "[ ]";
      const targets = targetsOf(packet, p);
      let line = `  ${marker} ${esc(p.id)}  ${names.get(p)!.padEnd(width)}  (${p.sp} SP)`;
      if (targets.length > 0) line += ` [${esc(targets.join(", "))}]`;
      const suffix = suffixText(rec, commits.get(p.id));
      if (suffix) line += `  ${esc(suffix)}`;
      lines.push(line.trimEnd());
    }
  }
  const known = new Set(packet.prompts.map((p) => p.id));
  const vanished = [...progress.entries()].filter(([id]) => !known.has(id));
  for (const [id, rec] of vanished) {
    const marker = rec.status === "completed" ? paint("32", "[x]") : paint("31", "[!]");
    lines.push(`  ${marker} ${esc(id)}  (missing)`);
  }
  const done = packet.prompts.filter((p) => progress.get(p.id)?.status === "completed").length;
  lines.push(`${done}/${packet.prompts.length} completed`);
  return lines.join("\n") + "\n";
}

/** The `--json` document of docs/reference/cli.md §3.2. */
function listJson(packet: Packet, progress: ProgressMap, commits: Map<string, string>): Record<string, unknown> {
  return {
    packet: packet.name,
    prompts: packet.prompts.map((p) => {
      const rec = progress.get(p.id);
      return {
        id: p.id,
        name: p.name,
        phase: p.phase,
        sp: p.sp,
        targets: targetsOf(packet, p),
        status: rec?.status ?? "pending",
        commit: commitOf(rec, commits.get(p.id)),
        suffix: rec?.status === "completed" ? rec.suffix : null,
        file: p.relFile,
      };
    }),
  };
}

/** The `list` command. */
export const spec: CommandSpec = {
  usage: "[TARGET] [--json]",
  description: "List the packet's prompts by phase with their progress: [x] completed, [!] failed, [ ] pending.",
  flags: { ...TARGET_FLAGS },
  async run(ctx) {
    const target = await resolveTarget(ctx.positionals, ctx.flags, { idsFollow: false });
    // The progress file is read while the packet loads; a packet error still wins over a progress error.
    const progressRead = readProgressAndCommits(target.storeRoot);
    progressRead.catch(() => {/* awaited below */});
    const packet = await loadPacket(target.packetDir);
    const { latest, commits } = await progressRead;
    if (ctx.json) ctx.stdout.write(JSON.stringify(listJson(packet, latest, commits)) + "\n");
    else ctx.stdout.write(renderList(packet, latest, commits, ctx.color, target.label));
    return 0;
  },
};
