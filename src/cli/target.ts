/**
 * Target resolution (cli.md §2): which packet (or, later, workspace) a command addresses, its store root, and the
 * positionals left for the command (ids, steer text).
 */
import { NotFoundError, UsageError } from "../errors.ts";
import { storeRootForPacket } from "../control/store.ts";
import type { FlagValues } from "./frame.ts";

/** The manifest file that makes a directory a packet. */
const MANIFEST = "prompt_runner_packet.md";

/** A resolved target. */
export interface ResolvedTarget {
  kind: "packet" | "workspace";
  /** Canonical packet dir. */
  packetDir: string;
  /** Store root: `<packet>/.prompt_runner` (or a workspace's external state root). */
  storeRoot: string;
  /** Positionals after the target. */
  rest: string[];
  /** Display label (the packet dir's base name, or the workspace id). */
  label: string;
}

/** Options of {@link resolveTarget}. */
export interface ResolveTargetOptions {
  /**
   * Whether positionals may follow the target (ids, steer text). Default true. With false, a leftover positional
   * is a usage error.
   */
  idsFollow?: boolean;
  /** Working directory used when no target is given (default `Deno.cwd()`). */
  cwd?: string;
}

/**
 * WORKSPACE HOOK (workspace.md §5): the workspace engineer replaces this with real resolution of `--workspace M`,
 * `.yml`/`.yaml` manifest positionals, registered workspace ids, and discovery from the cwd. It returns null when
 * `value` does not name a workspace (then packet rules apply), or a target.
 */
export type WorkspaceResolver = (
  input: { kind: "flag" | "manifest" | "id" | "discover"; value: string; packetFlag: string | null; rest: string[] },
) => Promise<ResolvedTarget | null>;

let workspaceResolver: WorkspaceResolver | null = null;

/** Install the workspace resolver (called once by the workspace module; tests may reset it with null). */
export function setWorkspaceResolver(r: WorkspaceResolver | null): void {
  workspaceResolver = r;
}

async function statOrNull(path: string): Promise<Deno.FileInfo | null> {
  try {
    return await Deno.stat(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory) return null;
    throw e;
  }
}

function absolute(path: string, cwd: string): string {
  return path.startsWith("/") ? path : `${cwd.replace(/\/+$/, "")}/${path}`;
}

async function packetTarget(dir: string, rest: string[], given: string): Promise<ResolvedTarget> {
  const info = await statOrNull(dir);
  if (!info) throw new NotFoundError("target_not_found", `target not found: ${given}`);
  if (!info.isDirectory) throw new NotFoundError("target_not_found", `target is not a directory: ${given}`);
  const real = await Deno.realPath(dir);
  if (!(await statOrNull(`${real}/${MANIFEST}`))) {
    throw new NotFoundError("target_not_found", `${real} is not a packet: ${MANIFEST} not found`, {
      hints: ["pass a packet directory, or --packet DIR"],
    });
  }
  return {
    kind: "packet",
    packetDir: real,
    storeRoot: storeRootForPacket(real),
    rest,
    label: real.slice(real.lastIndexOf("/") + 1) || real,
  };
}

function workspaceUnsupported(what: string): NotFoundError {
  return new NotFoundError("unknown_workspace", `workspace targets are not available yet: ${what}`);
}

/**
 * Resolve a command's target (cli.md §2): `--workspace M` (hook), `--packet P`, a first positional that is an
 * existing directory (or a workspace manifest / id, via the hook), else the current directory. A positional that
 * looks like a target (contains `/` or ends `.yml`/`.yaml`) but does not resolve → `target_not_found` (exit 4).
 */
export async function resolveTarget(
  positionals: string[],
  flags: FlagValues,
  opts: ResolveTargetOptions = {},
): Promise<ResolvedTarget> {
  const cwd = opts.cwd ?? Deno.cwd();
  const packetFlag = typeof flags.packet === "string" ? flags.packet : null;
  const workspaceFlag = typeof flags.workspace === "string" ? flags.workspace : null;
  const finish = (t: ResolvedTarget): ResolvedTarget => {
    if (opts.idsFollow === false && t.rest.length > 0) {
      throw new UsageError("unexpected_argument", `unexpected argument "${t.rest[0]}"`);
    }
    return t;
  };

  if (workspaceFlag !== null) {
    const t = workspaceResolver
      ? await workspaceResolver({ kind: "flag", value: workspaceFlag, packetFlag, rest: positionals })
      : null;
    if (!t) throw workspaceUnsupported(workspaceFlag);
    return finish(t);
  }
  if (packetFlag !== null) {
    return finish(await packetTarget(absolute(packetFlag, cwd), positionals, packetFlag));
  }
  const first = positionals[0];
  if (first !== undefined && first !== "") {
    const path = absolute(first, cwd);
    const info = await statOrNull(path);
    if (info?.isDirectory) return finish(await packetTarget(path, positionals.slice(1), first));
    const looksManifest = /\.ya?ml$/i.test(first);
    if (info?.isFile && looksManifest) {
      const t = workspaceResolver
        ? await workspaceResolver({ kind: "manifest", value: path, packetFlag, rest: positionals.slice(1) })
        : null;
      if (!t) throw workspaceUnsupported(first);
      return finish(t);
    }
    if (workspaceResolver && !first.includes("/") && !looksManifest) {
      const t = await workspaceResolver({ kind: "id", value: first, packetFlag, rest: positionals.slice(1) });
      if (t) return finish(t);
    }
    if (first.includes("/") || looksManifest) {
      throw new NotFoundError("target_not_found", `target not found: ${first}`, {
        hints: ["a TARGET is a packet directory, a workspace manifest (.yml) or a workspace id"],
      });
    }
  }
  if (workspaceResolver) {
    const t = await workspaceResolver({ kind: "discover", value: cwd, packetFlag, rest: positionals });
    if (t) return finish(t);
  }
  const info = await statOrNull(`${cwd}/${MANIFEST}`);
  if (!info) {
    throw new NotFoundError("target_not_found", `no packet here: ${cwd} has no ${MANIFEST}`, {
      hints: ["pass a packet directory as TARGET, or --packet DIR"],
    });
  }
  return finish(await packetTarget(cwd, positionals, cwd));
}
