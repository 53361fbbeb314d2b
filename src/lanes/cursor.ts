/** The cursor lane (docs/reference/providers.md §5, unverified): `agent -p --trust --output-format stream-json … <prompt>`. */
import { cliLane } from "./cli_lane.ts";
import { createCursorStreamParser } from "./cursor_stream.ts";
import type { FailureHint } from "./hints.ts";
import { CURSOR_PROFILE } from "./profiles.ts";
import { type CliProfile, laneOpts, optString, promptArgs } from "./profile.ts";
import type { Lane, SessionSpec } from "./types.ts";
import { CURSOR_TOOLS } from "./tool_vocabulary.ts";

/** Failure hints of the cursor lane (docs/reference/providers.md §5, unverified). */
export const CURSOR_FAILURE_HINTS: readonly FailureHint[] = [
  { class: "provider_auth_claim", message: /\blog ?in\b|authenticat|api key/i },
  { class: "provider_rate_limit", message: /rate limit|usage limit|too many requests/i },
  {
    class: "provider_config_claim",
    message: /unknown model|model[^\n]*(not found|not available|invalid)|invalid model/i,
  },
];

function sharedArgs(spec: SessionSpec): string[] {
  const o = spec.options;
  const bag = laneOpts(o, "cursor_opts");
  const args = ["--trust", "--output-format", "stream-json", "--stream-partial-output"];
  if (o.permission_mode === "bypass") args.push("--force");
  if (o.model) args.push("--model", o.model);
  const mode = o.permission_mode === "plan" ? "plan" : optString(bag, "mode");
  if (mode !== null) args.push("--mode", mode);
  const sandbox = optString(bag, "sandbox");
  if (sandbox !== null) args.push("--sandbox", sandbox);
  args.push("--workspace", spec.cwd);
  return args;
}

/** The cursor profile. */
export const cursorProfile: CliProfile = {
  lane: CURSOR_PROFILE,
  // The prompt is the last argument.
  buildCommand: (spec) => ["-p", ...sharedArgs(spec), ...promptArgs(spec.prompt)],
  buildResume: (sessionId, spec) => ["-p", "--resume", sessionId, ...sharedArgs(spec), ...promptArgs(spec.prompt)],
  createParser: createCursorStreamParser,
  readiness: [{ description: "first event + 100 ms", match: () => true, delayMs: 100 }],
  sessionNotFound: /(session|chat|conversation)[^\n]*(not found|does not exist)/i,
  failureHints: CURSOR_FAILURE_HINTS,
  enforcesAllowedTools: false,
  toolVocabulary: CURSOR_TOOLS,
  transport: {
    patchInEvent: ["edit"],
    usage: "result.usage (inputTokens, outputTokens, cacheReadTokens)",
  },
};

/** The cursor lane. */
export const cursorLane: Lane = cliLane(cursorProfile);
