/** Store root paths (docs/reference/runner.md §10.1, docs/reference/control-plane.md §2). Every module builds paths through these helpers. */

/** The packet-local store root of a packet directory. */
export function storeRootForPacket(packetDir: string): string {
  return `${packetDir.replace(/\/+$/, "")}/.prompt_runner`;
}

/** Every well-known path under a store root. */
export function storePaths(storeRoot: string) {
  const root = storeRoot.replace(/\/+$/, "");
  const control = `${root}/control`;
  return {
    root,
    gitignore: `${root}/.gitignore`,
    storeJson: `${root}/store.json`,
    state: `${root}/state.json`,
    /** Prompt entries changed since `state.json` was last rewritten (docs/reference/runner.md §10.2). */
    statePending: `${root}/state.pending.jsonl`,
    verifications: `${root}/verifications.jsonl`,
    progress: `${root}/progress.log`,
    runLock: `${root}/run.lock`,
    runPid: `${root}/run.pid`,
    logs: `${root}/logs`,
    runs: `${root}/runs`,
    currentRun: `${root}/runs/current.json`,
    runDir: (runId: string) => `${root}/runs/${runId}`,
    interventions: `${root}/interventions`,
    interventionsFile: (promptId: string) => `${root}/interventions/${promptId}.jsonl`,
    /** What git status hid in the judged repos as a run started, while it goes on (src/run/hiding_run.ts). */
    hidingStart: `${root}/hiding_start.json`,
    amendments: `${root}/amendments`,
    amendmentsFile: (promptId: string) => `${root}/amendments/${promptId}.jsonl`,
    /** A prompt's `verify:` as its own session edited it (src/run/contract_guard.ts, docs/amendments.md). */
    contractEdits: `${root}/contract_edits`,
    contractEditFile: (promptId: string) => `${root}/contract_edits/${promptId}.json`,
    /** Receipts of `workspace import-state` (docs/reference/workspace.md §10.3). */
    imports: `${root}/imports`,
    control,
    controlTmp: `${control}/.tmp`,
    requests: `${control}/requests`,
    outcomes: `${control}/outcomes`,
    rejected: `${control}/rejected`,
    log: `${control}/log.jsonl`,
    snapshot: `${control}/snapshot.json`,
    events: `${control}/events.jsonl`,
    eventsArchive: `${control}/events`,
    archivedEvents: (runId: string) => `${control}/events/${runId}.jsonl`,
    /** Sealed segment `n` (1-based) of a run's stream (docs/reference/control-plane.md §5.2). */
    eventSegment: (runId: string, n: number) => `${control}/events/${runId}.${String(n).padStart(6, "0")}.jsonl`,
  };
}

/** The paths object returned by {@link storePaths}. */
export type StorePaths = ReturnType<typeof storePaths>;
