/** The antigravity lane (docs/reference/providers.md §6, unverified): `agy -p <prompt> --output-format stream-json …`. */
import { createAntigravityStreamParser } from "./antigravity_stream.ts";
import { cliLane } from "./cli_lane.ts";
import type { FailureHint } from "./hints.ts";
import { ANTIGRAVITY_PROFILE } from "./profiles.ts";
import type { CliProfile } from "./profile.ts";
import type { Lane, SessionSpec } from "./types.ts";
import { ANTIGRAVITY_TOOLS } from "./tool_vocabulary.ts";

/** Failure hints of the antigravity lane: Google-style status words (docs/reference/providers.md §6, unverified). */
export const ANTIGRAVITY_FAILURE_HINTS: readonly FailureHint[] = [
  { class: "provider_auth_claim", kind: /UNAUTHENTICATED|PERMISSION_DENIED/i },
  { class: "provider_auth_claim", message: /UNAUTHENTICATED|PERMISSION_DENIED/ },
  { class: "provider_rate_limit", kind: /RESOURCE_EXHAUSTED/i },
  { class: "provider_rate_limit", message: /RESOURCE_EXHAUSTED|quota/i },
  { class: "provider_capacity", kind: /^UNAVAILABLE$/i },
  { class: "provider_capacity", message: /\bUNAVAILABLE\b/ },
  { class: "provider_config_claim", kind: /NOT_FOUND/i, message: /model/i },
  { class: "provider_config_claim", message: /NOT_FOUND[^\n]*model|model[^\n]*NOT_FOUND/ },
  { class: "transport_timeout", kind: /DEADLINE_EXCEEDED/i },
  { class: "transport_timeout", message: /DEADLINE_EXCEEDED|print timeout/i },
];

/** `--print-timeout` as a Go duration in whole seconds (the default of 5 minutes is too short for real work). */
export function printTimeout(timeoutMs: number): string {
  return `${Math.max(1, Math.ceil(timeoutMs / 1000))}s`;
}

function sharedArgs(spec: SessionSpec): string[] {
  const o = spec.options;
  const args = ["-p", spec.prompt, "--output-format", "stream-json", "--print-timeout", printTimeout(o.timeout_ms)];
  if (o.model) args.push("--model", o.model);
  if (o.reasoning_effort !== null) args.push("--effort", o.reasoning_effort);
  if (o.permission_mode === "bypass") args.push("--dangerously-skip-permissions");
  if (o.permission_mode === "plan") args.push("--mode", "plan");
  for (const d of spec.extraDirs) args.push("--add-dir", d);
  return args;
}

/** The antigravity profile. */
export const antigravityProfile: CliProfile = {
  lane: ANTIGRAVITY_PROFILE,
  buildCommand: (spec) => sharedArgs(spec),
  // Never `--continue`: it picks the globally most recent conversation.
  buildResume: (sessionId, spec) => [...sharedArgs(spec), "--conversation", sessionId],
  createParser: createAntigravityStreamParser,
  readiness: [{ description: "first event + 100 ms", match: () => true, delayMs: 100 }],
  sessionNotFound: /conversation[^\n]*(not found|does not exist)|NOT_FOUND[^\n]*conversation/i,
  failureHints: ANTIGRAVITY_FAILURE_HINTS,
  enforcesAllowedTools: false,
  toolVocabulary: ANTIGRAVITY_TOOLS,
  transport: {
    patchInEvent: [],
    usage: "step_update/result usage, cumulative per conversation",
  },
};

/** The antigravity lane. */
export const antigravityLane: Lane = cliLane(antigravityProfile);
