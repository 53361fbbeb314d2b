/**
 * `prompt_runner start [TARGET] [IDS…] [run flags]`: `run` detached (docs/reference/cli.md §3.1 `--detach`). Starts the runner in
 * its own session with output to `<store>/logs/runner-<ts>.log`, waits for its lease, prints
 * `{run_id, pid, store_root}` and exits 0.
 */
import type { CommandSpec } from "./frame.ts";
import { LeaseHeldError } from "../errors.ts";
import { leaseHeldMessage, readLease } from "../control/lease.ts";
import { detachedLine, detachRun } from "../run/detach.ts";
import { parseOverrides, parseSelection } from "./selection_flags.ts";
import { commitPolicy, spec as runSpec } from "./run.ts";
import { resolveTarget } from "./target.ts";
import { lintGateForSelection } from "../run/lint_gate.ts";

/** The command. */
export const spec: CommandSpec = {
  usage: "[TARGET] [IDS…] [run flags]",
  description: "Start a run in the background (its own session; output appended to <store>/logs/runner-<ts>.log), " +
    "wait until it holds the lease, print {run_id, pid, store_root} and exit 0. Takes every flag of run.",
  flags: runSpec.flags,
  async run(ctx) {
    // Usage errors surface here, before anything is spawned.
    const overrides = parseOverrides(ctx.flags);
    commitPolicy(ctx.flags);
    const target = await resolveTarget(ctx.positionals, ctx.flags);
    const selection = parseSelection(ctx.flags, target.rest);
    // The run-time lint gate refuses here (exit 3), before anything is spawned (docs/lint.md).
    await lintGateForSelection(target.packetDir, target.storeRoot, {
      overrides,
      selection,
      strict: ctx.flags.strict === true,
    });
    const lease = await readLease(target.storeRoot);
    if (lease.state === "up") {
      throw new LeaseHeldError("lease_held", leaseHeldMessage(target.label, lease.info), {
        details: { pid: lease.pid, hostname: lease.hostname },
      });
    }
    const r = await detachRun(ctx.argv.slice(1), target.storeRoot);
    if (ctx.json) {
      ctx.stdout.write(JSON.stringify({ run_id: r.run_id, pid: r.pid, store_root: r.store_root, log: r.log }) + "\n");
    } else ctx.stdout.write(detachedLine(r) + "\n");
    return 0;
  },
};
