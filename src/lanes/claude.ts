/** The claude lane (docs/reference/providers.md §2): `claude -p --output-format stream-json --verbose --include-partial-messages`. */
import { obj, str, textOf } from "./_json.ts";
import { startCliSession } from "./cli_session.ts";
import type { InputProtocol } from "./live_input.ts";
import { createClaudeStreamParser } from "./claude_stream.ts";
import { cliLane } from "./cli_lane.ts";
import type { FailureHint } from "./hints.ts";
import { CLAUDE_PROFILE } from "./profiles.ts";
import { type CliProfile, laneOpts, transportOption } from "./profile.ts";
import type { Lane, PermissionMode, SessionSpec } from "./types.ts";

/** `permission_mode` → `--permission-mode` value (docs/reference/providers.md §1). */
export const CLAUDE_PERMISSION_MODES: Readonly<Record<PermissionMode, string>> = {
  default: "default",
  auto: "acceptEdits",
  bypass: "bypassPermissions",
  plan: "plan",
};

/** Failure hints of the claude lane, first match wins (docs/reference/providers.md §2). */
export const CLAUDE_FAILURE_HINTS: readonly FailureHint[] = [
  {
    class: "launch_failed",
    message: /cannot be used with root\/sudo privileges|--dangerously-skip-permissions cannot be used/i,
    note: "running as root: set IS_SANDBOX=1 in adapter_opts.env to allow bypass mode",
  },
  { class: "provider_auth_claim", status: [401, 403] },
  { class: "provider_auth_claim", message: /authentication|invalid api key|x-api-key/i },
  { class: "provider_rate_limit", status: [429] },
  { class: "provider_capacity", status: [529, 502, 503, 500] },
  { class: "provider_capacity", message: /overloaded_error/ },
  { class: "provider_config_claim", status: [400, 404], message: /model/i },
  { class: "provider_runtime_claim", statusRange: [500, 599] },
  { class: "provider_runtime_claim", kind: /^error_max_turns$/ },
];

/** Options shared by fresh and resumed sessions, in the order the CLI documents them. */
function sharedArgs(spec: SessionSpec): string[] {
  const o = spec.options;
  const args: string[] = [];
  for (const d of spec.extraDirs) args.push("--add-dir", d);
  args.push("--output-format", "stream-json", "--verbose", "--include-partial-messages");
  if (o.model) args.push("--model", o.model);
  if (o.reasoning_effort !== null) args.push("--effort", o.reasoning_effort);
  if (o.permission_mode !== null) args.push("--permission-mode", CLAUDE_PERMISSION_MODES[o.permission_mode]);
  if (o.allowed_tools !== null && o.allowed_tools.length > 0) args.push("--allowedTools", o.allowed_tools.join(" "));
  if (o.append_system_prompt !== null) args.push("--append-system-prompt", o.append_system_prompt);
  if (o.system_prompt !== null) args.push("--system-prompt", o.system_prompt);
  if (o.max_turns !== null) args.push("--max-turns", String(o.max_turns));
  return args;
}

/**
 * claude's stream-json input (docs/lanes.md, "Transports"): one `{"type":"user",…}` line per user message, the
 * `interrupt` control request, `--replay-user-messages` echoes as acknowledgements, `system/init` per turn and one
 * `result` per turn.
 */
export const CLAUDE_STREAM_INPUT: InputProtocol = {
  transport: "stream_json",
  userLine: (text) => JSON.stringify({ type: "user", message: { role: "user", content: text } }),
  interruptLine: (id) => JSON.stringify({ type: "control_request", request_id: id, request: { subtype: "interrupt" } }),
  kind(raw) {
    const type = str(raw, "type");
    if (type === "user" && raw["isReplay"] === true) return "echo";
    if (type === "control_response") return "control";
    if (type === "system" && str(raw, "subtype") === "init") return "session_start";
    if (type === "result") return "turn_end";
    return "other";
  },
  echoText: (raw) => textOf(obj(raw, "message")?.["content"]),
};

/** The arguments of the stream-json transport: no prompt argument (it is the first stdin line). */
function streamArgs(spec: SessionSpec): string[] {
  return ["--input-format", "stream-json", "--replay-user-messages", ...sharedArgs(spec)];
}

/** The claude profile. */
export const claudeProfile: CliProfile = {
  lane: CLAUDE_PROFILE,
  // `--allowedTools` and `--add-dir` are variadic and would swallow the prompt: it always follows `--`.
  buildCommand: (spec) => ["-p", ...sharedArgs(spec), "--", spec.prompt],
  // Sessions are stored per cwd: the session spawns the resume in the same cwd (SessionSpec.cwd).
  buildResume: (sessionId, spec) => ["-p", "--resume", sessionId, ...sharedArgs(spec), "--", spec.prompt],
  createParser: (ctx) => createClaudeStreamParser(ctx, { provider: "claude", usage: "result" }),
  readiness: [
    {
      description: "system/init + 100 ms",
      match: (r) => str(r, "type") === "system" && str(r, "subtype") === "init",
      delayMs: 100,
    },
    {
      description: "first assistant or stream_event line",
      match: (r) => str(r, "type") === "assistant" || str(r, "type") === "stream_event",
      delayMs: 0,
    },
  ],
  sessionNotFound: /No conversation found with session ID/i,
  failureHints: CLAUDE_FAILURE_HINTS,
  enforcesAllowedTools: true,
  transportFor: (o) => transportOption(CLAUDE_PROFILE, "claude_opts.transport", laneOpts(o, "claude_opts").transport),
  transportSessions: {
    stream_json: (spec) => startCliSession(claudeStreamProfile, spec, CLAUDE_STREAM_INPUT),
  },
  transport: {
    patchInEvent: ["Edit", "MultiEdit", "NotebookEdit", "Write"],
    usage: "result.usage (cumulative for the stream) and total_cost_usd; assistant usage is partial and ignored",
  },
};

/** The claude profile over the stream-json transport: the same parser, readiness and hints, other arguments. */
const claudeStreamProfile: CliProfile = {
  ...claudeProfile,
  buildCommand: (spec) => ["-p", ...streamArgs(spec)],
  buildResume: (sessionId, spec) => ["-p", "--resume", sessionId, ...streamArgs(spec)],
};

/** The claude lane. */
export const claudeLane: Lane = cliLane(claudeProfile);
