/** The workspace manifest (docs/reference/workspace.md §1): strictly validated, unknown keys refused with the key named. */
import { parseYaml, YamlSyntaxError } from "../util/yaml.ts";
import { PacketError } from "../errors.ts";

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
  failurePolicy: "fail_fast" | "continue_independent";
}

const ID_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

function fail(file: string, key: string, message: string): never {
  throw new PacketError("workspace_manifest_invalid", `${file}: ${key}: ${message}`, { file, key });
}

function isMap(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** Every key a workspace manifest may have, by where it appears (docs/packets.md documents each). */
export const WORKSPACE_KEYS = {
  top: ["schema", "id", "repositories", "packet", "operator", "failure_policy", "requires", "artifacts"],
  repository: ["remote", "ref", "source"],
  packet: ["repo", "path"],
  operator: ["workspace_root", "runtime_root", "containment"],
} as const;

function checkKeys(file: string, where: string, map: Record<string, unknown>, allowed: readonly string[]): void {
  for (const k of Object.keys(map)) {
    if (!allowed.includes(k)) {
      fail(file, where ? `${where}.${k}` : k, `unknown key; allowed: ${[...allowed].sort().join(", ")}`);
    }
  }
}

function str(file: string, key: string, v: unknown, required: boolean): string | null {
  if (v === undefined || v === null) {
    if (required) fail(file, key, "is required");
    return null;
  }
  if (typeof v !== "string" || v.trim() === "") {
    fail(file, key, `expected a non-empty string, got ${JSON.stringify(v)}`);
  }
  return v;
}

/** Whether a repo-relative packet path is acceptable (no absolute path, no `..` segment). */
function isSafeRelativePath(p: string): boolean {
  if (p.startsWith("/") || p === "") return false;
  return !p.split("/").some((seg) => seg === "..");
}

/** Parse and validate manifest text. `path` is the manifest's absolute path (relative sources resolve from it). */
export function parseWorkspaceManifest(text: string, path: string): WorkspaceManifest {
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
  checkKeys(path, "", doc, WORKSPACE_KEYS.top);
  if (doc.schema !== WORKSPACE_SCHEMA) {
    fail(path, "schema", `expected "${WORKSPACE_SCHEMA}", got ${JSON.stringify(doc.schema ?? null)}`);
  }
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
    const ref = str(path, `${key}.ref`, r.ref, false) ?? "main";
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
  if (doc.operator !== undefined && doc.operator !== null) {
    if (!isMap(doc.operator)) fail(path, "operator", "expected a map");
    checkKeys(path, "operator", doc.operator, WORKSPACE_KEYS.operator);
    for (const k of ["workspace_root", "runtime_root"] as const) {
      const v = str(path, `operator.${k}`, doc.operator[k], false) ?? "auto";
      if (v !== "auto" && !v.startsWith("/")) {
        fail(path, `operator.${k}`, `expected "auto" or an absolute path, got "${v}"`);
      }
      if (k === "workspace_root") workspaceRoot = v;
      else runtimeRoot = v;
    }
    const c = doc.operator.containment;
    if (c !== undefined && c !== null && c !== "none") {
      fail(path, "operator.containment", `"${String(c)}" is not supported yet; allowed: none`);
    }
  }
  const fp = doc.failure_policy ?? "fail_fast";
  if (fp !== "fail_fast" && fp !== "continue_independent") {
    fail(path, "failure_policy", `does not take ${JSON.stringify(fp)}; allowed: continue_independent, fail_fast`);
  }
  if (doc.requires !== undefined && doc.requires !== null) {
    fail(path, "requires", "version requirements are not supported yet");
  }
  if (doc.artifacts !== undefined && !(Array.isArray(doc.artifacts) && doc.artifacts.length === 0)) {
    fail(path, "artifacts", "artifacts are not supported yet; use [] or omit the key");
  }
  return { path, id, repositories, packet, workspaceRoot, runtimeRoot, failurePolicy: fp };
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
  return parseWorkspaceManifest(await Deno.readTextFile(abs), abs);
}
