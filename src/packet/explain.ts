/**
 * `packet explain` (docs/cli.md): each prompt's effective options with the layer each value came from, following the
 * layering of docs/reference/packet.md §9 — flag, prompt, manifest, profile (home or built-in), environment, default.
 */
import { resolveProfile } from "./profiles.ts";
import { configHome } from "./profiles.ts";
import type { ExecutionOptions, OptionOverrides, Packet, Prompt } from "./types.ts";
import { normalizeEnum, PROVIDER_BAGS } from "./options.ts";

/** The layer a value came from. */
export type ValueSource =
  | "flag"
  | "prompt"
  | "manifest"
  | "home profile"
  | "built-in profile"
  | "environment"
  | "inferred from model"
  | "default";

/** One explained option. */
export interface ExplainedValue {
  value: unknown;
  source: ValueSource;
  /** The file of the layer (prompt file, manifest, home profile), relative to the packet when inside it; else null. */
  file: string | null;
  /** For maps merged over several layers (`recovery`): every layer that set part of it, highest first. */
  merged_from?: ValueSource[];
}

/** One prompt's explanation. */
export interface PromptExplanation {
  id: string;
  name: string;
  file: string;
  phase: number;
  targets: string[];
  cwd: string;
  commit: string;
  /** Story points and dependencies as loaded. */
  sp: number;
  depends_on: string[];
  /** The contract's clauses (`verify:` keys) with their entry counts. */
  verify: Record<string, number>;
  options: Record<string, ExplainedValue>;
}

/** What `packet explain` prints. */
export interface PacketExplanation {
  packet: string;
  dir: string;
  config_home: string | null;
  profile: { name: string; source: "home" | "built-in"; file: string | null } | null;
  repos: { name: string; path: string; default: boolean }[];
  phases: Record<string, string>;
  prompts: PromptExplanation[];
}

/** Explained keys: the option key as written in files, the flag's key, and how to read the effective value. */
const KEYS: [string, keyof OptionOverrides | null, (o: ExecutionOptions) => unknown][] = [
  ["provider", "provider", (o) => o.provider],
  ["model", "model", (o) => o.model],
  ["reasoning_effort", "reasoning_effort", (o) => o.reasoning_effort],
  ["permission_mode", "permission_mode", (o) => o.permission_mode],
  ["allowed_tools", null, (o) => o.allowed_tools],
  ["timeout", "timeout_ms", (o) => o.timeout_ms],
  ["max_turns", null, (o) => o.max_turns],
  ["system_prompt", null, (o) => o.system_prompt],
  ["append_system_prompt", null, (o) => o.append_system_prompt],
  ["log_mode", "log_mode", (o) => o.view.log_mode],
  ["tool_output", "tool_output", (o) => o.view.tool_output],
  ["thinking", "thinking", (o) => o.view.thinking],
  ["diff", "diff", (o) => o.view.diff],
  ["diff_max_lines", null, (o) => o.diff_max_lines],
  ["tool_output_max_lines", null, (o) => o.tool_output_max_lines],
  ["log_meta", "log_meta", (o) => o.log_meta],
  ["events_mode", "events_mode", (o) => o.events_mode],
  ["recovery", null, (o) => o.recovery],
];

/** Maps merged over every layer that sets part of them: each layer is listed (`merged_from`). */
const MERGED = new Set(["recovery", ...PROVIDER_BAGS]);

/** Keys only a manifest or profile may set (a prompt's own is ignored with a lint warning): packet-wide. */
const PACKET_WIDE = new Set(["execution", "agent_control"]);

const BUDGET_FLAGS: (keyof OptionOverrides)[] = ["retry_attempts", "repair_attempts", "max_steers"];

function set(v: unknown): boolean {
  return v !== undefined && v !== null;
}

interface Layer {
  source: ValueSource;
  file: string | null;
  has(key: string, flagKey: keyof OptionOverrides | null): boolean;
}

/** The layers of one prompt, highest first. */
function layersOf(
  packet: Packet,
  prompt: Prompt,
  profile: { options: Record<string, unknown>; source: string } | null,
  overrides: OptionOverrides,
  env: Record<string, string | undefined>,
): Layer[] {
  const rel = (f: string) => f.startsWith(packet.dir + "/") ? f.slice(packet.dir.length + 1) : f;
  const layers: Layer[] = [
    {
      source: "flag",
      file: null,
      has: (key, flagKey) =>
        (flagKey !== null && set(overrides[flagKey])) ||
        (key === "recovery" && BUDGET_FLAGS.some((b) => set(overrides[b]))),
    },
    { source: "prompt", file: prompt.relFile, has: (key) => !PACKET_WIDE.has(key) && set(prompt.frontMatter[key]) },
    { source: "manifest", file: rel(packet.manifestPath), has: (key) => set(packet.manifest[key]) },
  ];
  if (profile) {
    const home = profile.source !== "built-in";
    layers.push({
      source: home ? "home profile" : "built-in profile",
      file: home ? profile.source : null,
      has: (key) => set(profile.options[key]),
    });
  }
  layers.push({
    source: "environment",
    file: null,
    has: (key) =>
      (key === "provider" && !!env.PROMPT_RUNNER_PROVIDER) || (key === "model" && !!env.PROMPT_RUNNER_MODEL),
  });
  return layers;
}

function explainPrompt(
  packet: Packet,
  prompt: Prompt,
  profile: { options: Record<string, unknown>; source: string } | null,
  overrides: OptionOverrides,
  env: Record<string, string | undefined>,
): PromptExplanation {
  const layers = layersOf(packet, prompt, profile, overrides, env);
  const options: Record<string, ExplainedValue> = {};
  const explain = (key: string, flagKey: keyof OptionOverrides | null, value: unknown, fallback: ValueSource) => {
    const from = layers.filter((l) => l.has(key, flagKey));
    const top = from[0];
    if (!top) return void (options[key] = { value, source: fallback, file: null });
    options[key] = { value, source: top.source, file: top.file };
    if (MERGED.has(key)) options[key]!.merged_from = from.map((l) => l.source);
  };
  for (const [key, flagKey, read] of KEYS) {
    explain(key, flagKey, read(prompt.options), key === "provider" ? "inferred from model" : "default");
  }
  // Settings the runner reads from the layers but not from ExecutionOptions: the top layer's value as loaded.
  const rawOf = (key: string): unknown =>
    [prompt.frontMatter, packet.manifest, profile?.options ?? {}].find((layer, i) =>
      !(i === 0 && PACKET_WIDE.has(key)) && set(layer[key])
    )?.[key];
  explain("cli_confirmation", null, normalizeEnum("cli_confirmation", rawOf("cli_confirmation")) ?? "warn", "default");
  explain("execution", null, packet.execution, "default");
  explain("agent_control", null, packet.agentControl ?? { enabled: false }, "default");
  // Provider option bags: only those some layer sets (merged over the layers, as the lanes read them).
  for (const bag of PROVIDER_BAGS) {
    const value = prompt.options.provider_opts[bag];
    if (value !== undefined) explain(bag, null, value, "default");
  }
  return {
    id: prompt.id,
    name: prompt.name,
    file: prompt.relFile,
    phase: prompt.phase,
    targets: prompt.targets,
    cwd: prompt.cwd,
    commit: prompt.commit,
    sp: prompt.sp,
    depends_on: prompt.dependsOn,
    verify: Object.fromEntries(Object.entries(prompt.verify).map(([clause, entries]) => [clause, entries.length])),
    options,
  };
}

/** Explain a loaded packet (loaded with the same `overrides` and `env`). */
export async function explainPacket(
  packet: Packet,
  overrides: OptionOverrides,
  env: Record<string, string | undefined>,
): Promise<PacketExplanation> {
  const explicit = typeof packet.manifest.profile === "string" && packet.manifest.profile.trim() !== ""
    ? packet.manifest.profile.trim()
    : null;
  const profile = await resolveProfile(explicit, env);
  return {
    packet: packet.name,
    dir: packet.dir,
    config_home: configHome(env),
    profile: profile
      ? {
        name: profile.name,
        source: profile.source === "built-in" ? "built-in" : "home",
        file: profile.source === "built-in" ? null : profile.source,
      }
      : null,
    repos: packet.repos.map((r) => ({ name: r.name, path: r.path, default: r === packet.defaultRepo })),
    phases: packet.phases,
    prompts: packet.prompts.map((p) => explainPrompt(packet, p, profile, overrides, env)),
  };
}
