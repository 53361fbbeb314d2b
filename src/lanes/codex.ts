/** The codex lane (docs/reference/providers.md §3): `codex exec --json --skip-git-repo-check … <prompt>`. */
import { str } from "./_json.ts";
import { cliLane } from "./cli_lane.ts";
import { createCodexStreamParser } from "./codex_stream.ts";
import type { FailureHint } from "./hints.ts";
import { CODEX_PROFILE } from "./profiles.ts";
import { type CliProfile, laneOpts, promptArgs } from "./profile.ts";
import {
  type Lane,
  type LaneTransport,
  LaunchError,
  type PermissionMode,
  type SessionOptions,
  type SessionSpec,
} from "./types.ts";
import { startAppServerSession } from "./codex_app_server_session.ts";
import { CODEX_TOOLS } from "./tool_vocabulary.ts";
import { AGENT_ENV } from "../store/mod.ts";

/** `permission_mode` → `sandbox_mode` value; `bypass` uses the bypass flag on fresh sessions (docs/reference/providers.md §1). */
export const CODEX_SANDBOX_MODES: Readonly<Record<PermissionMode, string>> = {
  default: "read-only",
  auto: "workspace-write",
  bypass: "danger-full-access",
  plan: "read-only",
};

/** Failure hints of the codex lane, first match wins (docs/reference/providers.md §3). */
export const CODEX_FAILURE_HINTS: readonly FailureHint[] = [
  { class: "provider_auth_claim", kind: /invalid_api_key/ },
  { class: "provider_auth_claim", status: [401] },
  { class: "provider_auth_claim", message: /invalid_api_key|incorrect api key/i },
  {
    class: "provider_rate_limit",
    kind: /insufficient_quota/,
    recovery: { class: "provider_rate_limit", retryable: false },
  },
  {
    class: "provider_rate_limit",
    message: /insufficient_quota/,
    recovery: { class: "provider_rate_limit", retryable: false },
  },
  { class: "provider_rate_limit", kind: /rate_limit_exceeded/ },
  { class: "provider_rate_limit", status: [429] },
  { class: "provider_rate_limit", message: /too many requests|rate limit/i },
  { class: "provider_config_claim", kind: /model_not_found/ },
  { class: "provider_config_claim", message: /model_not_found|does not exist/i },
  { class: "provider_capacity", message: /high demand/i },
  { class: "provider_capacity", status: [500, 503] },
  { class: "transport_disconnect", message: /stream disconnected/i },
];

function commonConfig(spec: SessionSpec): string[] {
  const o = spec.options;
  const args: string[] = [];
  if (o.model) args.push("-m", o.model);
  if (o.reasoning_effort !== null) args.push("-c", `model_reasoning_effort="${o.reasoning_effort}"`);
  args.push("-c", `approval_policy="never"`);
  // A login shell's profile (/etc/profile) resets PATH, dropping the `prompt_runner` the runner put first on the
  // session's PATH: a controlled session's shell commands run as non-login shells (docs/agent-control.md §2).
  if (spec.env[AGENT_ENV.dir]) args.push("-c", "allow_login_shell=false");
  return args;
}

function buildCommand(spec: SessionSpec): string[] {
  const o = spec.options;
  const args = ["exec", "--json", "--skip-git-repo-check", ...commonConfig(spec)];
  if (o.permission_mode === "bypass") args.push("--dangerously-bypass-approvals-and-sandbox");
  else if (o.permission_mode !== null) args.push("-s", CODEX_SANDBOX_MODES[o.permission_mode]);
  args.push("-C", spec.cwd);
  for (const d of spec.extraDirs) args.push("--add-dir", d);
  return [...args, ...promptArgs(spec.prompt)];
}

/**
 * `exec resume` accepts no `-s`/`-C`/`--add-dir`: the sandbox goes through `-c sandbox_mode=…`, the extra writable
 * directories (other target repos, the agent-control directory) through `-c sandbox_workspace_write.writable_roots`,
 * and the cwd is the spawn cwd.
 */
function buildResume(sessionId: string, spec: SessionSpec): string[] {
  const o = spec.options;
  const args = ["exec", "resume", "--json", "--skip-git-repo-check", ...commonConfig(spec)];
  if (o.permission_mode !== null) args.push("-c", `sandbox_mode="${CODEX_SANDBOX_MODES[o.permission_mode]}"`);
  if (spec.extraDirs.length) {
    // A JSON string is a valid TOML basic string.
    args.push(
      "-c",
      `sandbox_workspace_write.writable_roots=[${spec.extraDirs.map((d) => JSON.stringify(d)).join(",")}]`,
    );
  }
  return [...args, sessionId, ...promptArgs(spec.prompt)];
}

/**
 * The `codex app-server` command line (the `app_server` transport, docs/reference/providers.md §3.1): the exec
 * lane's `-c` overrides; model, sandbox, approval policy and cwd travel in `thread/start` (src/lanes/codex_app_server.ts).
 */
export function buildAppServerCommand(spec: SessionSpec): string[] {
  const args = ["app-server", ...commonConfig({ ...spec, options: { ...spec.options, model: "" } })];
  if (spec.extraDirs.length) {
    args.push(
      "-c",
      `sandbox_workspace_write.writable_roots=[${spec.extraDirs.map((d) => JSON.stringify(d)).join(",")}]`,
    );
  }
  return args;
}

/**
 * The transport `codex_opts.app_server` selects: `true` → `app_server`, `false`/absent → `exec` (the default, see
 * docs/lanes.md "Default transport"). Anything else is a LaunchError naming the option.
 */
export function codexTransport(options: SessionOptions): LaneTransport {
  const v = laneOpts(options, "codex_opts")["app_server"];
  if (v === undefined || v === null || v === false) return "exec";
  if (v === true) return "app_server";
  throw new LaunchError(`codex_opts.app_server: expected true or false; got ${JSON.stringify(v)}`);
}

/** The codex profile. */
export const codexProfile: CliProfile = {
  lane: CODEX_PROFILE,
  buildCommand,
  buildResume,
  createParser: createCodexStreamParser,
  readiness: [{ description: "turn.started + 100 ms", match: (r) => str(r, "type") === "turn.started", delayMs: 100 }],
  sessionNotFound: /no rollout found for thread id/i,
  failureHints: CODEX_FAILURE_HINTS,
  enforcesAllowedTools: false,
  toolVocabulary: CODEX_TOOLS,
  transportFor: codexTransport,
  transportSessions: {
    app_server: (spec) => startAppServerSession(codexProfile, spec, buildAppServerCommand(spec)),
  },
  transport: {
    patchInEvent: [],
    usage: "turn.completed.usage (per turn; exec runs one turn per stream)",
  },
};

/** The codex lane. */
export const codexLane: Lane = cliLane(codexProfile);
