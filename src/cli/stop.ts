/** `stop [TARGET] [--grace DUR] [--force] [--json]` (docs/reference/cli.md §3.6): stop the live run gracefully. */
import type { CommandSpec } from "./frame.ts";
import { LeaseHeldError, NotFoundError, RunFailedError, UsageError } from "../errors.ts";
import { leaseUnit, readLease } from "../store/lease.ts";
import { stopUnit, type UnitStop } from "../run/systemd_user.ts";
import { readSnapshotOrNull } from "../control/snapshot.ts";
import { parseDuration } from "../util/time.ts";
import { resolveTarget } from "./target.ts";
import { type SweepResult, sweepRun } from "../util/containment.ts";

/** What a sweep left, for the report: `""` when everything is gone. */
function sweepNote(runId: string, r: SweepResult): string {
  if (r.survivors.length === 0) return r.killed > 0 ? `Killed ${r.killed} leftover processes of run ${runId}.\n` : "";
  const names = r.survivors.map((s) => `pid ${s.pid}${s.command ? ` (${s.command.slice(0, 60)})` : ""}`);
  return `Still alive after stop: ${names.join(", ")}.\n`;
}

function signal(pid: number, sig: Deno.Signal): boolean {
  try {
    Deno.kill(pid, sig);
    return true;
  } catch {
    return false;
  }
}

async function snapshotFacts(storeRoot: string): Promise<{ prompt: string | null; attempt: number | null }> {
  const snap = await readSnapshotOrNull(storeRoot);
  return { prompt: snap?.prompt_id ?? null, attempt: snap?.attempt ?? null };
}

/**
 * A run started under `operator.containment: systemd_user` is addressed by its unit once its runner closed the run
 * (or could not be signalled): `systemctl --user stop <unit>` ends whatever is left in the unit's control group.
 */
async function stopRunUnit(unit: string | null): Promise<UnitStop | null> {
  return unit === null ? null : await stopUnit(unit);
}

function unitNote(r: UnitStop | null): string {
  return r === null ? "" : `Systemd ${r.detail}.\n`;
}

/** The command. */
export const spec: CommandSpec = {
  usage: "[TARGET] [--grace DUR] [--force] [--json]",
  description: "Send the live runner SIGINT (it interrupts its provider and closes the run as failed, reason " +
    "interrupted) and wait for its lease to drop. --force sends SIGKILL to the runner and its provider group. A run " +
    "started in a systemd user unit (operator.containment: systemd_user) is then stopped by its unit too " +
    "(systemctl --user stop <unit>).",
  flags: {
    grace: { type: "string", value: "DUR", description: "how long to wait for the lease to drop (default 30s)" },
    force: { type: "boolean", description: "SIGKILL the runner and the provider process group" },
    workspace: { type: "string", value: "MANIFEST|ID", description: "workspace target" },
    packet: { type: "string", value: "DIR", description: "packet directory" },
  },
  async run(ctx) {
    const graceText = (ctx.flags.grace as string | undefined) ?? "30s";
    const grace = parseDuration(graceText);
    if (grace === null) {
      throw new UsageError("invalid_value", `--grace does not take "${graceText}"; expected e.g. 30s`);
    }
    const target = await resolveTarget(ctx.positionals, ctx.flags);
    const lease = await readLease(target.storeRoot);
    if (lease.state === "down" || lease.pid === null) {
      // A runner that died without closing (SIGKILL, crash) may have left tools behind: reap them anyway.
      const stale = typeof lease.info?.run_id === "string" ? lease.info.run_id : null;
      const note = stale !== null ? sweepNote(stale, await sweepRun(stale)) : "";
      if (note) ctx.stderr.write(note);
      throw new NotFoundError("run_not_running", `no live run holds ${target.label}`);
    }
    if (lease.state === "unknown") {
      throw new LeaseHeldError("lease_remote", `the run of ${target.label} is held on host ${lease.hostname}`, {
        hints: ["stop it on that host"],
      });
    }
    const runId = typeof lease.info?.run_id === "string" ? lease.info.run_id : "?";
    const unit = leaseUnit(lease.info);
    const facts = await snapshotFacts(target.storeRoot);
    const provider = lease.info?.provider as { pgid?: unknown } | null | undefined;
    if (ctx.flags.force) {
      signal(lease.pid, "SIGKILL");
      if (provider && typeof provider.pgid === "number") signal(-provider.pgid, "SIGKILL");
    } else if (!signal(lease.pid, "SIGINT")) {
      // A unit's runner that cannot be signalled from here is stopped through systemd, which owns it.
      if (unit === null) throw new NotFoundError("run_not_running", `runner pid ${lease.pid} is gone`);
      const r = await stopUnit(unit);
      if (!r.ok) {
        throw new RunFailedError("unit_stop_failed", `runner pid ${lease.pid} could not be signalled; ${r.detail}`);
      }
    }
    const deadline = Date.now() + grace;
    while (Date.now() < deadline) {
      if ((await readLease(target.storeRoot)).state !== "up") {
        // The runner sweeps its own processes when it closes; after --force nobody did, so stop does it here.
        const swept = await sweepRun(runId);
        const unitStop = await stopRunUnit(unit);
        if (unitStop !== null && !unitStop.ok) {
          // As the sdk has it: stop succeeds only once the unit is inactive. The run itself closed (on the record).
          throw new RunFailedError(
            "unit_stop_failed",
            `run ${runId} stopped, but its systemd unit ${unit} could not be stopped: ${unitStop.detail}`,
            {
              hints: [`check it with: systemctl --user status ${unit}`],
              details: { run_id: runId, unit, stopped: true, unit_stopped: false },
            },
          );
        }
        const note = sweepNote(runId, swept) + unitNote(unitStop);
        const where = facts.prompt
          ? ` (prompt ${facts.prompt}${facts.attempt ? `, attempt ${facts.attempt}` : ""})`
          : "";
        if (ctx.json) {
          ctx.stdout.write(
            JSON.stringify({
              stopped: true,
              run_id: runId,
              prompt_id: facts.prompt,
              attempt: facts.attempt,
              forced: !!ctx.flags.force,
              killed_leftovers: swept.killed,
              survivors: swept.survivors,
              ...(unit !== null ? { unit, unit_stopped: true, unit_detail: unitStop?.detail } : {}),
            }) + "\n",
          );
        } else ctx.stdout.write(`Stopped run ${runId}${where}.\n${note}`);
        return 0;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new RunFailedError("stop_timeout", `run ${runId} still holds its lease after ${graceText}`, {
      hints: ["use --force to kill it"],
    });
  },
};
