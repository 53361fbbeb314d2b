/**
 * `workspace import-state` (docs/reference/workspace.md §10.3): a one-time bridge from a packet-local `progress.log`
 * into the empty store root of a workspace. Only each prompt's latest `completed` record is carried over (failed work
 * stays eligible to run); every id must be a prompt of the packet; an active run or existing destination progress
 * refuses it; a receipt with the sha256 of the source and of the written progress records exactly what was trusted.
 *
 * Crash safety: the receipt is written as `imports/<name>.json.pending`, then `progress.log` (atomic, fsynced), then
 * the receipt is renamed into place. A pending receipt found later is completed when `progress.log` begins with the
 * bytes it describes, and removed otherwise, so no receipt claims an import that did not happen.
 */
import { LeaseHeldError, NotFoundError, RunFailedError } from "../errors.ts";
import { readLease } from "../store/lease.ts";
import { parseProgress } from "../store/progress.ts";
import { storePaths } from "../store/paths.ts";
import type { Packet } from "../packet/mod.ts";
import {
  atomicWriteStoreJson,
  atomicWriteStoreText,
  ensureStoreDir,
  lstatStore,
  openStoreFile,
  readStoreTextOrNull,
} from "../util/safe_fs.ts";
import { nowIso } from "../util/time.ts";

/** `prompt_runner.state_import/v1`: the receipt, also printed by the command. */
export interface ImportReceipt {
  schema: "prompt_runner.state_import/v1";
  workspace: string;
  manifest: string;
  packet_dir: string;
  store_root: string;
  source: string;
  source_sha256: string;
  destination: string;
  result_sha256: string;
  result_bytes: number;
  imported_at: string;
  policy: "latest_completed_only";
  /** The imported prompts, in packet order, with what the source said. */
  completed: { id: string; source_at: string; source_suffix: string | null }[];
  /** Prompts whose latest source record is `failed`: not imported, they run again. */
  not_imported: { id: string; status: string }[];
  /** Where this receipt is. */
  receipt: string;
}

/** What an import needs. */
export interface ImportInput {
  workspace: string;
  manifest: string;
  packet: Packet;
  storeRoot: string;
  /** The legacy progress file. */
  source: string;
}

async function sha256(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(hash, (b) => b.toString(16).padStart(2, "0")).join("");
}

function importsDir(storeRoot: string): string {
  return storePaths(storeRoot).imports;
}

/** Complete or drop pending receipts left by an interrupted import (see the module note). */
export async function settlePendingReceipts(storeRoot: string): Promise<void> {
  const dir = importsDir(storeRoot);
  let names: string[];
  try {
    names = (await Array.fromAsync(Deno.readDir(dir))).filter((e) => e.isFile && e.name.endsWith(".json.pending"))
      .map((e) => e.name);
  } catch {
    return;
  }
  const progressText = await readStoreTextOrNull(storePaths(storeRoot).progress);
  const progress = progressText === null ? null : new TextEncoder().encode(progressText);
  for (const name of names) {
    const pending = `${dir}/${name}`;
    let happened = false;
    // Store-safe read: a link planted in imports/ is refused (store_integrity), never followed.
    const text = await readStoreTextOrNull(pending);
    try {
      const r = JSON.parse(text ?? "") as Partial<ImportReceipt>;
      happened = progress !== null && typeof r.result_bytes === "number" && progress.length >= r.result_bytes &&
        await sha256(progress.slice(0, r.result_bytes)) === r.result_sha256;
    } catch { /* an unreadable pending receipt describes nothing that happened */ }
    if (happened) await Deno.rename(pending, pending.slice(0, -".pending".length));
    else await Deno.remove(pending);
  }
}

/** The receipts already in a store root (file names), oldest first. */
async function receipts(storeRoot: string): Promise<string[]> {
  try {
    return (await Array.fromAsync(Deno.readDir(importsDir(storeRoot)))).filter((e) => e.name.endsWith(".json"))
      .map((e) => `${importsDir(storeRoot)}/${e.name}`).sort();
  } catch {
    return [];
  }
}

/**
 * Import `input.source` into `input.storeRoot`; returns the receipt. Refusals throw and write nothing. The source is
 * validated first; then the run lock is taken and held to the last write, so a runner (or a second import) starting
 * meanwhile is refused (`lease_held`) instead of racing the import. Pending receipts are settled under the lock too.
 */
export async function importState(input: ImportInput): Promise<ImportReceipt> {
  const lease = await readLease(input.storeRoot);
  if (lease.state !== "down") throw busy(input, lease);
  // The legacy run itself may still be writing its progress (a packet-local store root holds its lease).
  const legacy = await readLease(input.source.slice(0, input.source.lastIndexOf("/")) || "/");
  if (legacy.state === "up") {
    throw new LeaseHeldError(
      "lease_held",
      `the legacy run writing ${input.source} is still active (pid ${legacy.pid ?? "?"}); import-state refused`,
      { hints: ["let it finish or stop it, then import"] },
    );
  }
  const settleAndCheck = async () => {
    await settlePendingReceipts(input.storeRoot);
    await refuseFilled(input);
  };
  if (await lstatStore(storePaths(input.storeRoot).progress, "file") !== null) {
    await underLock(input, lease.pid, settleAndCheck); // refuses, after completing an interrupted import's receipt
  }
  const receipt = await buildImport(input);
  return await underLock(input, lease.pid, async () => {
    await settleAndCheck();
    return await writeImport(input, receipt);
  });
}

/** Run `fn` holding the store root's run lock; a lock held by someone else is `lease_held`. */
async function underLock<T>(input: ImportInput, pid: number | null, fn: () => Promise<T>): Promise<T> {
  const lock = await openStoreFile(storePaths(input.storeRoot).runLock);
  try {
    if (!(await lock.tryLock(true))) throw busy(input, { state: "up", pid });
    return await fn();
  } finally {
    lock.close();
  }
}

function busy(input: ImportInput, lease: { state: string; pid: number | null }): LeaseHeldError {
  return new LeaseHeldError(
    "lease_held",
    `a run of workspace ${input.workspace} is ${lease.state === "up" ? "active" : "possibly active on another host"}` +
      ` (pid ${lease.pid ?? "?"}); import-state refused`,
    { hints: ["import only into a workspace that has never run; stop the run first if it should not be running"] },
  );
}

async function refuseFilled(input: ImportInput): Promise<void> {
  const paths = storePaths(input.storeRoot);
  if (await lstatStore(paths.progress, "file") !== null) {
    const done = await receipts(input.storeRoot);
    throw new RunFailedError(
      "import_progress_exists",
      `${paths.progress} already exists; import-state only fills an empty workspace runtime`,
      { hints: done.length ? [`imported before, receipt: ${done.at(-1)}`] : ["resume it with: run --remaining"] },
    );
  }
}

/** Read and validate the source; the receipt and the progress text it describes (nothing written). */
async function buildImport(input: ImportInput): Promise<{ receipt: ImportReceipt; result: Uint8Array }> {
  const paths = storePaths(input.storeRoot);
  const bytes = await Deno.readFile(input.source).catch(() => null);
  if (bytes === null) {
    throw new NotFoundError("target_not_found", `legacy progress file not found: ${input.source}`, {
      hints: ["name it with --source FILE"],
    });
  }
  const latest = parseProgress(new TextDecoder().decode(bytes), input.source);
  const known = new Set(input.packet.prompts.map((p) => p.id));
  const unknown = [...latest.keys()].filter((id) => !known.has(id)).sort();
  if (unknown.length > 0) {
    throw new NotFoundError(
      "unknown_prompt",
      `${input.source}: prompt id(s) ${unknown.join(", ")} are not prompts of the packet ${input.packet.dir}`,
      { hints: ["a legacy progress file of another packet (or of an older version of it) is not imported"] },
    );
  }
  const completed: ImportReceipt["completed"] = [];
  const notImported: ImportReceipt["not_imported"] = [];
  for (const p of input.packet.prompts) {
    const rec = latest.get(p.id);
    if (rec?.status === "completed") completed.push({ id: p.id, source_at: rec.at, source_suffix: rec.suffix });
    else if (rec) notImported.push({ id: p.id, status: rec.status });
  }
  if (completed.length === 0) {
    throw new RunFailedError("import_nothing_completed", `${input.source} has no completed prompt to import`, {
      hints: ["nothing to carry over: run the workspace from the start"],
    });
  }
  const result = completed.map((c) => `${c.id}:completed:${c.source_at}:no_session\n`).join("");
  const resultBytes = new TextEncoder().encode(result);
  const importedAt = nowIso();
  const sourceSha = await sha256(bytes);
  const name = `legacy-${importedAt.replace(/[^0-9]/g, "")}-${sourceSha.slice(0, 12)}.json`;
  const receipt: ImportReceipt = {
    schema: "prompt_runner.state_import/v1",
    workspace: input.workspace,
    manifest: input.manifest,
    packet_dir: input.packet.dir,
    store_root: paths.root,
    source: input.source,
    source_sha256: sourceSha,
    destination: paths.progress,
    result_sha256: await sha256(resultBytes),
    result_bytes: resultBytes.length,
    imported_at: importedAt,
    policy: "latest_completed_only",
    completed,
    not_imported: notImported,
    receipt: `${importsDir(input.storeRoot)}/${name}`,
  };
  return { receipt, result: resultBytes };
}

async function writeImport(
  input: ImportInput,
  { receipt, result }: { receipt: ImportReceipt; result: Uint8Array },
): Promise<ImportReceipt> {
  const paths = storePaths(input.storeRoot);
  await ensureStoreDir(paths.root, importsDir(input.storeRoot));
  const pending = `${receipt.receipt}.pending`;
  await atomicWriteStoreJson(pending, receipt, { fsync: true });
  try {
    await atomicWriteStoreText(paths.progress, new TextDecoder().decode(result), { fsync: true });
  } catch (e) {
    await Deno.remove(pending).catch(() => {});
    throw e;
  }
  await Deno.rename(pending, receipt.receipt);
  return receipt;
}
