/**
 * Intervention records `interventions/<prompt>.jsonl` (docs/reference/control-plane.md §5.3): the record shape and the rebuild of
 * per-prompt steer counts for one run, so a resumed run continues its budgets.
 */
import type { SteerDeliveryKind } from "../events/mod.ts";
import { parseJsonLines } from "../util/fs.ts";
import { readStoreTextOrNull, readStoreTextOrNullSync } from "../util/safe_read.ts";
import { storePaths } from "../store/paths.ts";

/** One delivered steer. */
export interface InterventionRecord {
  at: string;
  run_id: string;
  prompt: string;
  attempt: number;
  author: string;
  text: string;
  lane: string;
  /** How it reached the agent; `send_input` is an older name of `in_turn` kept readable. */
  delivery: SteerDeliveryKind | "send_input";
  /** The operator asked to stop the running turn (`control steer --interrupt`). */
  interrupt?: boolean;
  interrupted: boolean;
  batch: number;
  request: string;
  accepted_at: string;
  session_id: string | null;
}

/** Read the intervention records of one prompt (missing file → empty). */
export async function readInterventions(storeRoot: string, promptId: string): Promise<InterventionRecord[]> {
  const text = await readStoreTextOrNull(storePaths(storeRoot).interventionsFile(promptId));
  return text === null ? [] : parseJsonLines<InterventionRecord>(text);
}

/**
 * Steers delivered per prompt in one run, rebuilt from every `interventions/*.jsonl` (a resumed run continues its
 * counts from here). Synchronous: the plane calls it while opening.
 */
export function steerCountsForRun(storeRoot: string, runId: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of recordsOfRun(storeRoot, runId)) counts.set(r.prompt, (counts.get(r.prompt) ?? 0) + 1);
  return counts;
}

/**
 * Steers delivered per prompt and delivery kind in one run (`{in_turn: 1, interrupt_and_resume: 2}`), from the same
 * records as {@link steerCountsForRun}: what a prompt's result reports as `steer_deliveries`.
 */
export function steerDeliveriesForRun(storeRoot: string, runId: string): Map<string, Record<string, number>> {
  const out = new Map<string, Record<string, number>>();
  for (const r of recordsOfRun(storeRoot, runId)) {
    const kinds = out.get(r.prompt) ?? {};
    const kind = typeof r.delivery === "string" ? r.delivery : "interrupt_and_resume";
    kinds[kind] = (kinds[kind] ?? 0) + 1;
    out.set(r.prompt, kinds);
  }
  return out;
}

/** Every intervention record of `runId` (read synchronously; missing directory → none; unreadable → throws). */
function recordsOfRun(storeRoot: string, runId: string): { prompt: string; delivery: unknown }[] {
  const out: { prompt: string; delivery: unknown }[] = [];
  for (const r of everyRecord(storeRoot)) {
    if (r.run_id !== runId || typeof r.prompt !== "string") continue;
    out.push({ prompt: r.prompt, delivery: r.delivery });
  }
  return out;
}

/**
 * The delivery records of these steer requests, whatever run delivered them (read synchronously). A runner that
 * stopped after writing a steer's record and before its `applied` log entry leaves the record as the only proof of
 * the delivery: the next runner logs it `applied`, not `rejected`.
 */
export function deliveriesOf(storeRoot: string, requests: ReadonlySet<string>): Map<string, InterventionRecord> {
  const out = new Map<string, InterventionRecord>();
  if (requests.size === 0) return out;
  for (const r of everyRecord(storeRoot)) {
    if (typeof r.request !== "string" || !requests.has(r.request) || typeof r.run_id !== "string") continue;
    if (typeof r.prompt !== "string") continue;
    out.set(r.request, r as unknown as InterventionRecord);
  }
  return out;
}

/** Every line of every `interventions/*.jsonl` (missing directory → none; unreadable → throws). */
function everyRecord(storeRoot: string): Record<string, unknown>[] {
  const dir = storePaths(storeRoot).interventions;
  const out: Record<string, unknown>[] = [];
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(dir)];
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return out; // no steer recorded yet
    throw e; // an unreadable directory would undercount steers (and allow more than max_steers)
  }
  for (const entry of entries) {
    if (!entry.isFile || !entry.name.endsWith(".jsonl")) continue;
    const text = readStoreTextOrNullSync(`${dir}/${entry.name}`);
    if (text === null) continue; // removed since the listing
    out.push(...parseJsonLines<Record<string, unknown>>(text));
  }
  return out;
}
