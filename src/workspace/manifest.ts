/** The workspace manifest (docs/reference/workspace.md §1): strictly validated, unknown keys refused with the key named. */
import { parseYaml, YamlSyntaxError } from "../util/yaml.ts";
import { PacketError } from "../errors.ts";
import { CAPABILITIES, SDK_COMPAT } from "../version.ts";
import {
  checkKeys,
  type CommitsPolicy,
  type Containment,
  fail,
  type FailurePolicy,
  type Installed,
  isMap,
  parseCommits,
  parseContainment,
  parseContracts,
  parseFailurePolicy,
  parseRequires,
  type Requirements,
  str,
  WORKSPACE_KEYS,
  type WorkspaceArtifact,
} from "./manifest_keys.ts";

export { WORKSPACE_KEYS } from "./manifest_keys.ts";
export type { CommitsPolicy, Containment, FailurePolicy, WorkspaceArtifact } from "./manifest_keys.ts";

/** Schema id of workspace manifests. */
const WORKSPACE_SCHEMA = "prompt_runner.workspace/v1";

/** One repository of a workspace. */
export interface WorkspaceRepository {
  name: string;
  remote: string;
  ref: string;
  /** Absolute path of a local repository to clone from first, or null. */
  source: string | null;
}

/** A validated workspace manifest. */
export interface WorkspaceManifest {
  /** Absolute path of the manifest file. */
  path: string;
  id: string;
  repositories: WorkspaceRepository[];
  packet: { repo: string; path: string } | null;
  workspaceRoot: "auto" | string;
  runtimeRoot: "auto" | string;
  failurePolicy: FailurePolicy;
  /** `requires`, already checked against this program (an unmet one is refused at load). */
  requires: Requirements;
  /** `operator.containment` (default `process_group`). */
  containment: Containment;
  /** `commits` (default mode `runner`, push `explicit`). */
  commits: CommitsPolicy;
  /** `contracts.artifacts`, in declaration order. */
  artifacts: WorkspaceArtifact[];
}

const ID_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/** Whether a repo-relative packet path is acceptable (no absolute path, no `..` segment). */
function isSafeRelativePath(p: string): boolean {
  if (p.startsWith("/") || p === "") return false;
  return !p.split("/").some((seg) => seg === "..");
}

/** Whether `ref` is a name git takes as a branch, tag or commit (the rules of git-check-ref-format that matter here). */
function isRefName(ref: string): boolean {
  if (ref === "" || ref.startsWith("-") || ref.startsWith("/") || ref.endsWith("/") || ref.endsWith(".")) return false;
  if (ref.endsWith(".lock") || ref.includes("..") || ref.includes("@{") || ref.includes("//")) return false;
  // deno-lint-ignore no-control-regex
  return !/[\x00-\x20\x7f~^:?*[\\]/.test(ref);
}

/** What this program offers a manifest's `requires`. */
const INSTALLED: Installed = { sdkCompat: SDK_COMPAT, capabilities: CAPABILITIES };

/**
 * Parse and validate manifest text. `path` is the manifest's absolute path (relative sources resolve from it);
 * `installed` is what `requires` is checked against (default: this program).
 */
export function parseWorkspaceManifest(text: string, path: string, installed = INSTALLED): WorkspaceManifest {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (e) {
    if (e instanceof YamlSyntaxError) {
      throw new PacketError(
        "workspace_manifest_invalid",
        `${path}:${e.line}:${e.column}: invalid YAML: ${e.reason}`,
        { file: path },
      );
    }
    throw e;
  }
  if (!isMap(doc)) fail(path, "(root)", "expected a YAML mapping");
  if (doc.schema !== WORKSPACE_SCHEMA) {
    fail(path, "schema", `expected "${WORKSPACE_SCHEMA}", got ${JSON.stringify(doc.schema ?? null)}`);
  }
  // First: a manifest written for a newer release is refused for that reason, not for a key this one lacks.
  const requires = parseRequires(path, doc.requires, installed);
  checkKeys(path, "", doc, WORKSPACE_KEYS.top);
  const id = str(path, "id", doc.id, true)!;
  if (!ID_RE.test(id) || id.length > 64) {
    fail(path, "id", `"${id}" must match ^[A-Za-z0-9][A-Za-z0-9_.-]*$ and be at most 64 characters`);
  }
  if (!isMap(doc.repositories) || Object.keys(doc.repositories).length === 0) {
    fail(path, "repositories", "expected a map with at least one repository");
  }
  const dir = path.slice(0, path.lastIndexOf("/")) || "/";
  const repositories: WorkspaceRepository[] = [];
  for (const name of Object.keys(doc.repositories).sort()) {
    const r = doc.repositories[name];
    const key = `repositories.${name}`;
    if (!ID_RE.test(name)) fail(path, key, "repository names use letters, digits, '_', '.' and '-'");
    if (!isMap(r)) fail(path, key, "expected a map with remote, ref, source");
    checkKeys(path, key, r, WORKSPACE_KEYS.repository);
    const remote = str(path, `${key}.remote`, r.remote, true)!;
    // Both reach git's argv: a value starting with "-" would be read as an option (`--upload-pack=…`).
    // deno-lint-ignore no-control-regex
    if (remote.startsWith("-") || /[\x00-\x1f\x7f]/.test(remote)) {
      fail(
        path,
        `${key}.remote`,
        `${JSON.stringify(remote)}: expected a git URL or path (not starting with "-", no control characters)`,
      );
    }
    const ref = str(path, `${key}.ref`, r.ref, false) ?? "main";
    if (!isRefName(ref)) {
      fail(
        path,
        `${key}.ref`,
        `${
          JSON.stringify(ref)
        }: expected a branch, tag or commit name (not starting with "-"; no spaces, control characters, "..", or any of ~^:?*[\\)`,
      );
    }
    const src = str(path, `${key}.source`, r.source, false);
    const source = src === null ? null : src.startsWith("/") ? src : normalize(`${dir}/${src}`);
    repositories.push({ name, remote, ref, source });
  }
  let packet: WorkspaceManifest["packet"] = null;
  if (doc.packet !== undefined && doc.packet !== null) {
    if (!isMap(doc.packet)) fail(path, "packet", "expected a map with repo and path");
    checkKeys(path, "packet", doc.packet, WORKSPACE_KEYS.packet);
    const repo = str(path, "packet.repo", doc.packet.repo, true)!;
    const ppath = str(path, "packet.path", doc.packet.path, true)!;
    if (!repositories.some((r) => r.name === repo)) {
      fail(
        path,
        "packet.repo",
        `"${repo}" is not one of the repositories (${repositories.map((r) => r.name).join(", ")})`,
      );
    }
    if (!isSafeRelativePath(ppath)) {
      fail(path, "packet.path", `"${ppath}" must be repository-relative: no absolute path and no ".." segment`);
    }
    packet = { repo, path: ppath.replace(/\/+$/, "") };
  }
  let workspaceRoot = "auto", runtimeRoot = "auto";
  let containment: Containment = "process_group";
  if (doc.operator !== undefined && doc.operator !== null) {
    if (!isMap(doc.operator)) fail(path, "operator", "expected a map");
    checkKeys(path, "operator", doc.operator, WORKSPACE_KEYS.operator);
    for (const k of ["workspace_root", "runtime_root"] as const) {
      const v = str(path, `operator.${k}`, doc.operator[k], false) ?? "auto";
      if (v !== "auto" && !v.startsWith("/")) {
        fail(path, `operator.${k}`, `expected "auto" or an absolute path, got "${v}"`);
      }
      const root = v === "auto" ? v : normalize(v);
      if (k === "workspace_root") workspaceRoot = root;
      else runtimeRoot = root;
    }
    containment = parseContainment(path, doc.operator.containment);
  }
  const failurePolicy = parseFailurePolicy(path, doc.failure_policy);
  const commits = parseCommits(path, doc.commits);
  const artifacts = parseContracts(path, doc.contracts, repositories.map((r) => r.name));
  return {
    path,
    id,
    repositories,
    packet,
    workspaceRoot,
    runtimeRoot,
    failurePolicy,
    requires,
    containment,
    commits,
    artifacts,
  };
}
/** Normalise `.` and `..` segments of an absolute path (no filesystem access). */
export function normalize(p: string): string {
  const out: string[] = [];
  for (const seg of p.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") out.pop();
    else out.push(seg);
  }
  return "/" + out.join("/");
}

/** Read and validate a manifest file. */
export async function loadWorkspaceManifest(file: string): Promise<WorkspaceManifest> {
  let abs: string;
  try {
    abs = await Deno.realPath(file);
  } catch {
    throw new PacketError("workspace_manifest_invalid", `workspace manifest not found: ${file}`, { file });
  }
  // A FIFO (or a directory) there would block the read forever or end it in a bare OS error: refused by name.
  const info = await Deno.stat(abs);
  if (!info.isFile) {
    throw new PacketError(
      "workspace_manifest_invalid",
      `workspace manifest ${abs} is ${info.isDirectory ? "a directory" : "not a regular file"}; expected a YAML file`,
      { file: abs },
    );
  }
  return parseWorkspaceManifest(await Deno.readTextFile(abs), abs);
}
