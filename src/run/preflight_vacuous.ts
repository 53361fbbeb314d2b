/**
 * Vacuous verdicts ahead of a run (docs/lint.md): `packet preflight` evaluates, for every prompt not yet completed in
 * progress.log, the same vacuous check the runner makes before a first attempt ({@link vacuousReport}). A passing
 * contract is a `vacuous` finding — or, for a `--remaining` selection (whose run completes such prompts by pre-flight
 * verification, an intended skip), a `preflight_completion` note.
 */
import type { Packet } from "../packet/mod.ts";
import { readProgress } from "../store/progress.ts";
import { vacuousReport } from "./vacuous.ts";

/** One prompt whose contract already passes on the current tree. */
export interface VacuousFinding {
  /** `vacuous`: its verdict would be vacuous; `preflight_completion`: `run --remaining` completes it by pre-flight. */
  kind: "vacuous" | "preflight_completion";
  prompt_id: string;
  file: string;
  message: string;
}

/** Options of {@link vacuousFindings}. */
export interface VacuousFindingOptions {
  /** `--strict`: commands are evaluated too. */
  strict: boolean;
  /** The question is about `run --remaining` (pre-flight completion requested): passing prompts are intended skips. */
  remaining: boolean;
  /** Prompts whose failed commit left their verified work on the tree: it passes because it is their own work. */
  pendingCommit?: ReadonlySet<string>;
}

/** The message of a `vacuous` finding (pure). */
function vacuousFindingMessage(id: string): string {
  return `prompt ${id}'s contract already passes on the current tree before any session ran; its verdict would be vacuous`;
}

/** The message of a `preflight_completion` note (pure). */
function preflightCompletionMessage(id: string): string {
  return `prompt ${id}'s contract already passes: run --remaining will complete it by pre-flight verification`;
}

/** Evaluate every prompt not completed in progress.log, in packet order; returns those whose contract passes. */
export async function vacuousFindings(
  packet: Packet,
  storeRoot: string,
  opts: VacuousFindingOptions,
): Promise<VacuousFinding[]> {
  const progress = await readProgress(storeRoot);
  const out: VacuousFinding[] = [];
  for (const prompt of packet.prompts) {
    if (progress.get(prompt.id)?.status === "completed" || opts.pendingCommit?.has(prompt.id)) continue;
    const report = await vacuousReport(packet, prompt, storeRoot, { runId: null, strict: opts.strict });
    if (report === null) continue;
    out.push({
      kind: opts.remaining ? "preflight_completion" : "vacuous",
      prompt_id: prompt.id,
      file: prompt.relFile,
      message: opts.remaining ? preflightCompletionMessage(prompt.id) : vacuousFindingMessage(prompt.id),
    });
  }
  return out;
}
