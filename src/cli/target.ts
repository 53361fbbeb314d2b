/**
 * Target resolution (docs/reference/cli.md §2): which packet or workspace a command addresses, its store root, and the positionals
 * left for the command (ids, steer text). Workspaces resolve through src/workspace/resolve.ts, installed as the
 * workspace hook when this module loads, so every command's resolution path knows them.
 */
import { NotFoundError, UsageError } from "../errors.ts";
import { storeRootForPacket } from "../store/paths.ts";
import type { RepoRemap } from "../packet/mod.ts";
import type { FlagSpec, FlagValues } from "./frame.ts";

/** Target flags: `--workspace` and `--packet`. */
export const TARGET_FLAGS: Record<string, FlagSpec> = {
  workspace: { type: "string", value: "M", description: "a workspace manifest path or a prepared workspace id" },
  packet: { type: "string", value: "P", description: "the packet directory" },
};

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
  /** Workspace facts (kind `workspace` only). */
  workspace?: {
    id: string;
    /** Absolute manifest path. */
    manifest: string;
    /** The workspace repository whose clone holds the packet, and the packet's path inside it. */
    repo: string;
    packetPath: string;
    /** Whether the packet is the manifest's default binding. */
    bound: boolean;
    /** `failure_policy: continue_independent` (= `run --keep-going`). */
    keepGoing: boolean;
    /** `commits.mode` (`session` = `run --no-commit` unless a commit flag is given). */
    commitMode: "runner" | "session";
    /** `operator.containment` (`systemd_user`: `start` launches a transient user unit). */
    containment: "process_group" | "systemd_user";
  };
  /** Repo mapping onto the clones (docs/reference/workspace.md §6.2); the loader applies it (registered for the packet dir). */
  repoRemap?: RepoRemap;
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
  /**
   * `control contract|amend|relax`: a workspace without `--packet` and without a default binding is a usage error
   * (`workspace_packet_binding_required`, exit 2) instead of falling back to its most recent packet store root.
   */
  requirePacketBinding?: boolean;
  /**
   * Create a workspace store root's `store.json` and `.gitignore` when missing. Default: whether the process may
   * write there (writing commands keep the write permission, read-only ones do not).
   */
  createStore?: boolean;
}

/**
 * Workspace hook (docs/reference/workspace.md §5): resolves `--workspace M`, `.yml`/`.yaml` manifest positionals, registered
 * workspace ids, and discovery from the cwd. It returns null when `value` does not name a workspace (then packet
 * rules apply), or a target. {@link defaultWorkspaceResolver} is installed by default.
 */
export type WorkspaceResolver = (
  input: {
    kind: "flag" | "manifest" | "id" | "discover";
    value: string;
    packetFlag: string | null;
    rest: string[];
    cwd?: string;
    requirePacketBinding?: boolean;
    createStore?: boolean;
  },
) => Promise<ResolvedTarget | null>;

let workspaceResolver: WorkspaceResolver | null = null;

/** Install the workspace resolver (installed below at module load; tests may reset it with null). */
export function setWorkspaceResolver(r: WorkspaceResolver | null): void {
  workspaceResolver = r;
}

function mayWrite(path: string): boolean {
  try {
    return Deno.permissions.querySync({ name: "write", path }).state === "granted";
  } catch {
    return false;
  }
}

/** The workspace resolver of src/workspace/resolve.ts adapted to {@link ResolvedTarget}. */
export const defaultWorkspaceResolver: WorkspaceResolver = async (input) => {
  // Loaded on first use: packet targets (the common case) never pay for the workspace code at start-up.
  const { resolveWorkspaceTarget } = await import("../workspace/resolve.ts");
  const w = await resolveWorkspaceTarget({
    kind: input.kind,
    value: input.value,
    packetFlag: input.packetFlag,
    cwd: input.cwd ?? Deno.cwd(),
    requirePacketBinding: input.requirePacketBinding ?? false,
    // Writing commands create the store root on first use (docs/reference/workspace.md §3).
    createStore: input.createStore ?? mayWrite,
  });
  if (!w) return null;
  (await import("../packet/load.ts")).registerRepoRemap(w.packetDir, w.remap);
  return {
    kind: "workspace",
    packetDir: w.packetDir,
    storeRoot: w.storeRoot,
    rest: input.rest,
    label: w.manifest.id,
    workspace: {
      id: w.manifest.id,
      manifest: w.manifest.path,
      repo: w.repo,
      packetPath: w.packetPath,
      bound: w.bound,
      keepGoing: w.keepGoing,
      commitMode: w.commitMode,
      containment: w.containment,
    },
    repoRemap: w.remap,
  };
};

workspaceResolver = defaultWorkspaceResolver;

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
 * Resolve a command's target (docs/reference/cli.md §2): `--workspace M` (hook), `--packet P`, a first positional that is an
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
  const extra = {
    cwd,
    ...(opts.requirePacketBinding !== undefined ? { requirePacketBinding: opts.requirePacketBinding } : {}),
    ...(opts.createStore !== undefined ? { createStore: opts.createStore } : {}),
  };
  const finish = (t: ResolvedTarget): ResolvedTarget => {
    if (opts.idsFollow === false && t.rest.length > 0) {
      throw new UsageError("unexpected_argument", `unexpected argument "${t.rest[0]}"`);
    }
    return t;
  };

  if (workspaceFlag !== null) {
    const t = workspaceResolver
      ? await workspaceResolver({ kind: "flag", value: workspaceFlag, packetFlag, rest: positionals, ...extra })
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
        ? await workspaceResolver({ kind: "manifest", value: path, packetFlag, rest: positionals.slice(1), ...extra })
        : null;
      if (!t) throw workspaceUnsupported(first);
      return finish(t);
    }
    if (workspaceResolver && !first.includes("/") && !looksManifest) {
      const t = await workspaceResolver({
        kind: "id",
        value: first,
        packetFlag,
        rest: positionals.slice(1),
        ...extra,
      });
      if (t) return finish(t);
    }
    if (first.includes("/") || looksManifest) {
      throw new NotFoundError("target_not_found", `target not found: ${first}`, {
        hints: ["a TARGET is a packet directory, a workspace manifest (.yml) or a workspace id"],
      });
    }
  }
  // A command that takes nothing but a TARGET names the word that did not resolve (`status nosuch`), never the cwd.
  const unresolved = first !== undefined && first !== "" ? first : null;
  const notATarget = unresolved === null
    ? ""
    : `"${unresolved}" is not a packet directory, a workspace manifest or a registered workspace id`;
  if (unresolved !== null && opts.idsFollow === false) {
    throw new NotFoundError("target_not_found", `target not found: ${notATarget}`, {
      hints: ["a TARGET is a packet directory, a workspace manifest (.yml) or a workspace id"],
    });
  }
  if (workspaceResolver) {
    const t = await workspaceResolver({ kind: "discover", value: cwd, packetFlag, rest: positionals, ...extra });
    if (t) return finish(t);
  }
  const info = await statOrNull(`${cwd}/${MANIFEST}`);
  if (!info) {
    const why = unresolved === null ? "" : `, and ${notATarget}`;
    throw new NotFoundError("target_not_found", `no packet here: ${cwd} has no ${MANIFEST}${why}`, {
      hints: ["pass a packet directory as TARGET, or --packet DIR"],
    });
  }
  return finish(await packetTarget(cwd, positionals, cwd));
}
