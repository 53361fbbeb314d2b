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
import { parseProgress, parseProgressLine } from "../store/progress.ts";
import { storePaths } from "../store/paths.ts";
import type { Packet } from "../packet/mod.ts";
import {
  atomicWriteStoreJson,
  atomicWriteStoreText,
  ensureStoreDir,
  lstatStore,
  openStoreFile,
} from "../util/safe_fs.ts";
import { readStoreTextOrNull } from "../util/safe_read.ts";
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
  /** The sha256 the person trusts (`--expect-sha256`): a source with another digest is refused. */
  expectSha256?: string;
}

/** The largest source read: a progress.log holds one short line per prompt run. */
const MAX_SOURCE_BYTES = 16 * 1024 * 1024;

/** What a legacy progress line holds, field by field. */
const LINE_FORMAT = "<id>:<completed|failed>:<ISO timestamp>[:<suffix>]";

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
  await importSeam.afterValidate?.();
  return await underLock(input, lease.pid, async () => {
    await settleAndCheck();
    return await writeImport(input, receipt);
  });
}

/** Test seam: awaited after the source was validated, before the lock is taken and the source read again. */
export const importSeam: { afterValidate: (() => Promise<void>) | null } = { afterValidate: null };

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
      ` (pid ${lease.pid ?? "?"}); import-state refused: ${storePaths(input.storeRoot).runLock} is held, ` +
      "expected no live run",
    { hints: ["import only into a workspace that has never run; stop the run first if it should not be running"] },
  );
}

async function refuseFilled(input: ImportInput): Promise<void> {
  const paths = storePaths(input.storeRoot);
  if (await lstatStore(paths.progress, "file") !== null) {
    const done = await receipts(input.storeRoot);
    throw new RunFailedError(
      "import_progress_exists",
      `${paths.progress} already exists; import-state only fills an empty workspace runtime (expected no progress.log)`,
      { hints: done.length ? [`imported before, receipt: ${done.at(-1)}`] : ["resume it with: run --remaining"] },
    );
  }
}

/** Read and validate the source; the receipt and the progress text it describes (nothing written). */
async function buildImport(input: ImportInput): Promise<{ receipt: ImportReceipt; result: Uint8Array }> {
  const paths = storePaths(input.storeRoot);
  const bytes = await readSource(input.source);
  const sourceSha = await sha256(bytes);
  if (input.expectSha256 !== undefined && sourceSha !== input.expectSha256) {
    throw new RunFailedError(
      "import_digest_mismatch",
      `${input.source}: sha256 is ${sourceSha}; expected ${input.expectSha256} (--expect-sha256); import-state refused`,
      { hints: ["the file is not the one you checked: compare it again before importing"] },
    );
  }
  const text = new TextDecoder().decode(bytes);
  checkSourceLines(text, input.source);
  const latest = parseProgress(text, input.source);
  const known = new Set(input.packet.prompts.map((p) => p.id));
  const unknown = [...latest.keys()].filter((id) => !known.has(id)).sort();
  if (unknown.length > 0) {
    const ids = [...known];
    const expected = ids.length > 20 ? `${ids.slice(0, 20).join(", ")}, …` : ids.join(", ");
    throw new NotFoundError(
      "unknown_prompt",
      `${input.source}: prompt id(s) ${unknown.join(", ")} are not prompts of the packet ${input.packet.dir}; ` +
        `expected one of ${expected}`,
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
  // The source is read again under the lock: a file swapped after it was validated is refused, never imported.
  const now = await sha256(await readSource(input.source));
  if (now !== receipt.source_sha256) {
    throw new RunFailedError(
      "import_digest_mismatch",
      `${input.source} changed while it was imported: sha256 is now ${now}; expected ${receipt.source_sha256} ` +
        "(the digest validated); import-state refused",
      { hints: ["let whatever writes it finish, then import again"] },
    );
  }
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

/**
 * Read the legacy source: a regular file (a link to one is followed) of at most {@link MAX_SOURCE_BYTES}. A FIFO, a
 * device or a directory is refused before it is opened (opening a FIFO would wait for a writer forever).
 */
async function readSource(source: string): Promise<Uint8Array<ArrayBuffer>> {
  const info = await Deno.stat(source).catch(() => null);
  if (info === null) {
    throw new NotFoundError("target_not_found", `legacy progress file not found: ${source}`, {
      hints: ["name it with --source FILE"],
    });
  }
  const kind = (i: Deno.FileInfo) =>
    i.isFile ? "file" : i.isDirectory ? "directory" : i.isFifo ? "FIFO" : i.isSocket ? "socket" : "device";
  const invalid = (what: string) =>
    new RunFailedError(
      "import_source_invalid",
      `${source}: --source is ${what}; expected a regular progress.log file`,
      {
        hints: ["name the legacy packet's .prompt_runner/progress.log with --source FILE"],
      },
    );
  if (!info.isFile) throw invalid(`a ${kind(info)}`);
  if (info.size > MAX_SOURCE_BYTES) throw invalid(`${info.size} bytes, over the ${MAX_SOURCE_BYTES}-byte bound`);
  const file = await Deno.open(source, { read: true });
  try {
    const opened = await file.stat();
    if (!opened.isFile || opened.ino !== info.ino || opened.dev !== info.dev) throw invalid("replaced while read");
    const buf = new Uint8Array(MAX_SOURCE_BYTES + 1);
    let n = 0;
    while (n < buf.length) {
      const got = await file.read(buf.subarray(n));
      if (got === null) break;
      n += got;
    }
    if (n > MAX_SOURCE_BYTES) throw invalid(`over the ${MAX_SOURCE_BYTES}-byte bound`);
    return buf.slice(0, n);
  } finally {
    file.close();
  }
}

/** Refuse the first malformed line of the source, naming the line, the field and what it should hold. */
function checkSourceLines(text: string, source: string): void {
  let seen = 0;
  text.split("\n").forEach((raw, i) => {
    const line = raw.replace(/\r$/, "").trim();
    if (line === "") return;
    seen++;
    if (parseProgressLine(line) !== null) return;
    throw new RunFailedError(
      "import_source_invalid",
      `${source} line ${i + 1} is malformed: ${lineProblem(line)}; import-state refused`,
      { hints: [`every line reads ${LINE_FORMAT}`] },
    );
  });
  if (seen === 0) {
    throw new RunFailedError(
      "import_source_invalid",
      `${source} is empty; expected at least one ${LINE_FORMAT} line`,
      { hints: ["nothing to carry over: run the workspace from the start"] },
    );
  }
}

/** Which field of a malformed progress line is wrong, and what it should be. */
function lineProblem(line: string): string {
  const shown = (v: string) => JSON.stringify(v.length > 80 ? v.slice(0, 80) + "…" : v);
  const parts = line.split(":");
  if (parts.length < 3) return `${shown(line)} has ${parts.length} field(s); expected ${LINE_FORMAT}`;
  const [id, status] = parts as [string, string];
  if (!/^\d+$/.test(id.trim())) return `field prompt id is ${shown(id)}; expected digits (e.g. 01)`;
  if (status !== "completed" && status !== "failed") {
    return `field status is ${shown(status)}; expected completed or failed`;
  }
  const rest = parts.slice(2).join(":");
  return `field timestamp is ${shown(rest)}; expected an ISO 8601 time (2026-08-10T02:00:00Z), then an optional suffix`;
}
