/**
 * Contract artifacts (docs/reference/workspace.md §4.1): built at `workspace prepare` from a clone into the operator's
 * `<workspace_root>/artifacts/<id>`, where verifier argv reaches them as `@artifact:<id>`. The installed copy is the
 * operator's: a session editing the clone cannot change the checker a prompt's contract runs.
 */
import { RunFailedError } from "../errors.ts";
import { ensureDir, nullIfAbsent } from "../util/fs.ts";
import { runHelper } from "../util/helper.ts";
import { findOnPath } from "../util/mod.ts";
import type { WorkspaceArtifact, WorkspaceManifest } from "./manifest.ts";
import type { WorkspacePaths } from "./paths.ts";

/** One built artifact in the lock record. */
export interface LockedArtifact {
  type: WorkspaceArtifact["type"];
  /** The installed executable. */
  path: string;
  /** Where it was built from (inside the clone). */
  project: string;
  sha256: string;
}

/** How long `mix escript.build` may take. */
const BUILD_TIMEOUT_MS = 10 * 60 * 1000;

function failed(
  a: WorkspaceArtifact,
  code: "workspace_artifact_build_failed" | "workspace_artifact_invalid" | "workspace_artifact_no_toolchain",
  message: string,
  hints: string[] = [],
): RunFailedError {
  return new RunFailedError(code, `contracts.artifacts ${a.id} (${a.type}): ${message}`, { hints });
}

async function sha256(path: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", await Deno.readFile(path));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Copy `from` to `to` through a temporary sibling, executable, replacing `to` in one rename. */
async function install(from: string, to: string): Promise<void> {
  await ensureDir(to.slice(0, to.lastIndexOf("/")));
  const tmp = `${to}.tmp-${Deno.pid}`;
  try {
    await Deno.copyFile(from, tmp);
    await Deno.chmod(tmp, 0o755);
    await Deno.rename(tmp, to);
  } finally {
    await Deno.remove(tmp).catch(() => {});
  }
}

/** The project path inside its clone, canonical; refuses a link leading out of the clone. */
async function projectPath(a: WorkspaceArtifact, clone: string): Promise<string> {
  const root = await Deno.realPath(clone);
  const real = await Deno.realPath(`${root}/${a.project}`).catch(nullIfAbsent);
  if (real === null) throw failed(a, "workspace_artifact_invalid", `${a.project} does not exist in clone ${a.repo}`);
  if (real !== root && !real.startsWith(root + "/")) {
    throw failed(a, "workspace_artifact_invalid", `${a.project} resolves outside clone ${a.repo} (${real})`);
  }
  return real;
}

async function buildEscript(a: WorkspaceArtifact, project: string, dest: string, pathVar: string): Promise<void> {
  if (!(await Deno.stat(`${project}/mix.exs`).then((s) => s.isFile, () => false))) {
    throw failed(a, "workspace_artifact_invalid", `${project} is not a Mix project (no mix.exs)`);
  }
  const mix = await findOnPath("mix", pathVar);
  if (mix === null) {
    throw failed(
      a,
      "workspace_artifact_no_toolchain",
      "needs Elixir's mix on PATH to run mix escript.build; not found",
      [
        "install the Elixir version the repository pins, then run workspace prepare again",
      ],
    );
  }
  const output = `${project}/${project.slice(project.lastIndexOf("/") + 1)}`;
  if (await Deno.lstat(output).then(() => true, () => false)) {
    throw failed(
      a,
      "workspace_artifact_invalid",
      `${output} already exists; prepare never overwrites a file it did not build`,
    );
  }
  try {
    const r = await runHelper(mix, {
      args: ["escript.build"],
      cwd: project,
      env: { MIX_ENV: "prod" },
      timeoutMs: BUILD_TIMEOUT_MS,
    });
    if (!r.success) {
      const tail = new TextDecoder().decode(r.stderr).trim().split("\n").slice(-10);
      const why = r.timedOut ? `did not finish within ${BUILD_TIMEOUT_MS} ms` : `exited ${r.code ?? r.signal}`;
      throw failed(a, "workspace_artifact_build_failed", `mix escript.build ${why} in ${project}`, tail);
    }
    if (!(await Deno.stat(output).then((s) => s.isFile, () => false))) {
      throw failed(a, "workspace_artifact_build_failed", `mix escript.build succeeded but wrote no ${output}`);
    }
    await install(output, dest);
  } finally {
    await Deno.remove(output).catch(() => {});
  }
}

/** Build every artifact of `m` (in id order) into `<workspace_root>/artifacts/`; returns the lock entries. */
export async function buildArtifacts(
  m: WorkspaceManifest,
  paths: WorkspacePaths,
  pathVar = Deno.env.get("PATH") ?? "",
): Promise<Record<string, LockedArtifact>> {
  const out: Record<string, LockedArtifact> = {};
  for (const a of [...m.artifacts].sort((x, y) => x.id.localeCompare(y.id))) {
    const project = await projectPath(a, paths.clone(a.repo));
    const dest = paths.artifact(a.id);
    if (a.type === "command") {
      if (!(await Deno.stat(project)).isFile) {
        throw failed(a, "workspace_artifact_invalid", `${a.project} is not a file (type command installs one script)`);
      }
      await install(project, dest);
    } else await buildEscript(a, project, dest, pathVar);
    out[a.id] = { type: a.type, path: dest, project, sha256: await sha256(dest) };
  }
  return out;
}
