/**
 * The readiness report of `packet preflight` / `packet doctor` (docs/reference/cli.md §3.9): repo checks with git, the lane
 * probe, and (doctor) authoring warnings.
 */
import type { ProbeResult } from "../lanes/mod.ts";
import type { ExecutionOptions, Packet } from "../packet/mod.ts";
import { hasPlaceholderMarkers } from "../packet/prompt_text.ts";
import { discoverPromptFiles } from "../packet/load.ts";
import { runHelper } from "../util/helper.ts";

/** Repo error kinds. */
export type RepoErrorKind = "missing_path" | "path_not_found" | "not_a_directory" | "not_git_repo" | "git_unavailable";

/** One repo check. */
export interface RepoCheck {
  name: string;
  path: string;
  default: boolean;
  exists: boolean;
  directory: boolean;
  git: boolean;
  ready: boolean;
  errors: RepoErrorKind[];
}

/** An authoring warning (doctor only). */
export interface AuthoringWarning {
  kind: string;
  message: string;
  prompt_id: string | null;
  file: string | null;
}

/** A readiness problem (why `runtime_ready` is false). */
export interface ReadinessError {
  kind: string;
  repo: string | null;
  message: string;
}

/** The report of docs/reference/cli.md §3.9. */
export interface ReadinessReport {
  packet: string;
  root: string;
  manifest_path: string;
  prompt_dir: string;
  profile: string | null;
  provider: string;
  model: string;
  lane: { name: string; executable: string | null; path: string | null; version: string | null; available: boolean };
  repos: RepoCheck[];
  readiness_errors: ReadinessError[];
  runtime_ready: boolean;
  prompt_files: string[];
  authoring_warnings: AuthoringWarning[];
  authoring_ready: boolean;
  /**
   * `packet preflight`: prompts whose contract already passes on the current tree (docs/lint.md, added by the
   * command; `kind` is `vacuous`, or `preflight_completion` for a `--remaining` selection).
   */
  vacuous?: { kind: string; prompt_id: string; file: string; message: string }[];
  /** What a run of every prompt spawns: the exact `--allow-run` list (added by the command). */
  permissions?: { run: string[] };
}

/** Whether a directory is inside a git work tree: true, false, or null when git cannot run. */
export type GitProbe = (dir: string) => Promise<boolean | null>;

/** Default {@link GitProbe}: `git rev-parse --is-inside-work-tree` in the directory. */
const gitWorkTree: GitProbe = async (dir) => {
  try {
    const out = await runHelper("git", {
      args: ["rev-parse", "--is-inside-work-tree"],
      cwd: dir,
      stderr: false,
      timeoutMs: 30_000,
    });
    return out.success && new TextDecoder().decode(out.stdout).trim() === "true";
  } catch (e) {
    if (e instanceof Deno.errors.NotFound || e instanceof Deno.errors.PermissionDenied) return null;
    if (e instanceof Error && e.name === "NotCapable") return null;
    throw e;
  }
};

/** Check one repo path. */
export async function checkRepo(
  repo: { name: string; path: string; default: boolean },
  git: GitProbe = gitWorkTree,
): Promise<RepoCheck> {
  const c: RepoCheck = {
    name: repo.name,
    path: repo.path,
    default: repo.default,
    exists: false,
    directory: false,
    git: false,
    ready: false,
    errors: [],
  };
  if (repo.path === "") {
    c.errors.push("missing_path");
    return c;
  }
  try {
    const info = await Deno.stat(repo.path);
    c.exists = true;
    c.directory = info.isDirectory;
  } catch {
    c.errors.push("path_not_found");
    return c;
  }
  if (!c.directory) {
    c.errors.push("not_a_directory");
    return c;
  }
  const g = await git(repo.path);
  if (g === null) c.errors.push("git_unavailable");
  else if (!g) c.errors.push("not_git_repo");
  c.git = g === true;
  c.ready = c.errors.length === 0;
  return c;
}

/**
 * What to do about a target repo that is not ready (a hint appended to the problem line): the runner commits each
 * prompt's work in its target repos, so each must be an existing git work tree; a repo path is relative to the
 * packet directory.
 */
export function repoHint(kind: "path_not_found" | "not_git_repo", path: string): string {
  const q = /^[\w./@%+=:,-]+$/.test(path) ? path : `'${path.replaceAll("'", "'\\''")}'`;
  if (kind === "not_git_repo") {
    return `make it a git repository: git -C ${q} init && git -C ${q} commit --allow-empty -m "initial commit"`;
  }
  return `repo paths are relative to the packet directory; create it (mkdir -p ${q}, then git init) or fix the path`;
}

const REPO_MESSAGES: Record<RepoErrorKind, string> = {
  missing_path: "has no path in the manifest",
  path_not_found: "does not exist",
  not_a_directory: "is not a directory",
  not_git_repo: "is not inside a git work tree",
  git_unavailable: "cannot be checked: git is not available",
};

/** Authoring warnings of `packet doctor`. */
function authoringWarnings(packet: Packet, promptFiles: string[]): AuthoringWarning[] {
  const out: AuthoringWarning[] = [];
  if (promptFiles.length === 0) {
    out.push({ kind: "no_prompts", message: "packet has no prompts", prompt_id: null, file: null });
  }
  if (packet.repos.length > 0 && !packet.repos.some((r) => r.default)) {
    out.push({
      kind: "no_default_repo",
      message: `no repo has default: true; "${packet.defaultRepo?.name}" is used`,
      prompt_id: null,
      file: null,
    });
  }
  const defaults = packet.repos.filter((r) => r.default);
  if (defaults.length > 1) {
    out.push({
      kind: "multiple_default_repos",
      message: `several repos have default: true (${defaults.map((r) => r.name).join(", ")})`,
      prompt_id: null,
      file: null,
    });
  }
  for (const p of packet.prompts) {
    const at = { prompt_id: p.id, file: p.relFile };
    if (p.targets.length === 0) out.push({ kind: "prompt_no_targets", message: "prompt has no targets", ...at });
    const items = p.legacyCommands.length + Object.values(p.verify).reduce((n, v) => n + v.length, 0);
    if (items === 0) {
      out.push({ kind: "prompt_empty_verify", message: "prompt has no verification items", ...at });
    }
    if (hasPlaceholderMarkers(p.body)) {
      out.push({
        kind: "prompt_placeholder_body",
        message: "prompt still contains scaffold placeholder markers",
        ...at,
      });
    }
  }
  return out;
}

/** Dependencies of {@link readinessReport} (injectable for tests). */
export interface ReadinessDeps {
  probe: (provider: string, options: ExecutionOptions) => Promise<ProbeResult>;
  git?: GitProbe;
}

/** Build the readiness report; `doctor` adds authoring warnings. */
export async function readinessReport(
  packet: Packet,
  deps: ReadinessDeps,
  opts: { doctor: boolean },
): Promise<ReadinessReport> {
  const repoList = packet.repos.length > 0
    ? packet.repos
    : [{ name: "default", path: packet.dir, configuredPath: ".", default: true }];
  const repos = await Promise.all(repoList.map((r) => checkRepo(r, deps.git)));
  const o = packet.options;
  let probe: ProbeResult;
  try {
    probe = await deps.probe(o.provider, o);
  } catch (e) {
    probe = {
      name: o.provider,
      executable: null,
      path: null,
      version: null,
      available: false,
      error: e instanceof Error ? e.message : String(e),
    };
  }
  const readiness_errors: ReadinessError[] = [];
  for (const r of repos) {
    for (const k of r.errors) {
      readiness_errors.push({
        kind: k,
        repo: r.name,
        message: `repo ${r.name} (${r.path || "no path"}) ${REPO_MESSAGES[k]}` +
          (k === "not_git_repo" || k === "path_not_found" ? ` (${repoHint(k, r.path)})` : ""),
      });
    }
  }
  if (!probe.available) {
    readiness_errors.push({
      kind: "lane_unavailable",
      repo: null,
      message: `lane ${probe.name} is not available${probe.error ? `: ${probe.error}` : ""}`,
    });
  }
  const promptFiles = await discoverPromptFiles(packet.promptDir);
  const authoring = opts.doctor ? authoringWarnings(packet, promptFiles) : [];
  return {
    packet: packet.name,
    root: packet.dir,
    manifest_path: packet.manifestPath,
    prompt_dir: packet.promptDir,
    profile: packet.profile,
    provider: o.provider,
    model: o.model,
    lane: {
      name: probe.name,
      executable: probe.executable,
      path: probe.path,
      version: probe.version,
      available: probe.available,
    },
    repos,
    readiness_errors,
    runtime_ready: readiness_errors.length === 0,
    prompt_files: promptFiles,
    authoring_warnings: authoring,
    authoring_ready: authoring.length === 0,
  };
}

/** The human form of the report, headed by `label` (how every command names the target; default the manifest name). */
export function renderReadiness(r: ReadinessReport, title: "Preflight" | "Doctor", label = r.packet): string {
  const lines = [`${title}: ${label} (${r.root})`];
  lines.push(`  profile   ${r.profile ?? "(none)"}`);
  lines.push(`  provider  ${r.provider} / ${r.model}`);
  const laneWhere = r.lane.path ?? r.lane.executable ?? "built-in";
  lines.push(
    `  lane      ${r.lane.name}  ${laneWhere}${r.lane.version ? `  ${r.lane.version}` : ""}  ${
      r.lane.available ? "available" : "unavailable"
    }`,
  );
  const w = Math.max(0, ...r.repos.map((x) => x.name.length));
  for (const x of r.repos) {
    lines.push(`  repo      ${x.name.padEnd(w)}  ${x.path || "(no path)"}  ${x.ready ? "ready" : x.errors.join(", ")}`);
  }
  lines.push(`  prompts   ${r.prompt_files.length} ${r.prompt_files.length === 1 ? "file" : "files"}`);
  if (r.permissions) lines.push(`  allow-run  ${r.permissions.run.join(",")}`);
  if (title === "Doctor") {
    for (const a of r.authoring_warnings) {
      lines.push(`  WARNING  ${a.file ?? "(packet)"}  ${a.kind}`);
      lines.push(`           ${a.message}`);
    }
    lines.push(r.authoring_ready ? "Authoring ready." : `${r.authoring_warnings.length} authoring warning(s).`);
  }
  for (const v of r.vacuous ?? []) {
    const level = v.kind !== "vacuous"
      ? "NOTE   "
      : r.readiness_errors.some((e) => e.kind === "vacuous")
      ? "ERROR  "
      : "WARNING";
    lines.push(`  ${level}  ${v.file}  ${v.kind}`);
    lines.push(`           ${v.message}`);
  }
  lines.push(r.runtime_ready ? "Runtime ready." : "Runtime not ready.");
  return lines.join("\n") + "\n";
}
