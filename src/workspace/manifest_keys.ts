/**
 * The sdk-v1 keys of a workspace manifest (docs/reference/workspace.md §1.1): `requires`, `operator.containment`,
 * `commits`, `failure_policy` and `contracts`, plus the field readers manifest.ts shares. Every refusal names the
 * file, the key and what was expected.
 */
import { PacketError } from "../errors.ts";
import { parseRequirement, satisfies } from "../util/mod.ts";

/** Every key a workspace manifest may have, by where it appears (docs/packets.md documents each). */
export const WORKSPACE_KEYS = {
  top: ["schema", "id", "requires", "repositories", "packet", "operator", "commits", "failure_policy", "contracts"],
  requires: ["prompt_runner", "capabilities"],
  repository: ["remote", "ref", "source"],
  packet: ["repo", "path"],
  operator: ["workspace_root", "runtime_root", "containment"],
  commits: ["mode", "push"],
  contracts: ["artifacts", "modules"],
  artifact: ["id", "repo", "project", "type"],
} as const;

/** Throw the manifest error naming file and key. */
export function fail(file: string, key: string, message: string): never {
  throw new PacketError("workspace_manifest_invalid", `${file}: ${key}: ${message}`, { file, key });
}

/** Plain-mapping test. */
export function isMap(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** Refuse keys outside `allowed`, naming the key and the allowed ones. */
export function checkKeys(file: string, where: string, map: Record<string, unknown>, allowed: readonly string[]): void {
  for (const k of Object.keys(map)) {
    if (!allowed.includes(k)) {
      fail(file, where ? `${where}.${k}` : k, `unknown key; allowed: ${[...allowed].sort().join(", ")}`);
    }
  }
}

/** A non-empty string, or null when absent and not required. */
export function str(file: string, key: string, v: unknown, required: boolean): string | null {
  if (v === undefined || v === null) {
    if (required) fail(file, key, "is required");
    return null;
  }
  if (typeof v !== "string" || v.trim() === "") {
    fail(file, key, `expected a non-empty string, got ${JSON.stringify(v)}`);
  }
  return v;
}

/** One of `allowed` (first = default when absent). */
function oneOf<T extends string>(file: string, key: string, v: unknown, allowed: readonly T[]): T {
  if (v === undefined || v === null) return allowed[0]!;
  if (typeof v !== "string" || !allowed.includes(v as T)) {
    fail(file, key, `does not take ${JSON.stringify(v)}; allowed: ${[...allowed].sort().join(", ")}`);
  }
  return v as T;
}

/** An optional section: absent/null → empty map; otherwise a map with only `allowed` keys. */
function section(file: string, key: string, v: unknown, allowed: readonly string[]): Record<string, unknown> {
  if (v === undefined || v === null) return {};
  if (!isMap(v)) fail(file, key, `expected a map with ${allowed.join(", ")}`);
  checkKeys(file, key, v, allowed);
  return v;
}

const ID_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/** What this program offers a manifest's `requires` (injectable for tests). */
export interface Installed {
  /** The sdk release whose semantics are implemented (`SDK_COMPAT`). */
  sdkCompat: string;
  capabilities: readonly string[];
}

/** `requires`: the version range and the capabilities, checked now — an unmet requirement fails closed. */
export interface Requirements {
  promptRunner: string | null;
  capabilities: string[];
}

/** Parse and check `requires`. */
export function parseRequires(file: string, v: unknown, installed: Installed): Requirements {
  const r = section(file, "requires", v, WORKSPACE_KEYS.requires);
  const promptRunner = str(file, "requires.prompt_runner", r.prompt_runner, false);
  if (promptRunner !== null) {
    const req = parseRequirement(promptRunner);
    if (typeof req === "string") fail(file, "requires.prompt_runner", `${req}; e.g. ">= 0.13.0 and < 0.14.0"`);
    if (!satisfies(installed.sdkCompat, req)) {
      fail(
        file,
        "requires.prompt_runner",
        `"${promptRunner}" is not met: this prompt_runner implements the sdk's ${installed.sdkCompat} semantics ` +
          "(sdk_compat in prompt_runner version --json)",
      );
    }
  }
  const caps = r.capabilities ?? [];
  if (!Array.isArray(caps) || !caps.every((c) => typeof c === "string" && c !== "")) {
    fail(file, "requires.capabilities", `expected a list of capability names, got ${JSON.stringify(caps)}`);
  }
  const missing = caps.filter((c) => !installed.capabilities.includes(c));
  if (missing.length > 0) {
    fail(
      file,
      "requires.capabilities",
      `not installed: ${missing.join(", ")} (installed: ${installed.capabilities.join(", ")}; ` +
        "see prompt_runner capabilities)",
    );
  }
  return { promptRunner, capabilities: caps };
}

/** How `start` contains a detached runner (docs/reference/workspace.md §9). */
export type Containment = "process_group" | "systemd_user";

/** `operator.containment`; `none` is this program's earlier spelling of `process_group`. */
export function parseContainment(file: string, v: unknown): Containment {
  if (v === "none") return "process_group";
  return oneOf(file, "operator.containment", v, ["process_group", "systemd_user"] as const);
}

/** `commits`: who commits a prompt's work, and who pushes. */
export interface CommitsPolicy {
  /** `runner`: the runner commits each verified prompt (default); `session`: sessions commit their own work. */
  mode: "runner" | "session";
  /** `explicit`: the runner never pushes; pushing is an explicit act of a session or the operator. */
  push: "explicit";
}

/** Parse `commits`. */
export function parseCommits(file: string, v: unknown): CommitsPolicy {
  const c = section(file, "commits", v, WORKSPACE_KEYS.commits);
  return {
    mode: oneOf(file, "commits.mode", c.mode, ["runner", "session"] as const),
    push: oneOf(file, "commits.push", c.push, ["explicit"] as const),
  };
}

/** `failure_policy`. */
export type FailurePolicy = "fail_fast" | "continue_independent";

/** Parse `failure_policy` (default `fail_fast`). */
export function parseFailurePolicy(file: string, v: unknown): FailurePolicy {
  return oneOf(file, "failure_policy", v, ["fail_fast", "continue_independent"] as const);
}

/** A contract artifact: built at `prepare` into `<workspace_root>/artifacts/<id>`, used as `@artifact:<id>`. */
export interface WorkspaceArtifact {
  id: string;
  /** The workspace repository whose clone holds the project. */
  repo: string;
  /** Repository-relative path: the Mix project (escript) or the script (command). */
  project: string;
  type: "escript" | "command";
}

function safeRelative(p: string): boolean {
  return !p.startsWith("/") && !p.split("/").some((s) => s === "..");
}

/** Parse `contracts` (`artifacts`; `modules` only empty). */
export function parseContracts(file: string, v: unknown, repoNames: readonly string[]): WorkspaceArtifact[] {
  const c = section(file, "contracts", v, WORKSPACE_KEYS.contracts);
  if (c.modules !== undefined && c.modules !== null && !(Array.isArray(c.modules) && c.modules.length === 0)) {
    fail(file, "contracts.modules", "is not supported (the sdk gives it no meaning either); use [] or omit it");
  }
  const list = c.artifacts ?? [];
  if (!Array.isArray(list)) fail(file, "contracts.artifacts", "expected a list of {id, repo, project, type}");
  const out: WorkspaceArtifact[] = [];
  list.forEach((raw, i) => {
    const key = `contracts.artifacts[${i}]`;
    if (!isMap(raw)) fail(file, key, "expected a map with id, repo, project, type");
    checkKeys(file, key, raw, WORKSPACE_KEYS.artifact);
    const id = str(file, `${key}.id`, raw.id, true)!;
    if (!ID_RE.test(id)) fail(file, `${key}.id`, `"${id}" must match ^[A-Za-z0-9][A-Za-z0-9_.-]*$`);
    if (out.some((a) => a.id === id)) fail(file, `${key}.id`, `"${id}" is declared twice`);
    const repo = str(file, `${key}.repo`, raw.repo, true)!;
    if (!repoNames.includes(repo)) {
      fail(file, `${key}.repo`, `"${repo}" is not one of the repositories (${repoNames.join(", ")})`);
    }
    const project = str(file, `${key}.project`, raw.project, true)!;
    if (!safeRelative(project)) {
      fail(file, `${key}.project`, `"${project}" must be repository-relative: no absolute path and no ".." segment`);
    }
    const type = oneOf(file, `${key}.type`, raw.type, ["escript", "command"] as const);
    out.push({ id, repo, project: project.replace(/\/+$/, ""), type });
  });
  return out;
}
