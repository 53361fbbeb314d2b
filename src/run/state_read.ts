/**
 * Reading `state.json` with its pending lines merged ({@link readState}; docs/reference/runner.md §10.2), apart from the
 * writer in src/run/state.ts, so that a command that only reads it (`plan`, `packet preflight`) does not load the
 * writer's held appender and entry freezing (docs/bench.md, "Cold start").
 */
import { RunFailedError } from "../errors.ts";
import { storePaths } from "../store/paths.ts";
import { mergeStatePending } from "../store/state_pending.ts";
import { readStoreTextOrNull } from "../util/safe_read.ts";
import { nowIso } from "../util/time.ts";
import { meterRead } from "../util/read_meter.ts";
import { isRecord } from "../util/is_record.ts";
import { emptyState, type PromptState, STATE_SCHEMA, type StateDoc } from "./state_doc.ts";

function invalid(path: string, what: string, cause?: unknown): RunFailedError {
  return new RunFailedError("state_store_invalid", `${path} is not a valid state file: ${what}`, {
    hints: [`move it aside (mv ${path} ${path}.bad) and run again`],
    ...(cause === undefined ? {} : { cause }),
  });
}

/** Validate a decoded document; throws `state_store_invalid` naming the field. */
function validateState(value: unknown, path: string): StateDoc {
  if (!isRecord(value)) throw invalid(path, "expected a JSON object");
  if (value.schema !== undefined && value.schema !== STATE_SCHEMA) {
    throw invalid(path, `field "schema" is ${JSON.stringify(value.schema)}; expected "${STATE_SCHEMA}"`);
  }
  const prompts = value.prompts ?? {};
  if (!isRecord(prompts)) throw invalid(path, `field "prompts" must be an object`);
  for (const [id, entry] of Object.entries(prompts)) {
    if (!isRecord(entry)) throw invalid(path, `field "prompts.${id}" must be an object`);
    if (entry.attempts !== undefined && !Array.isArray(entry.attempts)) {
      throw invalid(path, `field "prompts.${id}.attempts" must be a list`);
    }
    if (entry.attempts === undefined) entry.attempts = [];
    if (typeof entry.status !== "string") entry.status = "failed";
  }
  return {
    ...(value as Record<string, unknown>),
    schema: STATE_SCHEMA,
    updated_at: typeof value.updated_at === "string" ? value.updated_at : nowIso(),
    last_run_id: typeof value.last_run_id === "string" ? value.last_run_id : null,
    prompts: prompts as Record<string, PromptState>,
  };
}

/** A state file's text (null when absent); an unreadable one refuses the run (`state_store_invalid`). */
export async function readStateText(path: string): Promise<string | null> {
  try {
    const text = await readStoreTextOrNull(path);
    meterRead("state", text?.length ?? 0);
    return text;
  } catch (e) {
    throw invalid(path, e instanceof Error ? e.message : String(e), e);
  }
}

/**
 * Read `state.json` with `state.pending.jsonl` merged over it; missing → empty; unreadable or invalid →
 * `state_store_invalid`.
 */
export async function readState(storeRoot: string): Promise<StateDoc> {
  const paths = storePaths(storeRoot);
  const path = paths.state;
  const text = await readStateText(path);
  let doc = emptyState();
  if (text !== null) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      throw invalid(path, `invalid JSON (${e instanceof Error ? e.message : String(e)})`, e);
    }
    doc = validateState(value, path);
  }
  const pending = await readStateText(paths.statePending);
  return pending ? mergeStatePending(doc, pending) : doc;
}
