/**
 * A prompt's contract may not be changed by the session it judges (docs/amendments.md, "Edited during its session").
 * An agent works in the user's account, so it can edit its own prompt file: a session that weakened its `verify:`
 * block would be judged by the weaker contract on the next run, and the record would say "its contract passed". The
 * run itself always verifies the contract it loaded; this guard makes the edit visible and stops it from counting:
 *
 * - before each session the prompt file's identity and text are noted; after it, a file that changed is read again,
 *   and a `verify:` that differs (and is not the result of a persisted `control amend`) is a verifier fault — the
 *   attempt halts the run — and is written to `<store>/contract_edits/<prompt>.json`;
 * - a runner that dies before that comparison cannot make it: the `verify:` it loaded is noted on the prompt's state
 *   entry before the session (`loaded_contract`), and the next run records an edit when the file's `verify:` differs
 *   from it ({@link editSinceInterrupt}); a runner stopped alive compares the file when it stops the session;
 * - while that file exists and the prompt's `verify:` on disk is still the edited one, `run`, `run --dry-run`, `start`
 *   and `plan` refuse the prompt (exit 3, `contract_edited_in_session`). Restoring the block, or changing it again,
 *   lifts the refusal; `--accept-contract-edits` keeps the edited contract, on the audit log under the operator's name.
 */
import { PacketError } from "../errors.ts";
import type { Prompt } from "../packet/mod.ts";
import type { PromptState } from "./state.ts";
import { verifyDigest, verifyOfText } from "../contract/persisted.ts";
import { readAmendments } from "../contract/enforced.ts";
import { storePaths } from "../store/paths.ts";
import { appendStoreLine, atomicWriteStoreText, ensureStoreDir, lstatStoreSync } from "../util/safe_fs.ts";
import { readStoreTextOrNull } from "../util/safe_read.ts";
import { isRecord } from "../util/is_record.ts";
import { nowIso } from "../util/time.ts";

/** `<store>/contract_edits/<prompt>.json`: a prompt's `verify:` as its session left it, and as it was before. */
export interface ContractEdit {
  schema: "prompt_runner.contract_edit/v1";
  prompt_id: string;
  /** The prompt file, relative to the packet. */
  file: string;
  run_id: string;
  attempt: number;
  at: string;
  verify_before: Record<string, unknown[]>;
  verify_after: Record<string, unknown[]>;
  digest_before: string;
  digest_after: string;
  /**
   * Found by a later run, not after the session: the `verify:` changed after the run of an attempt whose runner died
   * loaded it, so its session may have changed it, or someone did after the runner stopped.
   */
  interrupted?: true;
}

/** The prompt file as a session started: its identity and its text. */
interface Noted {
  ino: number | null;
  size: number;
  mtime: number | null;
  text: string | null;
}

function noteOf(file: string): Omit<Noted, "text"> | null {
  try {
    const st = Deno.statSync(file);
    return { ino: st.ino, size: st.size, mtime: st.mtime?.getTime() ?? null };
  } catch {
    return null;
  }
}

/** The prompt files of one run's sessions, noted before each session and compared after it. */
export class ContractGuard {
  readonly #noted = new Map<string, Noted>();

  /**
   * Note the prompt file before its session starts (a stat and one read; nothing is parsed). Synchronous: a prompt file
   * is small (the packet's load read it whole already), and this read is on the path from one prompt's baseline to its
   * session, where a hop to a worker thread and back costs more than the read (docs/bench.md, "Sixteenth pass").
   */
  begin(prompt: Prompt): void {
    const id = noteOf(prompt.file);
    let text: string | null = null;
    if (id !== null) {
      try {
        text = Deno.readTextFileSync(prompt.file);
      } catch { /* gone or unreadable: nothing to compare after the session */ }
    }
    this.#noted.set(prompt.id, { ...(id ?? { ino: null, size: -1, mtime: null }), text });
  }

  /**
   * After the session: the edit it made to the prompt's `verify:`, or null. An unchanged file is not read; a
   * `verify:` changed by a persisted `control amend` (its record names the digest it wrote) is no edit of the session.
   */
  async edited(prompt: Prompt, storeRoot: string, runId: string, attempt: number): Promise<ContractEdit | null> {
    const before = this.#noted.get(prompt.id);
    this.#noted.delete(prompt.id);
    if (before === undefined || before.text === null) return null;
    const now = noteOf(prompt.file);
    if (now !== null && now.ino === before.ino && now.size === before.size && now.mtime === before.mtime) return null;
    const text = await Deno.readTextFile(prompt.file).catch(() => null);
    if (text === null || text === before.text) return null; // gone or unreadable: the next load reports it
    let verifyBefore: Record<string, unknown[]>, verifyAfter: Record<string, unknown[]>;
    try {
      verifyBefore = await verifyOfText(before.text);
      verifyAfter = await verifyOfText(text);
    } catch {
      return null; // a front matter that no longer parses: the next load refuses it by name
    }
    const noted = { verify: verifyBefore, digest: await verifyDigest(verifyBefore) };
    return await editOf(storeRoot, prompt, { runId, attempt }, noted, verifyAfter);
  }
}

/**
 * The edit record of a `verify:` that went from `before` to `after`, or null when it did not change or a persisted
 * `control amend` wrote it (its record names the digest it wrote).
 */
async function editOf(
  storeRoot: string,
  prompt: Prompt,
  at: { runId: string; attempt: number; interrupted?: true },
  before: { verify: Record<string, unknown[]>; digest: string },
  after: Record<string, unknown[]>,
): Promise<ContractEdit | null> {
  const digestAfter = await verifyDigest(after);
  if (digestAfter === before.digest) return null;
  const records = await readAmendments(storeRoot, prompt.id);
  if (records.some((r) => r.persisted === true && r.verify_digest_after === digestAfter)) return null;
  return {
    schema: "prompt_runner.contract_edit/v1",
    prompt_id: prompt.id,
    file: prompt.relFile,
    run_id: at.runId,
    attempt: at.attempt,
    at: nowIso(),
    verify_before: before.verify,
    verify_after: after,
    digest_before: before.digest,
    digest_after: digestAfter,
    ...(at.interrupted ? { interrupted: true as const } : {}),
  };
}

/**
 * A contract edit a dead runner could not see (docs/amendments.md, "Edited during its session"): the prompt's latest
 * attempt was left running or interrupted by a runner that never compared the file after its session (not stopped by
 * a live runner, no verdict), and the `verify:` loaded now differs from the one that run noted before the session —
 * and no persisted `control amend` wrote it. Null otherwise, and for an entry noted by no run.
 */
export async function editSinceInterrupt(
  storeRoot: string,
  prompt: Prompt,
  entry: PromptState | undefined,
): Promise<ContractEdit | null> {
  const last = entry?.attempts.at(-1);
  const noted = entry?.loaded_contract;
  if (last === undefined || noted === undefined || noted.run_id !== last.run_id) return null;
  if (last.status !== "running" && last.status !== "interrupted") return null;
  if (last.decision === "stop" || (last.verification ?? null) !== null) return null; // compared by its runner
  const at = { runId: last.run_id, attempt: last.attempt, interrupted: true as const };
  return await editOf(storeRoot, prompt, at, { verify: noted.verify, digest: noted.verify_digest }, prompt.verify);
}

/** The fault an edited contract makes of the attempt's verdict. */
export function editFault(e: ContractEdit): string {
  return `${e.file}: verify: was changed during prompt ${e.prompt_id}'s session (attempt ${e.attempt}), not through ` +
    "control amend; a session may not change the contract that judges it. This run verified the contract it loaded; " +
    "the next run refuses the prompt until the verify: block is restored, changed again, or accepted with " +
    "--accept-contract-edits";
}

/** Write the edit's record (`<store>/contract_edits/<prompt>.json`). */
export async function recordEdit(storeRoot: string, e: ContractEdit): Promise<void> {
  const p = storePaths(storeRoot);
  await ensureStoreDir(p.root, p.contractEdits);
  await atomicWriteStoreText(p.contractEditFile(e.prompt_id), JSON.stringify(e, null, 2) + "\n");
}

async function readEdit(storeRoot: string, promptId: string): Promise<ContractEdit | null> {
  const text = await readStoreTextOrNull(storePaths(storeRoot).contractEditFile(promptId));
  if (text === null) return null;
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    doc = null;
  }
  if (!isRecord(doc) || typeof doc.digest_after !== "string" || typeof doc.digest_before !== "string") {
    // Its prompt would run again under a contract its own session may have written: refuse by name instead.
    throw new PacketError(
      "contract_edited_in_session",
      `${storePaths(storeRoot).contractEditFile(promptId)} is not a contract edit record; ` +
        `expected {digest_before, digest_after, …} as the runner writes it`,
      { hints: ["restore it from a copy, or remove it knowingly once prompt " + promptId + "'s verify: is checked"] },
    );
  }
  return doc as unknown as ContractEdit;
}

/** The prompts with an edit record (one listing; none when the directory is absent). */
function editedIds(storeRoot: string): Set<string> {
  const dir = storePaths(storeRoot).contractEdits;
  const ids = new Set<string>();
  if (lstatStoreSync(dir, "dir") === null) return ids;
  for (const e of Deno.readDirSync(dir)) if (e.name.endsWith(".json")) ids.add(e.name.slice(0, -5));
  return ids;
}

/** What the edit records of `prompts` decide now: refused (still the edited contract), or settled (moved on). */
export interface EditStanding {
  refused: { prompt: Prompt; edit: ContractEdit }[];
  settled: { prompt: Prompt; edit: ContractEdit; restored: boolean }[];
}

/** Compare each selected prompt's loaded `verify:` with its edit record, if it has one. */
export async function editStanding(storeRoot: string, prompts: readonly Prompt[]): Promise<EditStanding> {
  const out: EditStanding = { refused: [], settled: [] };
  const ids = editedIds(storeRoot);
  if (ids.size === 0) return out;
  for (const prompt of prompts) {
    if (!ids.has(prompt.id)) continue;
    const edit = await readEdit(storeRoot, prompt.id);
    if (edit === null) continue;
    const digest = await verifyDigest(prompt.verify);
    if (digest === edit.digest_after) out.refused.push({ prompt, edit });
    else out.settled.push({ prompt, edit, restored: digest === edit.digest_before });
  }
  return out;
}

/** The refusal of prompts whose contract is still the one their session wrote, or null. */
export function editRefusal(standing: EditStanding): PacketError | null {
  const first = standing.refused[0];
  if (!first) return null;
  const line = (r: { prompt: Prompt; edit: ContractEdit }) =>
    r.edit.interrupted
      ? `${r.edit.file}: verify: changed after run ${r.edit.run_id} loaded it for prompt ${r.prompt.id}'s attempt ` +
        `${r.edit.attempt}, whose runner died before it could compare the file after the session (that session ` +
        `may have changed it, or someone did since); before it: ${JSON.stringify(r.edit.verify_before)}`
      : `${r.edit.file}: verify: is the contract prompt ${r.prompt.id}'s own session wrote (run ${r.edit.run_id}, ` +
        `attempt ${r.edit.attempt}); before it: ${JSON.stringify(r.edit.verify_before)}`;
  return new PacketError("contract_edited_in_session", `refusing to run: ${line(first)}`, {
    file: first.edit.file,
    key: "verify",
    hints: [
      ...standing.refused.slice(1).map(line),
      "restore the verify: block (or change it), or keep the edited contract with --accept-contract-edits " +
      "(recorded on the audit log under your name)",
    ],
    details: { prompt_id: first.prompt.id, prompts: standing.refused.map((r) => r.prompt.id) },
  });
}

/**
 * Lift the records that no longer hold a prompt back (`settled`), and with `accept` those that do, each acceptance an
 * entry of the audit log (`control/log.jsonl`) under `author`. Returns the lines to tell the operator.
 */
export async function settleEdits(
  storeRoot: string,
  standing: EditStanding,
  accept: { author: string } | null,
): Promise<string[]> {
  const p = storePaths(storeRoot);
  const said: string[] = [];
  for (const s of standing.settled) {
    await Deno.remove(p.contractEditFile(s.prompt.id)).catch(() => {});
    said.push(
      s.restored
        ? `Prompt ${s.prompt.id}: its verify: is restored to what it was before its session edited it`
        : `Prompt ${s.prompt.id}: its verify: changed again since its session edited it; the contract on disk applies`,
    );
  }
  if (accept === null) return said;
  for (const r of standing.refused) {
    await ensureStoreDir(p.root, p.control);
    await appendStoreLine(
      p.log,
      JSON.stringify({
        at: nowIso(),
        key: `contract_edit:${r.prompt.id}:${r.edit.digest_after}`,
        request: null,
        run_id: r.edit.run_id,
        command: "accept_contract_edit",
        params: {
          file: r.edit.file,
          attempt: r.edit.attempt,
          verify_before: r.edit.verify_before,
          verify_after: r.edit.verify_after,
        },
        author: accept.author,
        outcome: "applied",
        reason: "--accept-contract-edits",
        prompt_id: r.prompt.id,
        attempt: r.edit.attempt,
      }),
      { fsync: true },
    );
    await Deno.remove(p.contractEditFile(r.prompt.id)).catch(() => {});
    said.push(
      `Prompt ${r.prompt.id}: the verify: its session wrote is kept (--accept-contract-edits, on the audit log)`,
    );
  }
  return said;
}
