/**
 * Load a packet directory (docs/reference/packet.md): manifest, profile, prompts, option layering and dependency validation.
 * {@link inspectPacket} collects every finding for `packet lint`; {@link loadPacket} throws the first error.
 */
import { findingCode, PacketError, UsageError } from "../errors.ts";
import { FindingSink } from "./findings.ts";
import {
  MANIFEST_OPTION_KEYS,
  mergeLayers,
  normalizeLayer,
  type OptionLayer,
  resolveExecutionOptions,
} from "./options.ts";
import { ProfileError, type ProfileNote, type ResolvedProfile, resolveProfile } from "./profiles.ts";
import { defaultRepoOf, parseRepos } from "./repos.ts";
import { type AgentControlConfig, agentOwnedFindings, type ExecutionPolicy, VERIFIER_OWNED } from "./agent_control.ts";
import { applyLegacyRoots, buildPrompts, uniquePrompts } from "./assemble.ts";
import {
  canonicalDir,
  MANIFEST_FILE,
  manifestBasics,
  parseManifest,
  readManifest,
  readPromptFiles,
} from "./packet_files.ts";
import type { Finding, OptionOverrides, Packet, Prompt, Repo } from "./types.ts";

export { discoverPromptFiles, MANIFEST_KEYS, PROMPT_READ_CONCURRENCY } from "./packet_files.ts";

/** Options of {@link loadPacket}. */
export interface LoadOptions {
  /** CLI flags: the top option layer. */
  overrides?: OptionOverrides;
  /** Environment used for `PROMPT_RUNNER_*`, `XDG_CONFIG_HOME`, `HOME` (default: the process environment). */
  env?: Record<string, string>;
  /**
   * Workspace repo mapping (docs/reference/workspace.md §6.2): replaces each repo's path (a clone path) and rewrites author-machine
   * paths in prompt bodies. Default: the remap registered for the packet dir with {@link registerRepoRemap}, if any.
   */
  repoRemap?: RepoRemap;
}

/** How a workspace maps a packet's repos onto its clones (docs/reference/workspace.md §6.2). */
export interface RepoRemap {
  /** The path the repo is used at; throws a `PacketError` (exit 3) when the repo has no workspace counterpart. */
  repoPath(repo: Readonly<Repo>): string;
  /** Rewrite author-machine paths appearing in a prompt body, system prompts and provider option strings. */
  rewriteText(text: string): string;
  /** A workspace's installed contract artifacts, id → path (`@artifact:<id>` in verifier argv). */
  artifacts?: Readonly<Record<string, string>>;
}

const registeredRemaps = new Map<string, RepoRemap>();

/**
 * Register the repo remap of a canonical packet dir for this process, so loaders deep in the runner and the control
 * API that only know the packet dir apply it too. Target resolution calls it for workspace targets; null removes.
 */
export function registerRepoRemap(packetDir: string, remap: RepoRemap | null): void {
  if (remap) registeredRemaps.set(packetDir, remap);
  else registeredRemaps.delete(packetDir);
}

/** What {@link inspectPacket} found. */
export interface PacketInspection {
  /** Canonical packet dir. */
  dir: string;
  /** The packet, or null when the manifest could not be read. */
  packet: Packet | null;
  /** Every finding (errors and warnings) in discovery order. */
  findings: Finding[];
  /** Prompt files discovered, absolute, sorted by name. */
  promptFiles: string[];
}

const ENV_NAMES = [
  "PROMPT_RUNNER_PROVIDER",
  "PROMPT_RUNNER_MODEL",
  "PROMPT_RUNNER_CONFIG_HOME",
  "XDG_CONFIG_HOME",
  "HOME",
];

/** Read the environment variables the loader uses, tolerating partial env permission. */
export function loaderEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of ENV_NAMES) {
    try {
      const v = Deno.env.get(name);
      if (v !== undefined) out[name] = v;
    } catch { /* not permitted: treated as unset */ }
  }
  return out;
}

function overridesLayer(o: OptionOverrides): OptionLayer {
  const raw: Record<string, unknown> = {};
  for (
    const k of [
      "provider",
      "model",
      "reasoning_effort",
      "permission_mode",
      "log_mode",
      "tool_output",
      "thinking",
      "diff",
      "log_meta",
      "events_mode",
    ] as const
  ) {
    if (o[k] !== undefined) raw[k] = o[k];
  }
  if (o.timeout_ms !== undefined) raw.timeout = o.timeout_ms;
  const sink = new FindingSink();
  const layer = normalizeLayer(raw, Object.keys(raw), { file: "command line" }, sink);
  const err = sink.errors()[0];
  if (err) {
    throw new UsageError(
      "invalid_value",
      err.message.replace(/^command line: (\w+) is/, (_m, k: string) => `--${k.replaceAll("_", "-")} is`),
    );
  }
  return layer;
}

/** The manifest's repos; several marked `default: true` is a warning (the first is used). */
function manifestRepos(manifest: Record<string, unknown>, root: string, sink: FindingSink): Repo[] {
  const mf = MANIFEST_FILE;
  const repos = parseRepos(manifest.repos, root, mf, sink);
  const defaults = repos.filter((r) => r.default);
  if (defaults.length > 1) {
    sink.warn(
      "multiple_default_repos",
      `${mf}: several repos have default: true (${defaults.map((r) => r.name).join(", ")}); "${
        defaults[0]!.name
      }" is used`,
      { file: mf, key: "repos" },
    );
  }
  return repos;
}

/** The manifest's `profile:` (trimmed), or null when absent or blank. */
function explicitProfileOf(manifest: Record<string, unknown>): string | null {
  return typeof manifest.profile === "string" && manifest.profile.trim() !== "" ? manifest.profile.trim() : null;
}

/** Resolve the profile; a {@link ProfileError} becomes an error finding (the packet loads without a profile). */
async function profileOf(
  explicit: string | null,
  env: Record<string, string>,
  sink: FindingSink,
): Promise<ResolvedProfile | null> {
  const notes: ProfileNote[] = [];
  try {
    return await resolveProfile(explicit, env, notes);
  } catch (e) {
    if (!(e instanceof ProfileError)) throw e;
    // A config.md field names its own file; the others are reached through the manifest's `profile:`.
    const message = e.key === null ? `${MANIFEST_FILE}: ${e.message}` : e.message;
    sink.error(e.code, message, { file: e.file ?? MANIFEST_FILE, key: e.key ?? "profile" });
    return null;
  } finally {
    for (const n of notes) {
      sink.warn(
        "unknown_profile_key",
        `${n.file}: unknown key "${n.key}" is ignored${n.hint ? `; did you mean "${n.hint}"?` : ""}`,
        { file: n.file, key: n.key },
      );
    }
  }
}

/**
 * The packet-level option layers merged once (environment, profile, manifest); each prompt adds its own layer and
 * the flags on top (merging is a left fold, so this equals merging every layer per prompt).
 */
function packetLayer(
  env: Record<string, string>,
  profile: ResolvedProfile | null,
  manifest: Record<string, unknown>,
  root: string,
  sink: FindingSink,
): OptionLayer {
  const envRaw: Record<string, unknown> = {};
  if (env.PROMPT_RUNNER_PROVIDER) envRaw.provider = env.PROMPT_RUNNER_PROVIDER;
  if (env.PROMPT_RUNNER_MODEL) envRaw.model = env.PROMPT_RUNNER_MODEL;
  const envLayer = normalizeLayer(envRaw, ["provider", "model"], { file: "environment PROMPT_RUNNER_*" }, sink);
  const profileLayer = profile
    ? normalizeLayer(profile.options, MANIFEST_OPTION_KEYS, { file: `profile ${profile.name}`, packetDir: root }, sink)
    : {};
  const manifestLayer = normalizeLayer(manifest, MANIFEST_OPTION_KEYS, { file: MANIFEST_FILE, packetDir: root }, sink);
  return mergeLayers([envLayer, profileLayer, manifestLayer]);
}

/** The budget flags (`--retry-attempts`, `--repair-attempts`, `--max-steers`) that were given. */
function budgetOverrides(o: OptionOverrides): Parameters<typeof resolveExecutionOptions>[1] {
  return {
    ...(o.retry_attempts !== undefined ? { retry_attempts: o.retry_attempts } : {}),
    ...(o.repair_attempts !== undefined ? { repair_attempts: o.repair_attempts } : {}),
    ...(o.max_steers !== undefined ? { max_steers: o.max_steers } : {}),
  };
}

/**
 * Inspect a packet: load everything that can be loaded and collect every finding, in discovery order. Never throws
 * for content. Reads the manifest, the profile and the prompt files; the rest is pure (./assemble.ts).
 */
export async function inspectPacket(dir: string, opts: LoadOptions = {}): Promise<PacketInspection> {
  const root = await canonicalDir(dir);
  const env = opts.env ?? loaderEnv();
  const flags = overridesLayer(opts.overrides ?? {});
  const sink = new FindingSink();
  const manifestPath = `${root}/${MANIFEST_FILE}`;
  const manifest = await parseManifest(await readManifest(root), sink);
  if (manifest === null) return { dir: root, packet: null, findings: sink.list, promptFiles: [] };
  const { name, promptDir } = manifestBasics(root, manifest, sink);
  // Prompt files are discovered, read and parsed while the profile is resolved: each prompt reports into its own
  // sink, merged below in file order, so the findings come out exactly as if this happened afterwards.
  const promptsParsed = readPromptFiles(root, promptDir);
  promptsParsed.catch(() => {/* awaited below */});
  const declaredRepos = manifestRepos(manifest, root, sink);
  const phases = parsePhases(manifest.phases, sink);
  const explicitProfile = explicitProfileOf(manifest);
  const profile = await profileOf(explicitProfile, env, sink);
  const base = packetLayer(env, profile, manifest, root, sink);
  const budgets = budgetOverrides(opts.overrides ?? {});
  const options = resolveExecutionOptions(mergeLayers([base, flags]), budgets);

  const { promptFiles, parsed, ignored } = await promptsParsed;
  for (const { name: entry, why } of ignored) {
    const rel = relativeTo(root, `${promptDir}/${entry}`);
    sink.warn("prompt_file_ignored", `${rel} ${why}`, { file: rel });
  }
  const { raws, byId } = uniquePrompts(parsed, sink);
  const remap = opts.repoRemap ?? registeredRemaps.get(root) ?? null;
  let repos = applyLegacyRoots(raws, declaredRepos, root);
  if (remap) repos = repos.map((r) => ({ ...r, path: remap.repoPath(r) }));
  const defaultRepo = defaultRepoOf(repos);
  const rewrite = remap ? (t: string) => remap.rewriteText(t) : null;
  const ctx = { root, manifestFile: MANIFEST_FILE, repos, defaultRepo, base, flags, budgets, rewrite };
  const prompts = buildPrompts(raws, byId, ctx, sink);
  const { agentControl, execution } = controlOf(base, prompts, sink);
  const packet: Packet = {
    dir: root,
    manifestPath,
    name,
    promptDir,
    profile: profile?.name ?? explicitProfile,
    repos,
    defaultRepo,
    phases,
    prompts,
    options,
    manifest,
    warnings: sink.list.filter((f) => f.severity === "warning"),
    agentControl,
    execution,
    ...(remap?.artifacts ? { artifacts: { ...remap.artifacts } } : {}),
  };
  return { dir: root, packet, findings: sink.list, promptFiles };
}

/** The packet's agent-control block and completion owner; agent-owned completion checks every prompt's contract. */
function controlOf(
  base: OptionLayer,
  prompts: Prompt[],
  sink: FindingSink,
): { agentControl: AgentControlConfig | null; execution: ExecutionPolicy } {
  const ac = base.agent_control as AgentControlConfig | undefined;
  const execution = (base.execution as ExecutionPolicy | undefined) ?? VERIFIER_OWNED;
  if (execution.completion === "agent_owned") agentOwnedFindings(prompts, sink);
  return { agentControl: ac && ac.enabled ? ac : null, execution };
}

/** `path` relative to `root` when inside it, else as is. */
function relativeTo(root: string, path: string): string {
  return path.startsWith(root + "/") ? path.slice(root.length + 1) : path;
}

function parsePhases(raw: unknown, sink: FindingSink): Record<string, string> {
  const out: Record<string, string> = {};
  if (raw === undefined || raw === null) return out;
  if (typeof raw !== "object" || Array.isArray(raw)) {
    sink.warn("invalid_phase_key", `${MANIFEST_FILE}: phases must be a map "<int>" → label; ignored`, {
      file: MANIFEST_FILE,
      key: "phases",
    });
    return out;
  }
  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
    if (/^\s*\d+\s*$/.test(k)) out[String(Number(k))] = v === null || v === undefined ? "" : String(v);
    else {
      sink.warn("invalid_phase_key", `${MANIFEST_FILE}: phase key "${k}" is not an integer; ignored`, {
        file: MANIFEST_FILE,
        key: `phases.${k}`,
      });
    }
  }
  return out;
}

/**
 * Load a packet for running or displaying. Throws {@link PacketError} (exit 3) for the first error finding,
 * {@link NotFoundError} (exit 4) when the directory is not a packet, {@link UsageError} for invalid overrides.
 */
export async function loadPacket(dir: string, opts: LoadOptions = {}): Promise<Packet> {
  return packetOf(await inspectPacket(dir, opts));
}

/**
 * The packet of an inspection, as {@link loadPacket} returns it: throws {@link PacketError} (exit 3) for the first
 * error finding. Lets a caller that also lints (the runner's lint gate) inspect the packet once.
 */
export function packetOf(r: PacketInspection): Packet {
  const errors = r.findings.filter((f) => f.severity === "error");
  const first = errors[0];
  if (first || !r.packet) {
    const f = first!;
    const hints = [`packet: ${r.dir}`];
    if (errors.length > 1) {
      hints.push(
        `${errors.length - 1} more ${
          errors.length === 2 ? "error" : "errors"
        }; run: prompt_runner packet lint ${r.dir}`,
      );
    }
    throw new PacketError(findingCode(f.kind), f.message, {
      ...(f.file ? { file: f.file } : {}),
      ...(f.key ? { key: f.key } : {}),
      hints,
      details: { file: f.file, key: f.key, prompt_id: f.prompt_id },
    });
  }
  return r.packet;
}
