/** `prompt_runner run [TARGET] [IDS…]` (docs/reference/cli.md §3.1, docs/reference/runner.md §1): execute prompts. */
import { type CommandContext, type CommandSpec, denoFlagsFor } from "./frame.ts";
import { resolveTarget } from "./target.ts";
import { EVENT_LIMIT_FLAGS, eventLimits } from "./event_limits.ts";
import { OVERRIDE_FLAGS, parseOverrides, parseSelection, SELECTION_FLAGS, TARGET_FLAGS } from "./selection_flags.ts";
import type { CommitPolicy } from "../run/mod.ts";
import { runPacket, type RuntimeStore } from "../run/runner.ts";
import { LeaseHeldError, UsageError } from "../errors.ts";
import { leaseHeldMessage, readLease } from "../store/lease.ts";
import { detachedLine, detachRun } from "../run/detach.ts";
import { lintGateForSelection } from "../run/lint_gate.ts";
import { RUNNER } from "./permissions.ts";
import { DISPLAY_FLAGS, displayRequest } from "./display_flags.ts";
import { assertSystemdUser, unitName } from "../run/mod.ts";
import { fileStamp } from "../util/time.ts";
import { defaultAuthor } from "../util/common.ts";
import { ciRequest, REPORT_FLAGS, withAbortReports } from "./report_flags.ts";

/** Commit policy from `--no-commit` / `--committer`. */
export function commitPolicy(flags: CommandContext["flags"]): CommitPolicy {
  const committer = typeof flags.committer === "string" ? flags.committer : null;
  if (committer !== null && committer !== "git" && committer !== "noop") {
    throw new UsageError("invalid_value", `--committer does not take "${committer}"; allowed: git, noop`);
  }
  if (flags["no-commit"] === true) {
    if (committer !== null) throw new UsageError("conflicting_flags", "--no-commit conflicts with --committer");
    return "none";
  }
  return committer === "noop" ? "noop" : "git";
}

/**
 * The commit policy of a run of `target`: the flags when they name one; else a workspace's `commits.mode: session`
 * means the sessions commit their own work (`none`, as `--no-commit`; docs/reference/workspace.md §1.1).
 */
export function targetCommitPolicy(
  flags: CommandContext["flags"],
  target: { workspace?: { commitMode: "runner" | "session" } },
): CommitPolicy {
  const policy = commitPolicy(flags);
  const named = flags["no-commit"] === true || typeof flags.committer === "string";
  return !named && target.workspace?.commitMode === "session" ? "none" : policy;
}

/** `--runtime-store file|memory|noop` (docs/reference/cli.md §3.1); default `file`. */
export function runtimeStore(flags: CommandContext["flags"]): RuntimeStore {
  const v = flags["runtime-store"];
  if (v === undefined || v === false) return "file";
  if (v === "file" || v === "memory" || v === "noop") return v;
  throw new UsageError("invalid_value", `--runtime-store does not take "${String(v)}"; allowed: file, memory, noop`);
}

/**
 * `start`, and `run --detach`: start the runner in its own session with output to `<store>/logs/runner-<ts>.log`,
 * wait for its lease, print `{run_id, pid, store_root}` and return 0 (docs/reference/cli.md §3.1). Lives here, not in start.ts,
 * so `run` and `start` do not import each other.
 */
export async function startDetached(ctx: CommandContext): Promise<number> {
  // Usage errors surface here, before anything is spawned.
  eventLimits(ctx);
  displayRequest(ctx);
  ciRequest(ctx); // a bad --report is refused here; the detached runner writes the reports
  const overrides = parseOverrides(ctx.flags);
  commitPolicy(ctx.flags);
  const target = await resolveTarget(ctx.positionals, ctx.flags);
  // operator.containment: systemd_user is refused here, before anything is spawned, when no user systemd answers.
  const systemd = target.workspace?.containment === "systemd_user";
  if (systemd) await assertSystemdUser((name) => Deno.env.get(name));
  const selection = parseSelection(ctx.flags, target.rest);
  // The run-time lint gate refuses here (exit 3), before anything is spawned (docs/lint.md).
  await lintGateForSelection(target.packetDir, target.storeRoot, {
    overrides,
    selection,
    strict: ctx.flags.strict === true,
    acceptEdits: ctx.flags["accept-contract-edits"] === true,
  });
  const lease = await readLease(target.storeRoot);
  if (lease.state === "up") {
    throw new LeaseHeldError("lease_held", leaseHeldMessage(target.label, lease.info), {
      details: { pid: lease.pid, hostname: lease.hostname },
    });
  }
  const r = await detachRun(ctx.argv.slice(1), target.storeRoot, {
    denoFlags: denoFlagsFor(RUNNER),
    ...(systemd ? { systemdUnit: unitName(target.workspace!.id, fileStamp()) } : {}),
  });
  if (ctx.json) {
    const unit = r.unit ? { unit: r.unit } : {};
    ctx.stdout.write(
      JSON.stringify({ run_id: r.run_id, pid: r.pid, store_root: r.store_root, log: r.log, ...unit }) + "\n",
    );
  } else ctx.stdout.write(detachedLine(r) + "\n");
  return 0;
}

/** The `run` command. */
export const spec: CommandSpec = {
  usage: "[TARGET] [IDS…] [flags]",
  description:
    "Run the selected prompts of a packet through their provider, verify each against its contract, recover from " +
    "failures with retry, repair and session resume, and commit the work prompt by prompt.",
  flags: {
    ...SELECTION_FLAGS,
    "verify-first": { type: "boolean", description: "verify each prompt before starting a provider" },
    "no-verify-first": { type: "boolean", description: "never verify before starting a provider" },
    "keep-going": { type: "boolean", description: "continue past failed and blocked prompts" },
    "no-commit": { type: "boolean", description: "do not commit (sessions commit their own work)" },
    committer: { type: "string", value: "git|noop", description: "how completed work is committed (default git)" },
    "dry-run": { type: "boolean", description: "print the plan details and exit" },
    "skip-preflight": { type: "boolean", description: "skip repo and lane checks (the --allow-run check still runs)" },
    "allow-dirty": {
      type: "boolean",
      description: "run on target repos with uncommitted changes; those paths stay out of every prompt's work",
    },
    detach: {
      type: "boolean",
      description: "start the runner in the background and print {run_id, pid, store_root} (same as start)",
    },
    "runtime-store": {
      type: "string",
      value: "file|memory|noop",
      description: "where run state is kept; memory and noop write no store root at all (default file)",
    },
    strict: {
      type: "boolean",
      description: "refuse every lint finding (warnings too) and fail prompts whose verdict would be vacuous",
    },
    "accept-contract-edits": {
      type: "boolean",
      description: "keep a verify: block a prompt's own session changed (on the audit log, --author or the OS user)",
    },
    author: { type: "string", value: "NAME", description: "who accepts with --accept-contract-edits (audit log)" },
    ...EVENT_LIMIT_FLAGS,
    ...DISPLAY_FLAGS,
    ...REPORT_FLAGS,
    ...OVERRIDE_FLAGS,
    ...TARGET_FLAGS,
  },
  run: withAbortReports(async (ctx: CommandContext, ci): Promise<number> => {
    const f = ctx.flags;
    if (f["verify-first"] === true && f["no-verify-first"] === true) {
      throw new UsageError("conflicting_flags", "--verify-first conflicts with --no-verify-first");
    }
    if (f.detach === true) return await startDetached(ctx);
    const events = eventLimits(ctx);
    const display = displayRequest(ctx);
    const overrides = parseOverrides(f);
    commitPolicy(f);
    const store = runtimeStore(f);
    const target = await resolveTarget(ctx.positionals, f);
    const commit = targetCommitPolicy(f, target);
    const selection = parseSelection(f, target.rest);
    return await runPacket({
      packetDir: target.packetDir,
      storeRoot: target.storeRoot,
      label: target.label,
      kind: target.kind,
      selection,
      overrides,
      newRun: f["new-run"] === true,
      verifyFirst: f["verify-first"] === true ? true : f["no-verify-first"] === true ? false : null,
      // A workspace's failure_policy: continue_independent is --keep-going (docs/reference/workspace.md §1).
      keepGoing: f["keep-going"] === true || target.workspace?.keepGoing === true,
      commit,
      skipPreflight: f["skip-preflight"] === true,
      allowDirty: f["allow-dirty"] === true,
      dryRun: f["dry-run"] === true,
      io: { stdout: ctx.stdout, stderr: ctx.stderr, json: ctx.json, color: ctx.color },
      argv: ctx.argv,
      runtimeStore: store,
      strict: f.strict === true,
      ...(f["accept-contract-edits"] === true
        ? { acceptContractEdits: { author: (f.author as string | undefined)?.trim() || defaultAuthor() } }
        : {}),
      events,
      display,
      ci,
    });
  }),
};
