/**
 * `prompt_runner start [TARGET] [IDS…] [run flags]`: `run` detached (docs/reference/cli.md §3.1 `--detach`). Starts the runner in
 * its own session with output to `<store>/logs/runner-<ts>.log`, waits for its lease, prints
 * `{run_id, pid, store_root}` and exits 0. The work is {@link startDetached} in run.ts, shared with `run --detach`.
 */
import type { CommandSpec } from "./frame.ts";
import { spec as runSpec, startDetached } from "./run.ts";
import { withAbortReports } from "./report_flags.ts";

/** The command. */
export const spec: CommandSpec = {
  usage: "[TARGET] [IDS…] [run flags]",
  description: "Start a run in the background (its own session; output appended to <store>/logs/runner-<ts>.log), " +
    "wait until it holds the lease, print {run_id, pid, store_root} and exit 0. Takes every flag of run. Under " +
    "operator.containment: systemd_user the runner runs in a transient systemd user unit, which the output names (unit).",
  flags: runSpec.flags,
  // A refusal before the runner starts still writes the --report files (docs/ci.md); the runner writes them after.
  run: withAbortReports(startDetached),
};
