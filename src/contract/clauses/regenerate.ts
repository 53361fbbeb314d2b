/** `regenerates` staging for commands that rebuild committed outputs (docs/reference/contract.md §4). */
import { join } from "../../util/path.ts";

/** Suffix of the backup a regenerated path is moved to while its command runs. */
export const BACKUP_SUFFIX = ".prompt-runner-verifier-backup";

async function present(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Move each existing declared path to its backup. A leftover backup whose path is missing is restored first; both
 * present is a staging error (the caller reports a fault).
 */
export async function stageRegenerated(
  root: string,
  paths: string[],
): Promise<{ ok: true } | { ok: false; error: string }> {
  for (const rel of paths) {
    const p = join(root, rel);
    const b = p + BACKUP_SUFFIX;
    const [hasP, hasB] = [await present(p), await present(b)];
    if (hasP && hasB) return { ok: false, error: `both ${rel} and ${rel}${BACKUP_SUFFIX} exist` };
    try {
      if (hasB) await Deno.rename(b, p);
      if (hasP || hasB) await Deno.rename(p, b);
    } catch (e) {
      return { ok: false, error: `${rel}: ${e instanceof Error ? e.message : String(e)}` };
    }
  }
  return { ok: true };
}

async function nonEmptyFile(path: string): Promise<boolean> {
  try {
    const st = await Deno.stat(path);
    return st.isFile && st.size > 0;
  } catch {
    return false;
  }
}

/**
 * After the command: when it passed and every declared path is a non-empty regular file, delete the backups
 * (`regenerated: true`); otherwise delete the new outputs and restore the backups, listing missing/empty outputs.
 */
export async function restoreRegenerated(
  root: string,
  paths: string[],
  passed: boolean,
): Promise<{ regenerated: boolean; missing: string[] }> {
  const missing: string[] = [];
  for (const rel of paths) if (!(await nonEmptyFile(join(root, rel)))) missing.push(rel);
  if (passed && missing.length === 0) {
    for (const rel of paths) await Deno.remove(join(root, rel) + BACKUP_SUFFIX, { recursive: true }).catch(() => {});
    return { regenerated: true, missing };
  }
  for (const rel of paths) {
    const p = join(root, rel);
    const b = p + BACKUP_SUFFIX;
    await Deno.remove(p, { recursive: true }).catch(() => {});
    if (await present(b)) await Deno.rename(b, p);
  }
  return { regenerated: false, missing };
}
