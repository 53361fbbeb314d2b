/** `prompt_runner plan [TARGET] [IDS…]` (docs/reference/runner.md §11, docs/reference/cli.md §3.1): what `run` would do, without doing it. */
import type { CommandSpec } from "./frame.ts";
import { resolveTarget } from "./target.ts";
import { OVERRIDE_FLAGS, parseOverrides, parseSelection, SELECTION_FLAGS, TARGET_FLAGS } from "./selection_flags.ts";
import { inspectPacket, packetOf } from "../packet/load.ts";
import { selectPrompts } from "../packet/select.ts";
import { packetFingerprint } from "../packet/fingerprint.ts";
import { amendedFingerprint } from "../run/amended_from.ts";
import { readCurrentRunRecord, type ResumeDecision, resumeDecision, runPidPresent } from "../store/run_record_read.ts";
import type { Packet, Prompt } from "../packet/mod.ts";
import { type RunPermissions, runPermissionsFor } from "../run/run_permissions.ts";
import { readState } from "../run/state_read.ts";
import { pendingOf } from "../run/state_doc.ts";
import { storePaths } from "../store/paths.ts";
import { escapeControl as esc } from "../util/escape.ts";
import { lintRefusal } from "../run/lint_gate.ts";
import type { PacketError } from "../errors.ts";

/** Everything `plan` shows. */
export interface PlanView {
  packet: Packet;
  /** How every command names the target: the packet directory's base name, or the workspace id. */
  label: string;
  storeRoot: string;
  selected: Prompt[];
  run: ResumeDecision;
  /** What `run` spawns: the exact `--allow-run` list. */
  permissions: RunPermissions;
  /** Selected prompts whose commit failed: run id of the failed commit (they commit their verified work first). */
  needsCommit: Map<string, string>;
  /** The lint refusal `run` would stop at (docs/lint.md), or null when it would run. */
  refused: PacketError | null;
}

function targetsOf(packet: Packet, p: Prompt): string[] {
  if (p.targets.length > 0) return p.targets;
  return packet.defaultRepo ? [packet.defaultRepo.name] : [];
}

/** The `run` line of the human plan. */
function runLine(run: ResumeDecision, refused: PacketError | null): string {
  if (refused) return "would refuse to run (exit 3; the refusal is below)";
  if (run.action === "resume") return `would resume ${run.runId}`;
  if (run.changedSince) return `would start a new run (packet changed since run ${run.changedSince})`;
  if (run.supersedes) return `would start a new run (superseding ${run.supersedes})`;
  return "would start a new run";
}

/** The human plan (docs/reference/runner.md §11): packet and store text with its control characters escaped. */
function renderPlan(v: PlanView): string {
  const { packet } = v;
  const ids = v.selected.map((p) => p.id);
  const o = packet.options;
  const lines = [
    `Plan for ${esc(v.label)} (${esc(packet.dir)})`,
    `  prompts   ${packet.prompts.length} in packet, ${ids.length} selected${
      ids.length ? ` (${esc(ids.join(", "))})` : ""
    }`,
    `  provider  ${esc(`${o.provider} / ${o.model}`)}`,
    `  store     ${esc(v.storeRoot)}`,
    `  run       ${esc(runLine(v.run, v.refused))}`,
    `  allow-run  ${esc(v.permissions.run.join(","))}`,
  ];
  const names = new Map(v.selected.map((p) => [p, esc(p.name)]));
  const width = Math.max(0, ...[...names.values()].map((n) => n.length));
  const targetText = (p: Prompt) => esc(`[${targetsOf(packet, p).join(", ")}]`);
  const tw = Math.max(0, ...v.selected.map((p) => targetText(p).length));
  for (const p of v.selected) {
    const targets = targetsOf(packet, p);
    let line = `  ${esc(p.id)}  ${names.get(p)!.padEnd(width)}  phase ${p.phase}`;
    const t = targets.length ? targetText(p) : "";
    if (t || p.dependsOn.length) line += `  ${t.padEnd(tw)}`;
    if (p.dependsOn.length) line += `   depends on ${esc(p.dependsOn.join(", "))}`;
    const failedIn = v.needsCommit.get(p.id);
    if (failedIn) line += `   needs a commit: verified in run ${esc(failedIn)}, its commit failed; committed first`;
    lines.push(line.trimEnd());
  }
  return lines.join("\n") + "\n";
}

/** The `--json` document of docs/reference/cli.md §3.1. */
function planJson(v: PlanView): Record<string, unknown> {
  return {
    packet: v.packet.name,
    store_root: v.storeRoot,
    selected: v.selected.map((p) => p.id),
    prompts: v.selected.map((p) => ({
      id: p.id,
      name: p.name,
      phase: p.phase,
      targets: targetsOf(v.packet, p),
      depends_on: p.dependsOn,
      provider: p.options.provider,
      model: p.options.model,
      ...(v.needsCommit.has(p.id) ? { needs_commit: true } : {}),
    })),
    run: { action: v.run.action, run_id: v.run.runId },
    permissions: { run: v.permissions.run },
    ...(v.refused
      ? { refused: { code: v.refused.code, message: v.refused.message, exit: v.refused.exit, ...v.refused.details } }
      : {}),
  };
}

/**
 * A read started now whose outcome is taken later: never an unhandled rejection in between (a packet that does not
 * load throws first, as it did before the read started), and the error, if any, thrown when the outcome is taken.
 */
function held<T>(read: Promise<T>): () => Promise<T> {
  const outcome = read.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  return async () => {
    const o = await outcome;
    if (!o.ok) throw o.error;
    return o.value;
  };
}

/**
 * `run`'s refusal of a prompt whose own session edited its contract (src/run/contract_guard.ts), or null. Its code is
 * loaded only when the store holds such a record.
 */
async function contractEditRefusal(storeRoot: string, selected: Prompt[]): Promise<PacketError | null> {
  try {
    if (!Deno.lstatSync(storePaths(storeRoot).contractEdits).isDirectory) return null;
  } catch {
    return null;
  }
  const { editRefusal, editStanding } = await import("../run/contract_guard.ts");
  return editRefusal(await editStanding(storeRoot, selected));
}

/** The `plan` command. */
export const spec: CommandSpec = {
  usage: "[TARGET] [IDS…] [flags]",
  description: "Show what run would do: the selected prompts in execution order, the provider, the store root, " +
    "and whether the run would resume. Nothing is written.",
  flags: {
    ...SELECTION_FLAGS,
    strict: { type: "boolean", description: "as run --strict would: every lint finding refuses, warnings too" },
    ...OVERRIDE_FLAGS,
    ...TARGET_FLAGS,
  },
  async run(ctx) {
    const overrides = parseOverrides(ctx.flags);
    const target = await resolveTarget(ctx.positionals, ctx.flags, { idsFollow: true });
    const selection = parseSelection(ctx.flags, target.rest);
    // The store's records are read while the packet loads (its YAML parse keeps the thread busy); each read's
    // outcome is taken, or its error thrown, where the read used to be.
    // progress.log is read only for `--remaining`, and its reader loaded only then.
    const progressRead = selection.remaining
      ? held(import("../store/progress.ts").then((m) => m.readProgress(target.storeRoot)))
      : null;
    const recordRead = held(readCurrentRunRecord(target.storeRoot));
    // An unreadable state.json is `run`'s to refuse; the plan still prints.
    const stateRead = readState(target.storeRoot).catch(() => null);
    const inspection = await inspectPacket(target.packetDir, { overrides });
    const packet = packetOf(inspection);
    const progress = progressRead ? await progressRead() : new Map();
    const selected = selectPrompts(packet, selection, progress);
    const record = await recordRead();
    const current = record ? await packetFingerprint(packet) : "";
    // A packet changed only by persisted amendments resumes its run, as `run` decides (docs/amendments.md).
    const amended = record ? await amendedFingerprint(target.storeRoot, current) : null;
    const run = resumeDecision({
      record,
      remaining: selection.remaining,
      newRun: ctx.flags["new-run"] === true,
      fingerprint: amended?.from ?? current,
      selectedIds: selected.map((p) => p.id),
      leaseLive: record?.state === "running" ? await runPidPresent(target.storeRoot) : false,
    });
    const permissions = await runPermissionsFor(packet, selected, target.storeRoot);
    // A prompt whose commit failed commits its verified work before the others (docs/crash_recovery.md).
    const state = await stateRead;
    const needsCommit = new Map<string, string>();
    for (const p of selected) {
      const pending = pendingOf(state?.prompts[p.id]);
      if (pending) needsCommit.set(p.id, pending.run_id);
    }
    const ordered = [
      ...selected.filter((p) => needsCommit.has(p.id)),
      ...selected.filter((p) => !needsCommit.has(p.id)),
    ];
    // The run-time lint gate: what run would refuse, plan shows and exits with (exit 3, docs/lint.md).
    const refused = await lintRefusal(target.packetDir, {
      overrides,
      ids: selected.map((p) => p.id),
      strict: ctx.flags.strict === true,
      inspection,
    }) ?? await contractEditRefusal(target.storeRoot, selected);
    const view: PlanView = {
      packet,
      label: target.label,
      storeRoot: target.storeRoot,
      selected: ordered,
      run,
      permissions,
      needsCommit,
      refused,
    };
    ctx.stdout.write(ctx.json ? JSON.stringify(planJson(view)) + "\n" : renderPlan(view));
    // The plan is shown whole; the refusal is the command's error, as run's (under --json it is the plan's `refused`).
    if (refused && !ctx.json) throw refused;
    return refused ? refused.exit : 0;
  },
};
