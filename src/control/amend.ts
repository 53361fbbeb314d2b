/**
 * Amendment (docs/reference/control-plane.md §9): `amend` adds requirements, `relax` removes them (with `confirm`);
 * the `contract` view is ./contract_view.ts. Validation happens first, in the §9.2 order, and nothing
 * is written on any error. Records go to `amendments/<prompt>.jsonl` and the audit log, each with one write + fsync.
 */
import { loadPacket } from "../packet/load.ts";
import type { Packet, Prompt } from "../packet/mod.ts";
import { type AmendmentRecord, CLAUSES } from "../contract/types.ts";
import { enforcedContract, foldAmendments } from "../contract/enforced.ts";
import { verifyDigest, verifyOfText } from "../contract/persisted.ts";
import { packetFingerprint } from "../packet/fingerprint.ts";
import { pathEscapes, validateEntry } from "../contract/entries.ts";
import { parsePathString } from "../contract/paths.ts";
import { latestVerification, timingClass } from "../contract/history.ts";
import { appendStoreLine, ensureStoreDir } from "../util/safe_fs.ts";
import { nowIso } from "../util/time.ts";
import { storePaths } from "../store/paths.ts";
import { ensureStoreIgnored } from "../store/layout.ts";
import { ControlError } from "./errors.ts";
import { defaultAuthor, isRecord } from "../util/common.ts";
import { readSnapshotOrNull } from "./snapshot.ts";
import { persistVerify, replaceVerifyBlock } from "./persist.ts";
import type { LogEntry } from "./log.ts";
import { findPrompt, type Resolved, resolveTarget, type Target } from "./contract_view.ts";
import { AmendIntent, settleIntents } from "./amend_intent.ts";
import { failpoint } from "../util/failpoint.ts";

export type { ContractView, Target } from "./contract_view.ts";

/** Options of {@link amend}. */
export interface AmendOptions {
  clause: string;
  entries: unknown[];
  reason: string;
  author?: string;
  persist?: boolean;
  /** Provenance: the current run id, when known. */
  runId?: string | null;
  /** Where the `recovered: …` lines of amendments a stopped command left go (./amend_intent.ts). */
  say?: (line: string) => void;
}

/** Options of {@link relax}. */
export interface RelaxOptions {
  clause: string;
  reason: string;
  confirm: boolean;
  operation?: "drop" | "replace" | "remove";
  entries?: unknown[];
  author?: string;
  persist?: boolean;
  runId?: string | null;
  /** Where the `recovered: …` lines of amendments a stopped command left go (./amend_intent.ts). */
  say?: (line: string) => void;
}

function requireReason(reason: unknown): string {
  if (typeof reason !== "string" || reason.trim() === "") {
    throw new ControlError("reason_required", "an amendment needs a reason (--reason)");
  }
  return reason.trim();
}

function requireClause(clause: string): void {
  if (!(CLAUSES as readonly string[]).includes(clause)) {
    throw new ControlError("unknown_clause", `"${clause}" is not a verify clause; known: ${CLAUSES.join(", ")}`, {
      details: { clause },
    });
  }
}

/** Where an entry points: an explicit repo name or null (the prompt's cwd), and a path when it has one. */
function entryTarget(
  clause: string,
  entry: unknown,
  repos: Record<string, string>,
): { repo: string | null; path: string | null } {
  if (clause === "repos_clean") {
    if (typeof entry === "string") return { repo: entry, path: null };
    return { repo: isRecord(entry) && typeof entry.repo === "string" ? entry.repo : null, path: null };
  }
  if (clause === "commands") {
    return { repo: isRecord(entry) && typeof entry.repo === "string" ? entry.repo : null, path: null };
  }
  if (typeof entry === "string") {
    const ref = parsePathString(entry, repos);
    return { repo: ref.repo, path: ref.path };
  }
  if (isRecord(entry)) {
    return {
      repo: typeof entry.repo === "string" ? entry.repo : null,
      path: typeof entry.path === "string" ? entry.path : null,
    };
  }
  return { repo: null, path: null };
}

async function checkEntries(packet: Packet, prompt: Prompt, clause: string, entries: unknown[]): Promise<void> {
  for (const [index, entry] of entries.entries()) {
    const problem = validateEntry(clause, entry);
    if (problem) {
      throw new ControlError("invalid_entry", `entry ${index + 1}: ${problem}`, {
        details: { index, message: problem },
      });
    }
  }
  const repos: Record<string, string> = { packet: packet.dir };
  for (const r of packet.repos) repos[r.name] = r.path;
  for (const [index, entry] of entries.entries()) {
    const { repo, path } = entryTarget(clause, entry, repos);
    if (repo !== null && repos[repo] === undefined) {
      throw new ControlError(
        "unknown_repo",
        `entry ${index + 1} names repo "${repo}", which the packet does not have`,
        {
          details: { index, repo, known: Object.keys(repos).sort() },
        },
      );
    }
    if (path === null) continue;
    const root = repo !== null ? repos[repo]! : prompt.cwd;
    if (await pathEscapes(root, path)) {
      throw new ControlError("path_escapes_repo", `entry ${index + 1}: "${path}" resolves outside ${root}`, {
        details: { index, path, root },
      });
    }
  }
}

async function record(
  t: Resolved,
  packet: Packet,
  prompt: Prompt,
  r: Omit<AmendmentRecord, "id" | "at" | "prompt" | "phase" | "prompt_file">,
  persist: boolean,
): Promise<AmendmentRecord> {
  const at = nowIso();
  const rand = crypto.getRandomValues(new Uint16Array(1))[0]!.toString(16).padStart(4, "0");
  const latest = await latestVerification(t.storeRoot, prompt.id);
  const full: AmendmentRecord = {
    id: `am-${at.replaceAll("-", "").replaceAll(":", "")}-${rand}`,
    at,
    prompt: prompt.id,
    author: r.author,
    reason: r.reason,
    phase: timingClass(latest),
    direction: r.direction,
    clause: r.clause,
    operation: r.operation,
    entries: r.entries,
    run_id: r.run_id,
    persisted: persist,
    prompt_file: prompt.relFile,
  };
  let next: Record<string, unknown[]> | null = null;
  if (persist) {
    next = foldAmendments({ ...prompt.verify }, [{ ...full, persisted: false }]);
    // The verify digests and packet fingerprints before and after the write-back, computed from the new text before
    // it is written: a live run folds the record until it reloads, and the same run resumes (docs/amendments.md).
    let after: Record<string, unknown[]>;
    try {
      after = await verifyOfText(replaceVerifyBlock(await Deno.readTextFile(prompt.file), next));
    } catch (e) {
      throw new ControlError(
        "invalid_entry",
        `cannot write the amendment back into ${prompt.relFile}: its rewritten front matter would not parse ` +
          `(${(e as Error).message}); nothing was written — edit its verify: block by hand or amend without --persist`,
      );
    }
    full.verify_digest_before = await verifyDigest(prompt.verify);
    full.verify_digest_after = await verifyDigest(after);
    if (full.verify_digest_after !== await verifyDigest(next)) {
      // The record would say `persisted` while the file enforces something else (a drop that did not happen).
      throw new ControlError(
        "invalid_entry",
        `cannot write the amendment back into ${prompt.relFile}: its verify: block is laid out in a way the ` +
          `write-back does not follow, and the file would not say what the amendment says; nothing was written`,
      );
    }
    full.packet_fingerprint_before = await packetFingerprint(packet);
    full.packet_fingerprint_after = await packetFingerprint({
      ...packet,
      prompts: packet.prompts.map((p) => (p.id === prompt.id ? { ...p, verify: after } : p)),
    });
  }
  const paths = storePaths(t.storeRoot);
  ensureStoreIgnored(t.storeRoot);
  await ensureStoreDir(paths.root, paths.amendments);
  const entry: LogEntry = {
    at: nowIso(),
    key: `amendment:${full.id}`,
    request: null,
    run_id: full.run_id,
    command: full.direction === "add" ? "amend" : "relax",
    params: {
      clause: full.clause,
      operation: full.operation,
      entries: full.entries,
      phase: full.phase,
      persisted: full.persisted,
      amendment_id: full.id,
    },
    author: full.author,
    outcome: "applied",
    reason: full.reason,
    prompt_id: full.prompt,
    attempt: null,
  };
  // The three writes are one amendment: a command stopped between two of them leaves its intent for the next
  // command or run to settle (./amend_intent.ts), never a changed contract without a record or a record without
  // its audit entry.
  const intent = await AmendIntent.begin(t.storeRoot, { record: full, entry, file: prompt.file });
  failpoint("control.amend_after_intent");
  if (next !== null) {
    try {
      await persistVerify(prompt.file, next);
    } catch (e) {
      await intent.done(); // the write-back failed: nothing is recorded
      throw e;
    }
    failpoint("control.amend_after_write_back");
  }
  await appendStoreLine(paths.amendmentsFile(prompt.id), JSON.stringify(full), { fsync: true });
  failpoint("control.amend_after_record");
  await ensureStoreDir(paths.root, paths.control);
  await appendStoreLine(paths.log, JSON.stringify(entry), { fsync: true });
  await intent.done();
  void packet;
  return full;
}

/**
 * After the docs/reference/control-plane.md §9.2 checks: refuse an `add` of an entry already required (`entry_already_required`) and any amendment
 * after which the enforced contract could never pass (`unsatisfiable_contract`); see ./amend_checks.ts.
 */
async function refuseIneffective(
  t: Resolved,
  packet: Packet,
  prompt: Prompt,
  operation: AmendmentRecord["operation"],
  clause: string,
  entries: unknown[],
): Promise<void> {
  // Loaded here, not at the top: the checks run the verifier's clause code, which `control contract` (a reader of
  // this module) never needs.
  const { promptEnv, refuseAbsent, refuseDuplicates, refuseUnsatisfiable } = await import("./amend_checks.ts");
  const { contract: before } = await enforcedContract(prompt, t.storeRoot);
  const env = promptEnv(packet, prompt, t.storeRoot);
  if (operation === "add") refuseDuplicates(before, clause, entries, env);
  if (operation === "remove") refuseAbsent(before, clause, entries);
  const change = { operation, clause, entries, persisted: false } as AmendmentRecord;
  refuseUnsatisfiable(before, foldAmendments(before, [change]), env);
}

async function currentRunId(storeRoot: string): Promise<string | null> {
  return (await readSnapshotOrNull(storeRoot))?.run_id ?? null;
}

/**
 * Add entries to a prompt's contract clause (docs/reference/control-plane.md §9). Validation order: `reason_required`, `unknown_clause`,
 * `prompt_not_found`, `no_entries`, `invalid_entry`, `unknown_repo`, `path_escapes_repo`, `entry_already_required`,
 * `unsatisfiable_contract`. With `persist` the prompt file's `verify` block is rewritten first (every other byte
 * kept); if that fails nothing is recorded. A command stopped mid-way leaves an intent that the next command or run
 * settles (./amend_intent.ts).
 *
 * @example
 * ```ts ignore
 * import { amend } from "./mod.ts";
 * const rec = await amend("examples/demo", "3", { clause: "files_exist", entries: ["NOTES.md"], reason: "scope fix" });
 * console.log(rec.phase); // "pre_verify" when nothing was verified yet
 * ```
 */
export async function amend(target: Target, promptId: string, opts: AmendOptions): Promise<AmendmentRecord> {
  const reason = requireReason(opts.reason);
  requireClause(opts.clause);
  const t = await resolveTarget(target);
  // An amendment a stopped command left half-written is settled first: this one then folds over a recorded contract.
  for (const line of await settleIntents(t.storeRoot)) opts.say?.(line);
  const packet = await loadPacket(t.packetDir);
  const prompt = findPrompt(packet, promptId);
  if (!Array.isArray(opts.entries) || opts.entries.length === 0) {
    throw new ControlError("no_entries", `amend needs at least one entry for ${opts.clause}`);
  }
  await checkEntries(packet, prompt, opts.clause, opts.entries);
  await refuseIneffective(t, packet, prompt, "add", opts.clause, opts.entries);
  return await record(t, packet, prompt, {
    author: opts.author?.trim() || defaultAuthor(),
    reason,
    direction: "add",
    clause: opts.clause,
    operation: "add",
    entries: [...opts.entries],
    run_id: opts.runId !== undefined ? opts.runId : t.runId ?? await currentRunId(t.storeRoot),
    persisted: !!opts.persist,
  }, !!opts.persist);
}

/**
 * Remove or weaken a prompt's contract clause (docs/reference/control-plane.md §9). Validation order: `confirmation_required`, `reason_required`,
 * `unknown_clause`, `prompt_not_found`, then for `replace`/`remove` the entries, then `unsatisfiable_contract` (a
 * narrowed `changed_paths_only`). Relaxing a clause the contract does not have is allowed and recorded.
 *
 * @example
 * ```ts ignore
 * import { relax } from "./mod.ts";
 * const rec = await relax("examples/demo", "3", { clause: "contains", reason: "wrong requirement", confirm: true });
 * console.log(rec.operation); // "drop"
 * ```
 */
export async function relax(target: Target, promptId: string, opts: RelaxOptions): Promise<AmendmentRecord> {
  if (opts.confirm !== true) {
    throw new ControlError("confirmation_required", "relaxing a contract needs explicit confirmation (--confirm)");
  }
  const reason = requireReason(opts.reason);
  requireClause(opts.clause);
  const t = await resolveTarget(target);
  // An amendment a stopped command left half-written is settled first: this one then folds over a recorded contract.
  for (const line of await settleIntents(t.storeRoot)) opts.say?.(line);
  const packet = await loadPacket(t.packetDir);
  const prompt = findPrompt(packet, promptId);
  const operation = opts.operation ?? "drop";
  const entries = operation === "drop" ? [] : [...(opts.entries ?? [])];
  if ((operation === "remove" || operation === "replace") && entries.length === 0) {
    const hint = operation === "replace" ? " (to drop the clause, use --drop)" : "";
    throw new ControlError("no_entries", `relax --${operation} needs at least one entry for ${opts.clause}${hint}`);
  }
  if (operation !== "drop") await checkEntries(packet, prompt, opts.clause, entries);
  await refuseIneffective(t, packet, prompt, operation, opts.clause, entries);
  return await record(t, packet, prompt, {
    author: opts.author?.trim() || defaultAuthor(),
    reason,
    direction: "relax",
    clause: opts.clause,
    operation,
    entries,
    run_id: opts.runId !== undefined ? opts.runId : t.runId ?? await currentRunId(t.storeRoot),
    persisted: !!opts.persist,
  }, !!opts.persist);
}
