/**
 * Load a packet directory (docs/reference/packet.md): manifest, profile, prompts, option layering and dependency validation.
 * {@link inspectPacket} collects every finding for `packet lint`; {@link loadPacket} throws the first error.
 */
import { findingCode, NotFoundError, PacketError, UsageError } from "../errors.ts";
import { FindingSink } from "./findings.ts";
import { FrontMatterSyntaxError, parseFrontMatter } from "./front_matter.ts";
import {
  joinPath,
  MANIFEST_OPTION_KEYS,
  mergeLayers,
  normalizeLayer,
  type OptionLayer,
  resolveExecutionOptions,
} from "./options.ts";
import { ProfileError, type ResolvedProfile, resolveProfile } from "./profiles.ts";
import { defaultRepoOf, parseRepos } from "./repos.ts";
import { parsePromptFile, type RawPrompt } from "./prompt_file.ts";
import { type AgentControlConfig, agentOwnedFindings, type ExecutionPolicy, VERIFIER_OWNED } from "./agent_control.ts";
import { applyLegacyRoots, buildPrompts, uniquePrompts } from "./assemble.ts";
import { outsideMessage, outsidePacket } from "./confine.ts";
import type { Finding, OptionOverrides, Packet, Prompt, Repo } from "./types.ts";

/** The manifest file name. */
const MANIFEST_FILE = "prompt_runner_packet.md";

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

/** Every top-level manifest key the loader knows (docs/packets.md); others are `unknown_manifest_key` warnings. */
export const MANIFEST_KEYS: ReadonlySet<string> = new Set([
  "name",
  "profile",
  "prompt_dir",
  "prompt_template",
  "repos",
  "phases",
  ...MANIFEST_OPTION_KEYS,
]);

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

async function canonicalDir(dir: string): Promise<string> {
  try {
    const real = await Deno.realPath(dir);
    if (!(await Deno.stat(real)).isDirectory) throw new Deno.errors.NotFound(dir);
    return real;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory) {
      throw new NotFoundError("target_not_found", `packet directory not found: ${dir}`);
    }
    throw e;
  }
}

/** Discover prompt files: `*.prompt.md`, else `*.md` without `*.checklist.md` (absolute, sorted by name). */
export async function discoverPromptFiles(promptDir: string): Promise<string[]> {
  return (await discoverPromptEntries(promptDir)).files;
}

/** {@link discoverPromptFiles}, with the files that are symlinks. */
async function discoverPromptEntries(promptDir: string): Promise<{ files: string[]; links: Set<string> }> {
  const names: string[] = [];
  const linked = new Set<string>();
  try {
    for await (const e of Deno.readDir(promptDir)) {
      if (e.isFile || e.isSymlink) names.push(e.name);
      if (e.isSymlink) linked.add(e.name);
    }
  } catch (e) {
    if (e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory) {
      return { files: [], links: linked };
    }
    throw e;
  }
  names.sort();
  let picked = names.filter((n) => n.endsWith(".prompt.md") && !n.endsWith(".checklist.md"));
  if (picked.length === 0) picked = names.filter((n) => n.endsWith(".md") && !n.endsWith(".checklist.md"));
  const files = picked.map((n) => `${promptDir}/${n}`);
  return { files, links: new Set(picked.filter((n) => linked.has(n)).map((n) => `${promptDir}/${n}`)) };
}

function relTo(dir: string, path: string): string {
  return path.startsWith(dir + "/") ? path.slice(dir.length + 1) : path;
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

/**
 * How many prompt files are read and parsed at once. Bounded: with every file of a 10,000-prompt packet in flight at
 * once, each one's text, YAML tree and pending read were alive together, and the heap grew to several times what the
 * loaded packet keeps (docs/bench.md `scale`, peak RSS).
 */
export const PROMPT_READ_CONCURRENCY = 16;

/** Discover the prompt files and parse them concurrently, each into its own sink (merged later in file order). */
async function readPromptFiles(
  root: string,
  promptDir: string,
): Promise<{ promptFiles: string[]; parsed: { raw: RawPrompt | null; own: FindingSink }[] }> {
  const { files: promptFiles, links } = await discoverPromptEntries(promptDir);
  // One real-path check for the directory; then only the files that are links need their own.
  const dirInside = promptFiles.length === 0 || (await outsidePacket(root, promptDir)) === null;
  const parsed: { raw: RawPrompt | null; own: FindingSink }[] = new Array(promptFiles.length);
  let next = 0;
  const worker = async () => {
    while (next < promptFiles.length) {
      const i = next++;
      const file = promptFiles[i]!;
      const own = new FindingSink();
      const rel = relTo(root, file);
      // A prompt file (or the prompt dir) linked outside the packet is never read: it would be sent to a provider.
      const outside = dirInside && !links.has(file) ? null : await outsidePacket(root, file);
      if (outside) {
        own.error("outside_packet", `${rel}: ${outsideMessage(root, outside)}`, { file: rel });
        parsed[i] = { raw: null, own };
        continue;
      }
      parsed[i] = { raw: await parsePromptFile(file, rel, own), own };
    }
  };
  await Promise.all(Array.from({ length: Math.min(PROMPT_READ_CONCURRENCY, promptFiles.length) }, worker));
  return { promptFiles, parsed };
}

/** The manifest's text; a directory without one is not a packet (exit 4). */
async function readManifest(root: string): Promise<string> {
  const outside = await outsidePacket(root, `${root}/${MANIFEST_FILE}`);
  if (outside) {
    const message = `${MANIFEST_FILE}: ${outsideMessage(root, outside)}`;
    throw new PacketError(findingCode("outside_packet"), message, { file: MANIFEST_FILE });
  }
  try {
    return await Deno.readTextFile(`${root}/${MANIFEST_FILE}`);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) {
      throw new NotFoundError("target_not_found", `${root} is not a packet: ${MANIFEST_FILE} not found`);
    }
    throw e;
  }
}

/** The manifest's front matter, or null after a `manifest_yaml_invalid` finding. */
function parseManifest(text: string, sink: FindingSink): Record<string, unknown> | null {
  try {
    return parseFrontMatter(text).data;
  } catch (e) {
    if (!(e instanceof FrontMatterSyntaxError)) throw e;
    sink.error(
      "manifest_yaml_invalid",
      `invalid YAML in ${MANIFEST_FILE} at line ${e.line}, column ${e.column}: ${e.message}`,
      { file: MANIFEST_FILE },
    );
    return null;
  }
}

/** Unknown manifest keys (warnings), the packet name (default: the directory's) and its prompt dir. */
function manifestBasics(root: string, manifest: Record<string, unknown>, sink: FindingSink) {
  const mf = MANIFEST_FILE;
  for (const key of Object.keys(manifest)) {
    if (!MANIFEST_KEYS.has(key)) {
      sink.warn("unknown_manifest_key", `${mf}: unknown manifest key "${key}" is ignored`, { file: mf, key });
    }
  }
  const name = typeof manifest.name === "string" && manifest.name.trim() !== ""
    ? manifest.name
    : root.slice(root.lastIndexOf("/") + 1);
  const promptDirRel = typeof manifest.prompt_dir === "string" && manifest.prompt_dir !== ""
    ? manifest.prompt_dir
    : "prompts";
  return { name, promptDir: joinPath(root, promptDirRel) };
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
  try {
    return await resolveProfile(explicit, env);
  } catch (e) {
    if (!(e instanceof ProfileError)) throw e;
    sink.error(e.code, `${MANIFEST_FILE}: ${e.message}`, { file: e.file ?? MANIFEST_FILE, key: "profile" });
    return null;
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
  const manifest = parseManifest(await readManifest(root), sink);
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

  const { promptFiles, parsed } = await promptsParsed;
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
