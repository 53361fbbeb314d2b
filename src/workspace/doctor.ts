/**
 * `workspace doctor` (docs/reference/workspace.md §10.2): read-only readiness of a workspace. Clones present,
 * independent, with the manifest's origin and on the pinned ref; uncommitted work reported as resumable (a warning,
 * never a failure: a crash must not make unfinished work impossible to resume); the tool versions the clones pin; the
 * runtime root present and writable by this user. Nothing is written; git runs with `--no-optional-locks`.
 */
import { exists } from "../util/fs.ts";
import { escapeControl } from "../util/escape.ts";
import { readLease } from "../store/lease.ts";
import type { WorkspaceManifest } from "./manifest.ts";
import { type EnvGet, workspacePaths } from "./paths.ts";
import { runGit } from "./git.ts";
import { independenceProblem } from "./prepare.ts";
import { checkToolchains, type ToolPin } from "./toolchain.ts";
import { type ArtifactCheck, checkArtifacts } from "./artifact_checks.ts";

/** One clone's readiness. */
export interface RepositoryCheck {
  name: string;
  path: string;
  ready: boolean;
  present: boolean;
  remote: string;
  origin: string | null;
  ref: string;
  branch: string | null;
  head: string | null;
  /** The commit `workspace prepare` recorded in the lock, or null. */
  lock_commit: string | null;
  /** Uncommitted paths: resumable work, reported, never an error. */
  dirty: string[];
  warnings: string[];
  errors: string[];
}

/** `prompt_runner.workspace.doctor/v1`. */
export interface DoctorReport {
  schema: "prompt_runner.workspace.doctor/v1";
  workspace: string;
  manifest: string;
  ready: boolean;
  prepared: boolean;
  repositories: RepositoryCheck[];
  toolchains: { ready: boolean; pins: ToolPin[] };
  /** Contract artifacts: installed, and still what prepare recorded in the lock (docs/reference/workspace.md §4.1). */
  artifacts: ArtifactCheck[];
  runtime_root: { path: string; exists: boolean; writable: boolean; error: string | null };
  /**
   * The bound packet: its directory in the clone and why a run could not load it there (`error`), its store root
   * and its lease (a live run is reported, not an error); null without a binding.
   */
  packet: {
    dir: string;
    error: string | null;
    store_root: string;
    store_exists: boolean;
    lease: string;
    pid: number | null;
  } | null;
  checked_at: string;
}

const DOCTOR_GIT_TIMEOUT_MS = 30_000;

async function git(path: string, args: string[]): Promise<{ ok: boolean; out: string }> {
  const r = await runGit(path, ["--no-optional-locks", ...args], DOCTOR_GIT_TIMEOUT_MS);
  return { ok: r.ok, out: r.ok ? r.stdout : (r.stderr || `exit ${r.code}`) };
}

async function checkRepository(
  r: WorkspaceManifest["repositories"][number],
  path: string,
  lockCommit: string | null,
): Promise<RepositoryCheck> {
  const check: RepositoryCheck = {
    name: r.name,
    path,
    ready: false,
    present: await exists(path),
    remote: r.remote,
    origin: null,
    ref: r.ref,
    branch: null,
    head: null,
    lock_commit: lockCommit,
    dirty: [],
    warnings: [],
    errors: [],
  };
  if (!check.present) {
    check.errors.push("clone missing; run: prompt_runner workspace prepare");
    return check;
  }
  const link = await Deno.lstat(path);
  if (link.isSymlink) check.errors.push(`${path} is a symbolic link, not a clone of this workspace`);
  else if (link.uid !== null && link.uid !== Deno.uid()) {
    check.errors.push(`owned by uid ${link.uid}, not by this user (${Deno.uid()}); a workspace is one operator's own`);
  }
  const problem = await independenceProblem(path);
  if (problem) check.errors.push(problem);
  else {
    const origin = await git(path, ["remote", "get-url", "origin"]);
    check.origin = origin.ok ? origin.out : null;
    if (check.origin !== r.remote) check.errors.push(`origin is "${check.origin ?? "unset"}", expected "${r.remote}"`);
    const head = await git(path, ["rev-parse", "HEAD"]);
    if (head.ok) check.head = head.out;
    else check.errors.push(`HEAD unreadable: ${head.out}`);
    const branch = await git(path, ["symbolic-ref", "-q", "--short", "HEAD"]);
    check.branch = branch.ok && branch.out !== "" ? branch.out : null;
    if (check.branch !== r.ref) {
      check.errors.push(`on ${check.branch ? `branch ${check.branch}` : "a detached HEAD"}, pinned ref is ${r.ref}`);
    }
    const status = await git(path, ["status", "--porcelain"]);
    if (!status.ok) check.errors.push(`git status failed: ${status.out}`);
    else if (status.out !== "") {
      check.dirty = status.out.split("\n").map((l) => l.slice(3));
      check.warnings.push(`${check.dirty.length} uncommitted path(s): resumable work (run --remaining continues it)`);
    }
  }
  check.ready = check.errors.length === 0;
  return check;
}

/** Whether this user can write into `dir` (owner with rwx, or the bits for everyone), judged from its metadata. */
function writableByMe(st: Deno.FileInfo): boolean {
  const mode = st.mode ?? 0;
  return st.uid === Deno.uid() ? (mode & 0o300) === 0o300 : (mode & 0o003) === 0o003;
}

async function runtimeCheck(path: string): Promise<DoctorReport["runtime_root"]> {
  const st = await Deno.stat(path).catch(() => null);
  if (!st) return { path, exists: false, writable: false, error: "missing; run: prompt_runner workspace prepare" };
  if (!st.isDirectory) return { path, exists: true, writable: false, error: "not a directory" };
  const writable = writableByMe(st);
  return { path, exists: true, writable, error: writable ? null : "not writable by this user" };
}

/** The lock record's clone commits and artifacts, or null when there is no readable lock record. */
async function readLock(lockFile: string): Promise<
  { commits: Record<string, string>; artifacts: Record<string, { sha256?: unknown }> } | null
> {
  try {
    const lock = JSON.parse(await Deno.readTextFile(lockFile)) as {
      repositories?: Record<string, { commit?: string }>;
      artifacts?: Record<string, { sha256?: unknown }>;
    };
    const commits: Record<string, string> = {};
    for (const [name, r] of Object.entries(lock.repositories ?? {})) {
      if (typeof r.commit === "string") commits[name] = r.commit;
    }
    return { commits, artifacts: lock.artifacts ?? {} };
  } catch {
    return null;
  }
}

/**
 * Why the bound packet is not there for a run (the clone lacks it, e.g. a commit removed it, or it leads out of the
 * clone), or null. A missing clone is the repository check's to report.
 */
async function boundPacketProblem(repo: string, clone: string, rel: string): Promise<string | null> {
  const cloneReal = await Deno.realPath(clone).catch(() => null);
  if (cloneReal === null) return null;
  const dir = `${clone}/${rel}`;
  const manifest = await Deno.stat(`${dir}/prompt_runner_packet.md`).catch(() => null);
  if (!manifest?.isFile) return `not a packet: no prompt_runner_packet.md in clone ${repo} (packet.path: ${rel})`;
  const real = await Deno.realPath(dir);
  if (real !== cloneReal && !real.startsWith(`${cloneReal}/`)) {
    return `packet.path ${rel} resolves outside clone ${repo} (${real})`;
  }
  return null;
}

/** Check `m` without writing anything. */
export async function doctorWorkspace(m: WorkspaceManifest, env?: EnvGet, pathVar = ""): Promise<DoctorReport> {
  const paths = workspacePaths(m, env);
  const lock = await readLock(paths.lockFile);
  const repositories: RepositoryCheck[] = [];
  for (const r of m.repositories) {
    repositories.push(await checkRepository(r, paths.clone(r.name), lock?.commits[r.name] ?? null));
  }
  const present = repositories.filter((r) => r.present).map((r) => ({ repo: r.name, path: r.path }));
  const pins = await checkToolchains(present, pathVar);
  const runtime = await runtimeCheck(paths.runtimeRoot);
  const artifacts = await checkArtifacts(m, paths, lock?.artifacts ?? null);
  let packet: DoctorReport["packet"] = null;
  if (m.packet) {
    const lease = await readLease(paths.boundStoreRoot);
    packet = {
      dir: `${paths.clone(m.packet.repo)}/${m.packet.path}`,
      error: await boundPacketProblem(m.packet.repo, paths.clone(m.packet.repo), m.packet.path),
      store_root: paths.boundStoreRoot,
      store_exists: await exists(`${paths.boundStoreRoot}/store.json`),
      lease: lease.state,
      pid: lease.pid,
    };
  }
  const toolchainsReady = pins.every((p) => p.ready);
  const ready = lock !== null && repositories.every((r) => r.ready) && toolchainsReady && runtime.error === null &&
    artifacts.every((a) => a.ready) &&
    (packet === null || (packet.store_exists && packet.error === null));
  return {
    schema: "prompt_runner.workspace.doctor/v1",
    workspace: m.id,
    manifest: m.path,
    ready,
    prepared: lock !== null,
    repositories,
    toolchains: { ready: toolchainsReady, pins },
    artifacts,
    runtime_root: runtime,
    packet,
    checked_at: new Date().toISOString(),
  };
}

/** The human form of a report (pure). */
export function doctorLines(d: DoctorReport): string[] {
  const mark = (ok: boolean) => (ok ? "ok  " : "FAIL");
  const lines = [`Workspace ${d.workspace} (${d.manifest})`];
  if (!d.prepared) {
    lines.push(`  FAIL not prepared: no lock record; run: prompt_runner workspace prepare ${d.manifest}`);
  }
  for (const r of d.repositories) {
    const at = r.head ? ` ${r.head.slice(0, 8)} (${r.branch ?? "detached"})` : "";
    lines.push(`  ${mark(r.ready)} ${r.name}${at} ${r.path}`);
    for (const e of r.errors) lines.push(`       ${e}`);
    for (const w of r.warnings) lines.push(`       warning: ${w}`);
    for (const p of r.dirty.slice(0, 10)) lines.push(`         ${p}`);
    if (r.dirty.length > 10) lines.push(`         … ${r.dirty.length - 10} more`);
  }
  for (const p of d.toolchains.pins) {
    const what = p.tool ? `${p.tool} ${p.required.join(" | ")}` : "(unparsed line)";
    lines.push(`  ${mark(p.ready)} ${what} pinned by ${p.file}:${p.line}${p.error ? ` — ${p.error}` : ""}`);
  }
  for (const a of d.artifacts) {
    lines.push(`  ${mark(a.ready)} artifact ${a.id} ${a.path}${a.error ? ` — ${a.error}` : ""}`);
  }
  const rt = d.runtime_root;
  lines.push(`  ${mark(rt.error === null)} runtime root ${rt.path}${rt.error ? ` — ${rt.error}` : ""}`);
  if (d.packet) {
    lines.push(
      `  ${mark(d.packet.error === null)} packet ${d.packet.dir}${d.packet.error ? ` — ${d.packet.error}` : ""}`,
    );
    const live = d.packet.lease === "up" ? ` · a run is live (pid ${d.packet.pid})` : "";
    lines.push(
      `  ${mark(d.packet.store_exists)} store ${d.packet.store_root}${
        d.packet.store_exists ? "" : " — missing"
      }${live}`,
    );
  }
  lines.push(d.ready ? "ready" : "not ready");
  // Origins, pins, paths and git's words come from the clones' files, which a session can write: shown escaped.
  return lines.map(escapeControl);
}
