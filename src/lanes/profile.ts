/**
 * The data-driven shape of a CLI lane (docs/reference/providers.md §1): command and resume builders, a parser factory, readiness
 * markers, the session-not-found pattern, failure hints and transport facts. One generic session
 * (src/lanes/cli_session.ts) runs every profile over the shared process driver.
 */
import type { ProviderEvent } from "../events/mod.ts";
import { LaunchError, type SessionOptions } from "./types.ts";
import type { FailureHint } from "./hints.ts";
import type { JsonObject } from "./_json.ts";
import { genericNeeds, toolAllowed, type ToolVocabulary } from "./tool_vocabulary.ts";
import { laneOpts } from "./executable.ts";
import type { LaneProfile, LaneSession, LaneTransport, SessionSpec } from "./types.ts";

export { laneOpts, resolveExecutable } from "./executable.ts";

/** What a parser learns from one stdout line. */
export interface ParsedLine {
  events: ProviderEvent[];
  /** Provider session id carried by this line. */
  sessionId?: string;
}

/** Per-stream facts a parser may consult. */
export interface ParseContext {
  readonly spec: SessionSpec;
  /** Set once the runner interrupted the stream; aborted results then map to `run_cancelled`. */
  interruptReason(): "interrupted_for_steer" | "operator_stop" | null;
}

/** Raw stdout line → canonical events (docs/reference/events-and-rendering.md §4). Stateful per stream. */
export interface LineParser {
  /** A line that decoded as a JSON object. */
  json(raw: JsonObject): ParsedLine;
  /** A line that is not a JSON object; default: a hidden `unparsed_output` notice. */
  text?(line: string): ParsedLine;
}

/** A raw line after which an interrupt becomes safe, `delayMs` later (docs/reference/control-plane.md §8.5 step 1). */
export interface ReadinessMarker {
  description: string;
  match(raw: JsonObject): boolean;
  delayMs: number;
}

/** Transport facts kept for documentation, preflight and renderers. */
export interface TransportFacts {
  /** Tool names whose events carry their own patch (docs/reference/events-and-rendering.md §8). */
  patchInEvent: readonly string[];
  /** Which events carry usage and whether it is cumulative. */
  usage: string;
}

/** A CLI lane as data. */
export interface CliProfile {
  /** Name, aliases, option bags, model patterns and executable of the lane (its first option bag holds `cli_path`). */
  lane: LaneProfile;
  /** Arguments (without the executable) for a fresh session. May throw LaunchError for unsupported options. */
  buildCommand(spec: SessionSpec): string[];
  /** Arguments for resuming `sessionId` with `spec.prompt` as the next prompt. */
  buildResume(sessionId: string, spec: SessionSpec): string[];
  createParser(ctx: ParseContext): LineParser;
  readiness: readonly ReadinessMarker[];
  /** stderr or error text meaning "the resume target does not exist" (→ restart_with_steer). */
  sessionNotFound: RegExp;
  failureHints: readonly FailureHint[];
  transport: TransportFacts;
  /**
   * Whether the CLI itself enforces `allowed_tools` before a tool runs. When false, a started tool outside the list
   * is only observed and its `tool_call_started` carries a `guardrail` record.
   */
  enforcesAllowedTools: boolean;
  /**
   * The lane's tool names in the generic `allowed_tools` vocabulary (src/lanes/tool_vocabulary.ts); absent: names
   * are compared literally.
   */
  toolVocabulary?: ToolVocabulary;
  /** Exit 0 without a terminal event completes the stream (plain-text lanes); false for every JSON lane. */
  cleanExitCompletes?: boolean;
  /**
   * The transport a prompt's options select (one of `lane.transports`); throws LaunchError naming the option for a
   * value the lane does not have. Absent: always `exec`.
   */
  transportFor?(options: SessionOptions): LaneTransport;
  /** Session starters of the lane's non-`exec` transports (`exec` is the generic session of src/lanes/cli_session.ts). */
  transportSessions?: Partial<Record<Exclude<LaneTransport, "exec">, (spec: SessionSpec) => LaneSession>>;
}

/**
 * The transport named by a lane option's value: `null`/absent → the lane's default (its first transport); a name the
 * lane does not have throws LaunchError naming `where` and the expected names. Pure.
 */
export function transportOption(lane: LaneProfile, where: string, value: unknown): LaneTransport {
  if (value === undefined || value === null || value === "") return lane.transports[0] ?? "exec";
  const found = lane.transports.find((t) => t === value);
  if (found !== undefined) return found;
  throw new LaunchError(
    `${where}: expected one of ${lane.transports.join(", ")}; got ${JSON.stringify(value)}`,
  );
}

/**
 * The guardrail record for a tool call `allowed_tools` does not allow, or null when it is allowed or no list is set.
 * The list is read in the generic vocabulary through the lane's `vocabulary` (a codex shell call is `Bash`), and a
 * lane's own tool name (any case) is accepted as well. Pure.
 */
export function guardrailFor(
  lane: string,
  toolName: string,
  allowed: readonly string[] | null,
  vocabulary: ToolVocabulary = {},
  input: Record<string, unknown> = {},
): { tool: string; allowed_tools: string[]; reason: string } | null {
  if (allowed === null) return null;
  if (toolAllowed(vocabulary, toolName, input, allowed)) return null;
  const needs = genericNeeds(vocabulary, toolName, input);
  const as = needs?.length ? ` (it needs ${needs.map((g) => g.join(" or ")).join(" and ")})` : "";
  return {
    tool: toolName,
    allowed_tools: [...allowed],
    reason: `tool "${toolName}"${as} is not in allowed_tools; the ${lane} lane can only observe it after the fact`,
  };
}

/** Variables added to the provider environment: `adapter_opts.env` under the session's own additions. */
export function providerEnv(spec: SessionSpec): Record<string, string> {
  const out: Record<string, string> = {};
  const adapterEnv = laneOpts(spec.options, "adapter_opts")["env"];
  if (adapterEnv !== null && typeof adapterEnv === "object" && !Array.isArray(adapterEnv)) {
    for (const [k, v] of Object.entries(adapterEnv)) {
      if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") out[k] = String(v);
    }
  }
  return { ...out, ...spec.env };
}

/**
 * The prompt as the final positional argument. A prompt that starts with `-` would be read as an option, so it
 * follows `--` (claude and codex both end option parsing there).
 */
export function promptArgs(prompt: string): string[] {
  return prompt.startsWith("-") ? ["--", prompt] : [prompt];
}

/** A string option of a lane bag, or null. */
export function optString(bag: Record<string, unknown>, key: string): string | null {
  const v = bag[key];
  return typeof v === "string" && v !== "" ? v : null;
}
