/**
 * Creating a store root and its control directory (docs/reference/control-plane.md §2, docs/reference/runner.md §10.1): directories 0700,
 * files 0600, `store.json` naming the packet, and a `.gitignore` of `*` so runtime state never shows in git.
 */
import {
  atomicWriteStoreJsonSync,
  createStoreFileOnceSync,
  ensureStoreDirSync,
  secureStoreRootSync,
} from "../util/safe_fs.ts";
import { readStoreTextOrNull, readStoreTextOrNullSync } from "../util/safe_read.ts";
import { storePaths } from "./paths.ts";
import { assertStoreIntact } from "./guard.ts";
import { isRecord } from "../util/common.ts";

/** Schema tag of `store.json`. */
const STORE_SCHEMA = "prompt_runner.store/v1";

/** The `store.json` document. */
export interface StoreInfo {
  schema: typeof STORE_SCHEMA;
  kind: "packet" | "workspace";
  packet_dir: string;
  workspace_id?: string;
  manifest?: string;
}

/**
 * Create the store root (0700) with `.gitignore` and `store.json` (rewritten only when its content differs).
 * Synchronous: the runner calls it while opening the plane.
 */
export function ensureStoreRoot(
  storeRoot: string,
  info: { kind: "packet" | "workspace"; packetDir: string; workspaceId?: string | null; manifest?: string | null },
): void {
  const p = storePaths(storeRoot);
  // Owned by this user, not a symlink, 0700, `.gitignore` never written through a link (docs/store.md).
  ensureStoreIgnored(storeRoot);
  assertStoreIntact(p.root);
  const doc: StoreInfo = { schema: STORE_SCHEMA, kind: info.kind, packet_dir: info.packetDir };
  if (info.workspaceId) doc.workspace_id = info.workspaceId;
  if (info.manifest) doc.manifest = info.manifest;
  const current = readStoreTextOrNullSync(p.storeJson);
  // Keep the workspace facts that target resolution recorded when a caller (the plane) does not know them.
  try {
    const prev: unknown = current === null ? null : JSON.parse(current);
    if (isRecord(prev) && prev.kind === doc.kind && prev.packet_dir === doc.packet_dir) {
      if (!doc.workspace_id && typeof prev.workspace_id === "string") doc.workspace_id = prev.workspace_id;
      if (!doc.manifest && typeof prev.manifest === "string") doc.manifest = prev.manifest;
    }
  } catch { /* unreadable: rewritten below */ }
  if (current === null || current !== JSON.stringify(doc, null, 2) + "\n") atomicWriteStoreJsonSync(p.storeJson, doc);
}

/**
 * Create the store root (0700) with its `.gitignore` of `*` when absent, so a store root created by a writer other
 * than the runner (an amendment before the first run) never shows in git either.
 */
export function ensureStoreIgnored(storeRoot: string): void {
  const p = storePaths(storeRoot);
  secureStoreRootSync(p.root);
  createStoreFileOnceSync(p.gitignore, "*\n");
}

/** Create every directory of the control plane (0700). Throws when the control directory cannot be created. */
export function ensureControlDirs(storeRoot: string): void {
  const p = storePaths(storeRoot);
  for (const dir of [p.control, p.controlTmp, p.requests, p.outcomes, p.rejected, p.eventsArchive, p.interventions]) {
    ensureStoreDirSync(p.root, dir);
  }
}

/** Read `store.json`; null when absent or not an object with a string `packet_dir`. */
export async function readStoreInfo(storeRoot: string): Promise<StoreInfo | null> {
  const text = await readStoreTextOrNull(storePaths(storeRoot).storeJson);
  if (text === null) return null;
  try {
    const v: unknown = JSON.parse(text);
    if (!isRecord(v) || typeof v.packet_dir !== "string") return null;
    const out: StoreInfo = {
      schema: STORE_SCHEMA,
      kind: v.kind === "workspace" ? "workspace" : "packet",
      packet_dir: v.packet_dir,
    };
    if (typeof v.workspace_id === "string") out.workspace_id = v.workspace_id;
    if (typeof v.manifest === "string") out.manifest = v.manifest;
    return out;
  } catch {
    return null;
  }
}
