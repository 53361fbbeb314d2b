/** What `run` (and `repair`) decide from the command line, read by the run pipeline's drivers. */
import type { OptionOverrides, Selection } from "../packet/mod.ts";
import type { CommitPolicy, RunIo } from "./context.ts";
import type { DisplayRequest } from "./progress_display.ts";
import type { ReportRequest } from "./reports.ts";
import type { CiEnvironment } from "../util/mod.ts";

/** Everything `run` (and `repair`) decide from the command line. */
export interface RunRequest {
  packetDir: string;
  storeRoot: string;
  label: string;
  kind: "packet" | "workspace";
  selection: Selection;
  overrides: OptionOverrides;
  newRun: boolean;
  /** `--verify-first` (true), `--no-verify-first` (false), or default (null). */
  verifyFirst: boolean | null;
  keepGoing: boolean;
  commit: CommitPolicy;
  skipPreflight: boolean;
  /** `--allow-dirty`: run on target repos with uncommitted changes, keeping those paths out of every prompt. */
  allowDirty?: boolean;
  dryRun: boolean;
  /** The `repair` command: the first attempt is a repair built from the last recorded verification. */
  repairFirst?: boolean;
  io: RunIo;
  argv: string[];
  /** Random source for retry jitter (tests). */
  random?: () => number;
  /**
   * `--runtime-store` (docs/reference/runner.md §1, docs/reference/cli.md §3.1): `file` (default) keeps state under the store root; `memory`
   * and `noop` write no store root at all — no control directory, lease, logs, progress or state.
   */
  runtimeStore?: RuntimeStore;
  /** `--strict` (docs/lint.md): every lint finding refuses the run, and a vacuous verdict fails its prompt. */
  strict?: boolean;
  /**
   * `--accept-contract-edits` (docs/amendments.md): keep the `verify:` a prompt's own session wrote, on the audit log
   * under `author` (default: the OS user), instead of refusing the prompt.
   */
  acceptContractEdits?: { author: string };
  /** The live status line and the heartbeat (docs/status.md); unset: neither. */
  display?: DisplayRequest;
  /** `--report` files and the CI service's log conventions (docs/ci.md); unset: neither. */
  ci?: CiRequest;
  /** Event segment bound and archive retention (docs/reference/control-plane.md §5.2, §5.5); unset: defaults. */
  events?: EventLimits;
  /** The snapshot's coalescing window (default 50 ms); tests widen it so write counts do not depend on speed. */
  snapshotCoalesceMs?: number;
}

/** What a run writes for CI (docs/ci.md). */
export interface CiRequest {
  /** `--report FORMAT=PATH`, written when the run ends. */
  reports: ReportRequest[];
  /** The CI service the run is under (src/util/ci_env.ts), null for none. */
  env: CiEnvironment | null;
  /** Set by the runner once it wrote the reports, so a later error does not replace them. */
  written?: boolean;
}

/** `--events-segment-size`, `--keep-runs`, `--keep-archives-size` (or their environment variables). */
export interface EventLimits {
  segmentBytes?: number;
  keepRuns?: number;
  keepBytes?: number;
}

/** Where a run keeps its state (`--runtime-store`). */
export type RuntimeStore = "file" | "memory" | "noop";

/** Whether a runtime store writes the store root (pure). */
export function writesStoreRoot(store: RuntimeStore | undefined): boolean {
  return (store ?? "file") === "file";
}
