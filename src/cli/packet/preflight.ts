/** `prompt_runner packet preflight [TARGET] [--json]` (docs/reference/cli.md §3.9): readiness report; exit 1 when not runnable. */
import type { CommandContext, CommandSpec } from "../frame.ts";
import { resolveTarget, TARGET_FLAGS } from "../target.ts";
import { loadPacket } from "../../packet/load.ts";
import { readinessReport, renderReadiness } from "../../run/readiness.ts";
import { laneFor } from "../../lanes/mod.ts";
import type { ProviderName } from "../../packet/mod.ts";
import { Exit } from "../../errors.ts";
import { runPermissionsFor } from "../../run/run_permissions.ts";
import { dirtyRepos } from "../../run/dirty.ts";
import { hasLeftovers } from "../../run/prompt_guard.ts";
import { pendingClaims } from "../../run/commit_pending.ts";
import { readState } from "../../run/state_read.ts";
import type { StateDoc } from "../../run/mod.ts";
import { vacuousFindings } from "../../run/preflight_vacuous.ts";

/** Shared body of `packet preflight` and `packet doctor`. */
export async function runReadiness(ctx: CommandContext, doctor: boolean): Promise<number> {
  const target = await resolveTarget(ctx.positionals, ctx.flags, { idsFollow: false });
  const packet = await loadPacket(target.packetDir);
  const report = await readinessReport(
    packet,
    { probe: (provider, options) => laneFor(provider as ProviderName).probe(options) },
    { doctor },
  );
  report.permissions = { run: (await runPermissionsFor(packet, packet.prompts, target.storeRoot)).run };
  // Uncommitted changes in a target repo would be mixed into prompt work (docs/keep_going.md), as `run` refuses.
  let state: StateDoc | null = null;
  try {
    state = await readState(target.storeRoot);
  } catch (e) {
    // A corrupt or unreadable state.json: `run` would stop on it too; named here, and the rest of the report prints.
    const message = `cannot read the run state: ${e instanceof Error ? e.message : String(e)}`;
    report.readiness_errors.push({ kind: "state_store_invalid", repo: null, message });
  }
  const claimed = state ? packet.prompts.filter((p) => hasLeftovers(state, p.id)) : [];
  const allowDirty = ctx.flags["allow-dirty"] === true;
  const pending = state ? pendingClaims(packet, (id) => state.prompts[id]) : [];
  for (const d of await dirtyRepos(packet, packet.prompts, target.storeRoot, allowDirty, claimed, pending)) {
    report.readiness_errors.push({ kind: "uncommitted_changes", repo: d.repo, message: d.message });
  }
  if (!doctor) {
    // No vacuous verdicts (docs/lint.md): the runner's own check, on the current tree, for prompts not yet completed.
    const strict = ctx.flags.strict === true;
    try {
      report.vacuous = await vacuousFindings(packet, target.storeRoot, {
        strict,
        remaining: ctx.flags.remaining === true,
        pendingCommit: new Set(pending.map((c) => c.prompt.id)),
      });
    } catch (e) {
      // A corrupt progress.log or amendments file: `run` would stop on it too; the rest of the report still prints.
      const message = `cannot check for vacuous contracts: ${e instanceof Error ? e.message : String(e)}`;
      report.readiness_errors.push({ kind: "vacuous_check_failed", repo: null, message });
      report.vacuous = [];
    }
    for (const v of report.vacuous) {
      if (strict && v.kind === "vacuous") {
        report.readiness_errors.push({ kind: "vacuous", repo: null, message: v.message });
      }
    }
  }
  report.runtime_ready = report.readiness_errors.length === 0;
  if (ctx.json) ctx.stdout.write(JSON.stringify(report) + "\n");
  else ctx.stdout.write(renderReadiness(report, doctor ? "Doctor" : "Preflight", target.label));
  if (doctor || report.runtime_ready) return Exit.ok;
  ctx.stderr.write("error: preflight failed\n");
  for (const e of report.readiness_errors) ctx.stderr.write(`  ${e.message}\n`);
  return Exit.failed;
}

/** The `packet preflight` command. */
export const spec: CommandSpec = {
  usage: "[TARGET] [--json] [--strict] [--remaining]",
  description: "Check that every repo exists, is a directory inside a git work tree, and that the lane's " +
    "executable is found. Exit 1 when the packet is not runnable.",
  flags: {
    ...TARGET_FLAGS,
    "allow-dirty": { type: "boolean", description: "do not count uncommitted changes in target repos as a problem" },
    strict: { type: "boolean", description: "a vacuous contract is an error, and commands are evaluated for it" },
    remaining: {
      type: "boolean",
      description: "ask about `run --remaining`: passing prompts are completed by pre-flight, not vacuous",
    },
  },
  run: (ctx) => runReadiness(ctx, false),
};
