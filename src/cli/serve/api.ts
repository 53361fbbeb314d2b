/**
 * The endpoints of `control serve` (docs/reference/http_api.md §4): one per Control API function. Reads call the API;
 * writes call the same functions the `control` commands call (request files for view and steer, the amendment log
 * for amend and relax), with the token's name as the author. Nothing here writes a file itself.
 */
import {
  amend,
  contract,
  currentRun,
  log,
  outcome,
  relax,
  type RunRef,
  setView,
  snapshot,
  steer,
} from "../../control/mod.ts";
import { HttpError, pathId, PROMPT_ID, REQUEST_ID, runParam as runOfQuery } from "./guard.ts";
import type { Role } from "./tokens.ts";

/** A target `control serve` serves: a packet or a workspace, by its id. */
export interface ServeTarget {
  id: string;
  kind: "packet" | "workspace";
  packetDir: string;
  storeRoot: string;
}

/** What a write endpoint needs: the role, the audit-log command and the params recorded when it is refused. */
export interface WriteSpec {
  role: Role;
  command: "set_view" | "steer" | "amend" | "relax";
  params(body: Record<string, unknown>): Record<string, unknown>;
  promptId?(body: Record<string, unknown>): string | null;
}

function viewOf(body: Record<string, unknown>): Record<string, string> {
  const src = typeof body.view === "object" && body.view !== null && !Array.isArray(body.view)
    ? body.view as Record<string, unknown>
    : body;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(src)) {
    if (src === body && (k === "wait_ms" || k === "view")) continue;
    out[k] = typeof v === "string" ? v : JSON.stringify(v);
  }
  return out;
}

function contractParams(body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of ["clause", "entries", "operation", "confirm", "persist"]) if (k in body) out[k] = body[k];
  return out;
}

const bodyPrompt = (b: Record<string, unknown>): string | null =>
  typeof b.prompt === "string" || typeof b.prompt === "number" ? String(b.prompt) : null;

/** The write endpoints by their last path segment. */
export const WRITES: Record<string, WriteSpec> = {
  view: { role: "steer", command: "set_view", params: viewOf },
  steer: {
    role: "steer",
    command: "steer",
    params: (b) => ({ text: typeof b.text === "string" ? b.text.trim() : b.text ?? null }),
  },
  amend: { role: "amend", command: "amend", params: contractParams, promptId: bodyPrompt },
  relax: { role: "amend", command: "relax", params: contractParams, promptId: bodyPrompt },
};

/** One row of `GET targets`. */
export async function targetRow(t: ServeTarget): Promise<Record<string, unknown>> {
  const row: Record<string, unknown> = { id: t.id, kind: t.kind, packet: t.packetDir, run_id: null, status: "no_run" };
  try {
    const ref = await currentRun({ kind: "state", stateRoot: t.storeRoot });
    const snap = await snapshot(ref);
    Object.assign(row, {
      run_id: ref.runId,
      status: snap.status,
      packet_name: snap.packet,
      prompt_id: snap.prompt_id,
      prompt_position: snap.prompt_position,
      selected_count: snap.selected_count,
      completed_count: snap.completed_count,
      updated_at: snap.updated_at,
    });
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    row.status = code === "no_run" ? "no_run" : "unreadable";
    if (code !== "no_run") row.error = { code: typeof code === "string" ? code : "internal_error", message: String(e) };
  }
  return row;
}

function waitMs(body: Record<string, unknown>): number {
  const w = body.wait_ms;
  if (w === undefined) return 2000;
  if (typeof w !== "number" || !Number.isInteger(w) || w < 0 || w > 30_000) {
    throw new HttpError(400, "invalid_value", "wait_ms: expected an integer from 0 to 30000");
  }
  return w;
}

/** The outcome of a request as the API returns it (`outcome: null` while pending). */
export async function requestOutcome(ref: RunRef, request: string, targetId: string): Promise<Record<string, unknown>> {
  const o = await outcome(ref, request);
  return {
    request,
    run_id: ref.runId,
    outcome: o?.entry.outcome ?? null,
    reason: o?.entry.reason ?? null,
    entry: o?.entry ?? null,
    poll: `/api/v1/targets/${encodeURIComponent(targetId)}/requests/${encodeURIComponent(request)}`,
  };
}

async function settle(ref: RunRef, request: string, targetId: string, ms: number, signal: AbortSignal) {
  const until = Date.now() + ms;
  for (;;) {
    const r = await requestOutcome(ref, request, targetId);
    if (r.outcome !== null || Date.now() >= until || signal.aborted) return r;
    await new Promise((res) => setTimeout(res, 50));
  }
}

/**
 * The answer to a write sent again with its `Idempotency-Key` (src/cli/serve/idempotency.ts): a view or steer is
 * answered with its request's outcome now, waiting up to this call's `wait_ms` as the first call did; an amend or
 * relax with the record it wrote.
 */
export async function replayAnswer(
  t: ServeTarget,
  first: { status: number; body: unknown },
  body: Record<string, unknown>,
  signal: AbortSignal,
): Promise<{ status: number; body: unknown }> {
  const b = first.body as Record<string, unknown> | null;
  if (b === null || typeof b.request !== "string" || typeof b.run_id !== "string" || !("poll" in b)) return first;
  const r = await settle({ storeRoot: t.storeRoot, runId: b.run_id }, b.request, t.id, waitMs(body), signal);
  return { status: r.outcome === null ? 202 : 200, body: r };
}

/**
 * The fields of an amend or relax body have their types, or the write is refused (400 `invalid_value`): a
 * `"persist": "yes"` must not make an amendment that silently does not persist, nor `"entries": "a.md"` one without
 * entries.
 */
function checkContractBody(body: Record<string, unknown>): void {
  const wrong = (key: string, expected: string) => {
    throw new HttpError(400, "invalid_value", `${key}: expected ${expected}, got ${JSON.stringify(body[key])}`);
  };
  if ("entries" in body && !Array.isArray(body.entries)) wrong("entries", "an array");
  if ("reason" in body && typeof body.reason !== "string") wrong("reason", "a string");
  for (const key of ["persist", "confirm"]) {
    if (key in body && typeof body[key] !== "boolean") wrong(key, "true or false");
  }
}

/** Perform a write; returns status and body. `author` is the token's name. */
export async function performWrite(
  kind: string,
  t: ServeTarget,
  body: Record<string, unknown>,
  author: string,
  signal: AbortSignal,
): Promise<{ status: number; body: unknown }> {
  if (kind === "view" || kind === "steer") {
    const wait = waitMs(body);
    const ref = await currentRun({ kind: "state", stateRoot: t.storeRoot });
    if (kind === "steer" && typeof body.text !== "string") {
      throw new HttpError(400, "invalid_value", "text: expected a string");
    }
    const handle = kind === "view"
      ? await setView(ref, viewOf(body), { author })
      : await steer(ref, body.text as string, { author });
    const r = await settle(ref, handle.request, t.id, wait, signal);
    return { status: r.outcome === null ? 202 : 200, body: r };
  }
  const prompt = bodyPrompt(body);
  if (prompt === null) throw new HttpError(400, "missing_argument", "prompt: expected a prompt id");
  checkContractBody(body);
  const target = { packetDir: t.packetDir, storeRoot: t.storeRoot };
  const reason = typeof body.reason === "string" ? body.reason : "";
  const entries = Array.isArray(body.entries) ? body.entries : [];
  const persist = body.persist === true;
  if (typeof body.clause !== "string") throw new HttpError(400, "missing_argument", "clause: expected a clause name");
  if (kind === "amend") {
    const record = await amend(target, prompt, { clause: body.clause, entries, reason, persist, author });
    return { status: 200, body: record };
  }
  const op = body.operation;
  if (op !== undefined && op !== "drop" && op !== "replace" && op !== "remove") {
    throw new HttpError(400, "invalid_value", "operation: expected drop, replace or remove");
  }
  const record = await relax(target, prompt, {
    clause: body.clause,
    reason,
    confirm: body.confirm === true,
    ...(op !== undefined ? { operation: op } : {}),
    ...(Array.isArray(body.entries) ? { entries } : {}),
    persist,
    author,
  });
  return { status: 200, body: record };
}

/** Perform a read of `rest` (the path after the target id); null when no such endpoint. */
export async function performRead(
  t: ServeTarget,
  rest: string[],
  url: URL,
): Promise<unknown | null> {
  const runParam = runOfQuery(url);
  const ref = async (): Promise<RunRef> =>
    runParam
      ? { storeRoot: t.storeRoot, runId: runParam }
      : await currentRun({ kind: "state", stateRoot: t.storeRoot });
  const [head, arg, ...more] = rest;
  if (more.length > 0) return null;
  if (head === undefined) return await targetRow(t);
  if (head === "snapshot" && arg === undefined) return await snapshot(await ref());
  if (head === "log" && arg === undefined) {
    return { entries: await log(await ref(), { allRuns: url.searchParams.get("all_runs") === "1" }) };
  }
  if (head === "contract" && arg !== undefined) {
    return await contract({ packetDir: t.packetDir, storeRoot: t.storeRoot }, pathId(arg, PROMPT_ID, "prompt id"));
  }
  if (head === "requests" && arg !== undefined) {
    return await requestOutcome(await ref(), pathId(arg, REQUEST_ID, "request id"), t.id);
  }
  return null;
}
