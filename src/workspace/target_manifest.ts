/**
 * The workspace a manifest-level command addresses (`workspace plan|doctor`): unlike a run target it need not be
 * prepared yet. `[TARGET]` or `--workspace M` is a manifest file or a registered id; without one, the prepared
 * workspace related to the current directory (docs/reference/workspace.md §5).
 */
import { NotFoundError, UsageError } from "../errors.ts";
import { canonicalPath } from "./guard.ts";
import { loadWorkspaceManifest, type WorkspaceManifest } from "./manifest.ts";
import type { EnvGet } from "./paths.ts";
import { discoverWorkspace, findRegistered } from "./registry.ts";

/** Load the manifest named by `given` (a manifest path or a registered id), or discovered from `cwd` when null. */
export async function manifestForTarget(given: string | null, cwd: string, env?: EnvGet): Promise<WorkspaceManifest> {
  if (given === null) {
    const id = await discoverWorkspace(canonicalPath(cwd), env);
    const entry = id === null ? null : await findRegistered(id, env);
    if (!entry) {
      throw new UsageError("missing_argument", `no workspace named and none related to ${cwd}`, {
        hints: ["name one: a workspace manifest (.yml) or a registered workspace id"],
      });
    }
    return await loadWorkspaceManifest(entry.manifest);
  }
  const path = given.startsWith("/") ? given : `${cwd.replace(/\/+$/, "")}/${given}`;
  if (await Deno.stat(path).then((s) => s.isFile, () => false)) return await loadWorkspaceManifest(path);
  const entry = given.includes("/") ? null : await findRegistered(given, env);
  if (!entry) {
    throw new NotFoundError(
      "unknown_workspace",
      `unknown workspace "${given}": not a manifest file and not a registered workspace id`,
      { hints: ["run: prompt_runner workspace list"] },
    );
  }
  return await loadWorkspaceManifest(entry.manifest);
}

/** The one target of a manifest-level command: `--workspace M` or a single positional (both → usage error). */
export function manifestArgument(positionals: string[], flag: string | null, command: string): string | null {
  if (positionals.length > 1 || (flag !== null && positionals.length > 0)) {
    throw new UsageError("unexpected_argument", `${command} takes one workspace: a manifest path or an id`);
  }
  return flag ?? positionals[0] ?? null;
}
