/** The operator-owned workspace registry and discovery from the current directory (docs/reference/workspace.md §5). */
import { PacketError, UsageError } from "../errors.ts";
import { exists } from "../util/fs.ts";
import { loadWorkspaceManifest, type WorkspaceManifest } from "./manifest.ts";
import { type EnvGet, registryDir, workspacePaths } from "./paths.ts";
import { canonicalPath } from "./guard.ts";

/** A registry entry `workspace-references/<id>.json`. */
export interface RegistryEntry {
  workspace: string;
  manifest: string;
  lock: string;
  written_at: string;
}

/** Every registry entry, sorted by id. Undecodable entries are skipped. */
export async function listRegistry(env?: EnvGet): Promise<RegistryEntry[]> {
  const dir = registryDir(env);
  const out: RegistryEntry[] = [];
  try {
    for await (const e of Deno.readDir(dir)) {
      if (!e.isFile || !e.name.endsWith(".json")) continue;
      let doc: Partial<RegistryEntry> | null = null;
      try {
        doc = JSON.parse(await Deno.readTextFile(`${dir}/${e.name}`));
      } catch { /* unreadable entry: skipped */ }
      if (doc && typeof doc.workspace === "string" && typeof doc.manifest === "string") out.push(doc as RegistryEntry);
    }
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
  return out.sort((a, b) => a.workspace.localeCompare(b.workspace));
}

/** The registry entry of an id, or null. */
export async function findRegistered(id: string, env?: EnvGet): Promise<RegistryEntry | null> {
  return (await listRegistry(env)).find((e) => e.workspace === id) ?? null;
}

/**
 * Refuse to prepare `m` when its id is registered to another manifest that still declares that id (exit 3,
 * `workspace_manifest_invalid` naming the key `id`): the two would share clones, runtime state and registry entry, and
 * the second prepare would check its `ref` out under the first one's runs. A registered manifest that is gone, unreadable or now declares
 * another id has been moved or retired, and the id is free.
 */
export async function assertIdFree(m: WorkspaceManifest, env?: EnvGet): Promise<void> {
  const other = await idHolder(m, env);
  if (other === null) return;
  throw new PacketError(
    "workspace_manifest_invalid",
    `${m.path}: id: "${m.id}" is the id of the workspace registered from ${other}; expected an id no other ` +
      "manifest uses (a workspace id names one set of clones and one runtime root)",
    {
      file: m.path,
      key: "id",
      hints: ["give this manifest another id", `to move the workspace here, delete or rename ${other} first`],
    },
  );
}

/** The other manifest holding `m.id` in the registry (see {@link assertIdFree}), or null. */
export async function idHolder(m: WorkspaceManifest, env?: EnvGet): Promise<string | null> {
  const entry = await findRegistered(m.id, env);
  if (entry === null || entry.manifest === m.path) return null;
  const other = await loadWorkspaceManifest(entry.manifest).catch(() => null);
  return other !== null && other.id === m.id && other.path !== m.path ? other.path : null;
}

/** Whether a workspace is prepared: its lock exists and every clone exists. */
export async function isPrepared(m: WorkspaceManifest, env?: EnvGet): Promise<boolean> {
  const p = workspacePaths(m, env);
  if (!await exists(p.lockFile)) return false;
  for (const r of m.repositories) if (!await exists(p.clone(r.name))) return false;
  return true;
}

function related(a: string, b: string): boolean {
  const x = a.replace(/\/+$/, ""), y = b.replace(/\/+$/, "");
  return x === y || x.startsWith(y + "/") || y.startsWith(x + "/");
}

/**
 * Prepared registered workspaces related to `cwd` (manifest directory, clones or sources are ancestors or
 * descendants; paths compared canonically). Exactly one → its id; none → null; several → usage error listing them
 * (exit 2).
 */
export async function discoverWorkspace(cwd: string, env?: EnvGet): Promise<string | null> {
  const hits: string[] = [];
  for (const entry of await listRegistry(env)) {
    let m: WorkspaceManifest;
    try {
      m = await loadWorkspaceManifest(entry.manifest);
    } catch {
      // Deliberately skipped: the registry outlives workspaces (a moved or deleted manifest is a stale entry), and
      // discovery only guesses from cwd; a target naming the workspace loads its manifest and reports the problem.
      continue;
    }
    const p = workspacePaths(m, env);
    const places = [
      m.path.slice(0, m.path.lastIndexOf("/")),
      ...m.repositories.map((r) => p.clone(r.name)),
      ...m.repositories.flatMap((r) => (r.source ? [r.source] : [])),
    ].map(canonicalPath);
    if (places.some((pl) => related(cwd, pl)) && await isPrepared(m, env)) hits.push(m.id);
  }
  if (hits.length > 1) {
    throw new UsageError(
      "workspace_discovery_ambiguous",
      `the current directory belongs to several workspaces: ${hits.join(", ")}`,
      { hints: ["name one: prompt_runner <command> <workspace id>"] },
    );
  }
  return hits[0] ?? null;
}
