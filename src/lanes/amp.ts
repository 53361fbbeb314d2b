/**
 * The amp lane (docs/reference/providers.md §4, unverified): `amp -x <prompt> --stream-json …`; Claude-shaped events with usage
 * summed once per assistant message id (docs/reference/events-and-rendering.md §4.3).
 */
import { createClaudeStreamParser } from "./claude_stream.ts";
import { cliLane } from "./cli_lane.ts";
import { AMP_PROFILE } from "./profiles.ts";
import { type CliProfile, laneOpts, optString } from "./profile.ts";
import { type Lane, LaunchError, type SessionSpec } from "./types.ts";
import { AMP_TOOLS } from "./tool_vocabulary.ts";

function sharedArgs(spec: SessionSpec): string[] {
  const o = spec.options;
  const args = ["--stream-json", "--no-ide", "--no-notifications", "--no-color", "--stream-json-thinking"];
  if (o.permission_mode === "plan") {
    throw new LaunchError(`permission_mode "plan" is not available for amp`, "use default, auto or bypass");
  }
  if (o.permission_mode === "bypass") args.push("--dangerously-allow-all");
  const mode = optString(laneOpts(o, "amp_opts"), "mode");
  if (mode !== null) args.push("--mode", mode);
  if (o.model) args.push("--model", o.model);
  return args;
}

/** The amp profile. */
export const ampProfile: CliProfile = {
  lane: AMP_PROFILE,
  buildCommand: (spec) => ["-x", spec.prompt, ...sharedArgs(spec)],
  buildResume: (sessionId, spec) => ["threads", "continue", sessionId, "-x", spec.prompt, ...sharedArgs(spec)],
  createParser: (ctx) => createClaudeStreamParser(ctx, { provider: "amp", usage: "assistant" }),
  readiness: [{ description: "first event + 100 ms", match: () => true, delayMs: 100 }],
  sessionNotFound: /thread[^\n]*not found|no such thread|thread does not exist/i,
  // No structured error kinds are documented: the runner's message heuristics classify amp errors.
  failureHints: [],
  enforcesAllowedTools: false,
  toolVocabulary: AMP_TOOLS,
  transport: {
    patchInEvent: [],
    usage: "assistant.message.usage summed once per message id",
  },
};

/** The amp lane. */
export const ampLane: Lane = cliLane(ampProfile);
