/**
 * The executables a run spawns, for a narrow `--allow-run=<list>` (docs/reference/cli.md §6): git, each prompt's lane executable as
 * the driver spawns it, the driver's own helpers, every verification command's executable, and the signal sender.
 * {@link neededExecutables} is pure; {@link runPermissionsFor} gathers its input from a loaded packet.
 *
 * Deno 2.9 facts this follows (checked with a probe under `--allow-run=a,b`): a bare name on the list grants
 * whatever it resolves to on PATH (also when spawned by that absolute path), a relative command resolves against the
 * spawn's `cwd`, `/bin/sh` is not granted by `sh`, `Deno.kill` needs an unrestricted `--allow-run` (so signals go
 * through the `kill` executable), `/proc` cannot be read directly (so it is read by `cat` and `/bin/sh`), and no
 * child may be spawned while an `LD_*` or `DYLD_*` variable is set.
 */
import { isAbsolute, join, normalize } from "../util/path.ts";
import { laneExecutables } from "../lanes/catalog.ts";
import type { Packet, Prompt } from "../packet/mod.ts";
import { isLegacyCommand, isRecord, pick, substituteRepo, validateEntry } from "../contract/entries.ts";
import { amendedPromptIds, enforcedContract, packetContract } from "../contract/enforced.ts";
import { canonicalJoin, canonicalPath } from "../contract/paths.ts";
import { repoIndex } from "../contract/context.ts";
import { KILL_EXECUTABLE } from "../util/executables.ts";

/** The shell legacy (string) verification commands run under (docs/reference/contract.md §4: `["bash", "-c", …]`). */
const LEGACY_SHELL = "bash";

/** One prompt as far as spawning goes. */
export interface PromptSpawns {
  id: string;
  /** The lane's spawns, or null for an in-process lane. */
  lane: { name: string; executable: string; helpers: readonly string[] } | null;
  /** The session's working directory: a relative lane executable resolves against it. */
  cwd: string;
  /** Default verification scope (canonical): root of `commands` entries without `repo`. */
  scope: string;
  /** The enforced `commands` entries, in order. */
  commands: unknown[];
}

/** Input of {@link neededExecutables}. */
export interface RunSpawnPlan {
  prompts: PromptSpawns[];
  /** The repo index (canonical roots) for `repo:` and `@repo:` substitutions. */
  repos: Record<string, string>;
  /** How a command's `cwd` resolves against its root (the verifier resolves symlinks; default: a plain join). */
  resolveDir?: (root: string, rel: string) => string;
}

/** One executable with what needs it. */
export interface NeededExecutable {
  command: string;
  needed_by: string[];
}

/** What {@link neededExecutables} returns. */
export interface RunPermissions {
  /** The `--allow-run` list, in a stable order: git, lanes, verification commands, helpers. */
  run: string[];
  needs: NeededExecutable[];
}

function plainDir(root: string, rel: string): string {
  return normalize(isAbsolute(rel) ? rel : join(root, rel));
}

/** The executable a `commands` entry spawns exactly as the verifier spawns it, or null when it is never run. */
export function commandExecutable(
  entry: unknown,
  scope: string,
  repos: Record<string, string>,
  resolveDir: (root: string, rel: string) => string = plainDir,
): string | null {
  if (validateEntry("commands", entry) !== null) return null;
  if (isLegacyCommand(entry)) return LEGACY_SHELL;
  if (!isRecord(entry)) return null;
  let root = scope;
  if (typeof entry.repo === "string") {
    const r = repos[entry.repo];
    if (r === undefined) return null;
    root = r;
  }
  const cwd = resolveDir(root, typeof entry.cwd === "string" ? entry.cwd : ".");
  const raw = String(pick(entry, "exec", "program"));
  const exec = raw.startsWith("@") && Object.hasOwn(repos, raw) ? repos[raw]! : substituteRepo(raw, repos);
  if (isAbsolute(exec)) return exec;
  return exec.includes("/") ? join(cwd, exec) : exec;
}

/** Every executable a run of these prompts spawns, with what needs each (pure). */
export function neededExecutables(plan: RunSpawnPlan): RunPermissions {
  const order: string[] = [];
  const why = new Map<string, string[]>();
  const add = (command: string, reason: string) => {
    let list = why.get(command);
    if (!list) {
      list = [];
      why.set(command, list);
      order.push(command);
    }
    if (!list.includes(reason)) list.push(reason);
  };
  add("git", "git (baseline, diffs, commits)");
  for (const p of plan.prompts) {
    if (p.lane === null) continue;
    const exe = p.lane.executable;
    add(exe.includes("/") && !isAbsolute(exe) ? join(p.cwd, exe) : exe, `lane ${p.lane.name}`);
  }
  let verifies = false;
  for (const p of plan.prompts) {
    p.commands.forEach((entry, i) => {
      const exe = commandExecutable(entry, p.scope, plan.repos, plan.resolveDir);
      if (exe === null) return;
      verifies = true;
      add(exe, `verification ${p.id} commands#${i + 1}`);
    });
  }
  for (const p of plan.prompts) {
    for (const h of p.lane?.helpers ?? []) add(h, "process driver (/proc reads, signals)");
  }
  if (verifies) add(KILL_EXECUTABLE, "verification deadlines (process-group signals)");
  return { run: order, needs: order.map((command) => ({ command, needed_by: why.get(command)! })) };
}

/** The exact Deno flag for a list, e.g. `--allow-run=git,claude`. */
export function allowRunFlag(run: readonly string[]): string {
  return `--allow-run=${run.join(",")}`;
}

/**
 * {@link neededExecutables} for selected prompts of a loaded packet: lanes from their effective options, commands
 * from the enforced contract (amendments on `storeRoot` folded in; the packet contract when null).
 */
export async function runPermissionsFor(
  packet: Packet,
  prompts: readonly Prompt[],
  storeRoot: string | null,
): Promise<RunPermissions> {
  const repos: Record<string, string> = {};
  for (const [name, root] of Object.entries(repoIndex(packet))) repos[name] = canonicalPath(root);
  const spawns: PromptSpawns[] = [];
  // Linear in the packet at a run's start: the amendments directory is listed once (a prompt without a file has its
  // packet contract) and each working directory resolved once (docs/bench.md, "Per-prompt cost").
  const amended = storeRoot === null ? new Set<string>() : amendedPromptIds(storeRoot);
  const scopes = new Map<string, string>();
  for (const p of prompts) {
    const contract = storeRoot === null || (amended !== null && !amended.has(p.id))
      ? packetContract(p)
      : (await enforcedContract(p, storeRoot)).contract;
    const lane = laneExecutables(p.options.provider, p.options);
    let scope = scopes.get(p.cwd);
    if (scope === undefined) scopes.set(p.cwd, scope = canonicalPath(p.cwd));
    spawns.push({
      id: p.id,
      lane: lane ? { name: p.options.provider, ...lane } : null,
      cwd: p.cwd,
      scope,
      commands: contract.commands ?? [],
    });
  }
  return neededExecutables({ prompts: spawns, repos, resolveDir: canonicalJoin });
}
