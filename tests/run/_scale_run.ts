/** `run <dir> --no-commit` of a generated scale packet in this process, output discarded (the scale regression tests). */
import assert from "node:assert/strict";
import { runPacket } from "../../src/run/runner.ts";

const quiet = { write: (_: string) => {}, isTerminal: false };

/** Run every prompt of the packet in `dir` without committing; asserts exit 0. `snapshotCoalesceMs` widens the window. */
export async function runScalePacket(dir: string, opts: { snapshotCoalesceMs?: number } = {}): Promise<void> {
  const code = await runPacket({
    packetDir: dir,
    storeRoot: `${dir}/.prompt_runner`,
    label: dir,
    kind: "packet",
    selection: { ids: [], phase: null, remaining: false, from: null, through: null },
    overrides: {},
    newRun: false,
    verifyFirst: null,
    keepGoing: false,
    commit: "none",
    skipPreflight: true,
    dryRun: false,
    io: { stdout: quiet, stderr: quiet, json: false, color: false },
    argv: ["run", dir, "--no-commit"],
    random: () => 0,
    ...opts,
  });
  assert.equal(code, 0);
}
