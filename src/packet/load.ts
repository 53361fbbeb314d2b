/**
 * Load a packet directory (docs/reference/packet.md): manifest, profile, prompts, option layering and dependency validation.
 * {@link inspectPacket} collects every finding for `packet lint`; {@link loadPacket} throws the first error.
 */
import { NotFoundError, PacketError, UsageError } from "../errors.ts";
import { FindingSink } from "./findings.ts";
import { FrontMatterSyntaxError, parseFrontMatter } from "./front_matter.ts";
import {
  joinPath,
  MANIFEST_OPTION_KEYS,
  mergeLayers,
  normalizeLayer,
  type OptionLayer,
  PROMPT_EXECUTION_KEYS,
  PROVIDER_BAGS,
  resolveExecutionOptions,
} from "./options.ts";
import { ProfileError, type ResolvedProfile, resolveProfile } from "./profiles.ts";
import { defaultRepoOf, parseRepos } from "./repos.ts";
import { parsePromptFile, type RawPrompt } from "./prompt_file.ts";
import { dependencyCycle } from "./dependencies.ts";
import type { ExecutionOptions, Finding, OptionOverrides, Packet, Prompt, Repo } from "./types.ts";

/** The manifest file name. */
export const MANIFEST_FILE = "prompt_runner_packet.md";

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

const MANIFEST_KEYS = new Set([
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
  const names: string[] = [];
  try {
    for await (const e of Deno.readDir(promptDir)) if (e.isFile || e.isSymlink) names.push(e.name);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory) return [];
    throw e;
  }
  names.sort();
  let picked = names.filter((n) => n.endsWith(".prompt.md") && !n.endsWith(".checklist.md"));
  if (picked.length === 0) picked = names.filter((n) => n.endsWith(".md") && !n.endsWith(".checklist.md"));
  return picked.map((n) => `${promptDir}/${n}`);
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

function rewriteDeep(v: unknown, rewrite: (text: string) => string): unknown {
  if (typeof v === "string") return rewrite(v);
  if (Array.isArray(v)) return v.map((x) => rewriteDeep(x, rewrite));
  if (v !== null && typeof v === "object") {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, rewriteDeep(x, rewrite)]));
  }
  return v;
}

/** Workspace runs: author-machine paths in system prompts and provider option bags become clone paths (docs/reference/workspace.md §6.2). */
function withRewrittenPaths(o: ExecutionOptions, remap: RepoRemap | null): ExecutionOptions {
  if (!remap) return o;
  const r = (t: string | null) => (t === null ? null : remap.rewriteText(t));
  return {
    ...o,
    system_prompt: r(o.system_prompt),
    append_system_prompt: r(o.append_system_prompt),
    provider_opts: rewriteDeep(o.provider_opts, (t) => remap.rewriteText(t)) as ExecutionOptions["provider_opts"],
  };
}

/** Discover the prompt files and parse them concurrently, each into its own sink (merged later in file order). */
async function readPromptFiles(
  root: string,
  promptDir: string,
): Promise<{ promptFiles: string[]; parsed: { raw: RawPrompt | null; own: FindingSink }[] }> {
  const promptFiles = await discoverPromptFiles(promptDir);
  const parsed = await Promise.all(promptFiles.map(async (file) => {
    const own = new FindingSink();
    return { raw: await parsePromptFile(file, relTo(root, file), own), own };
  }));
  return { promptFiles, parsed };
}

/** Inspect a packet: load everything that can be loaded and collect every finding. Never throws for content. */
export async function inspectPacket(dir: string, opts: LoadOptions = {}): Promise<PacketInspection> {
  const root = await canonicalDir(dir);
  const env = opts.env ?? loaderEnv();
  const flags = overridesLayer(opts.overrides ?? {});
  const sink = new FindingSink();
  const manifestPath = `${root}/${MANIFEST_FILE}`;
  let text: string;
  try {
    text = await Deno.readTextFile(manifestPath);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) {
      throw new NotFoundError("target_not_found", `${root} is not a packet: ${MANIFEST_FILE} not found`);
    }
    throw e;
  }
  let manifest: Record<string, unknown>;
  try {
    manifest = parseFrontMatter(text).data;
  } catch (e) {
    if (!(e instanceof FrontMatterSyntaxError)) throw e;
    const fe = e;
    sink.error(
      "manifest_yaml_invalid",
      `invalid YAML in ${MANIFEST_FILE} at line ${fe.line}, column ${fe.column}: ${fe.message}`,
      { file: MANIFEST_FILE },
    );
    return { dir: root, packet: null, findings: sink.list, promptFiles: [] };
  }
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
  const promptDir = joinPath(root, promptDirRel);
  // Prompt files are discovered, read and parsed while the profile is resolved: each prompt reports into its own
  // sink, merged below in file order, so the findings come out exactly as if this happened afterwards.
  const promptsParsed = readPromptFiles(root, promptDir);
  promptsParsed.catch(() => {/* awaited below */});
  let repos = parseRepos(manifest.repos, root, mf, sink);
  if (repos.filter((r) => r.default).length > 1) {
    sink.warn(
      "multiple_default_repos",
      `${mf}: several repos have default: true (${repos.filter((r) => r.default).map((r) => r.name).join(", ")}); "${
        repos.find((r) => r.default)!.name
      }" is used`,
      { file: mf, key: "repos" },
    );
  }
  const phases = parsePhases(manifest.phases, sink);

  let profile: ResolvedProfile | null = null;
  const explicitProfile = typeof manifest.profile === "string" && manifest.profile.trim() !== ""
    ? manifest.profile.trim()
    : null;
  try {
    profile = await resolveProfile(explicitProfile, env);
  } catch (e) {
    if (!(e instanceof ProfileError)) throw e;
    sink.error(e.code, `${mf}: ${e.message}`, { file: e.file ?? mf, key: "profile" });
  }
  const envRaw: Record<string, unknown> = {};
  if (env.PROMPT_RUNNER_PROVIDER) envRaw.provider = env.PROMPT_RUNNER_PROVIDER;
  if (env.PROMPT_RUNNER_MODEL) envRaw.model = env.PROMPT_RUNNER_MODEL;
  const envLayer = normalizeLayer(envRaw, ["provider", "model"], { file: "environment PROMPT_RUNNER_*" }, sink);
  const profileLayer = profile
    ? normalizeLayer(profile.options, MANIFEST_OPTION_KEYS, { file: `profile ${profile.name}`, packetDir: root }, sink)
    : {};
  const manifestLayer = normalizeLayer(manifest, MANIFEST_OPTION_KEYS, { file: mf, packetDir: root }, sink);
  const budgets = {
    ...(opts.overrides?.retry_attempts !== undefined ? { retry_attempts: opts.overrides.retry_attempts } : {}),
    ...(opts.overrides?.repair_attempts !== undefined ? { repair_attempts: opts.overrides.repair_attempts } : {}),
    ...(opts.overrides?.max_steers !== undefined ? { max_steers: opts.overrides.max_steers } : {}),
  };
  // The packet-level layers merged once; each prompt adds its own layer and the flags on top (merging is a left
  // fold, so this equals merging every layer per prompt).
  const base = mergeLayers([envLayer, profileLayer, manifestLayer]);
  const options = resolveExecutionOptions(mergeLayers([base, flags]), budgets);

  const { promptFiles, parsed } = await promptsParsed;
  const raws: RawPrompt[] = [];
  const byId = new Map<string, RawPrompt>();
  for (const { raw, own } of parsed) {
    sink.merge(own);
    if (!raw) continue;
    const dup = byId.get(raw.id);
    if (dup) {
      sink.error(
        "duplicate_prompt_id",
        `duplicate prompt id ${raw.id}: ${dup.relFile} and ${raw.relFile}`,
        { file: raw.relFile, key: "id", prompt_id: raw.id },
      );
      continue;
    }
    byId.set(raw.id, raw);
    raws.push(raw);
  }
  raws.sort((a, b) => compareIds(a.id, b.id));

  // Legacy `## Repository Root` paths: match configured repos; a packet without repos infers them (SDK behaviour).
  const implied = new Map<string, Repo>();
  const configured = repos.length > 0;
  for (const raw of raws) {
    if (raw.legacyRoots.length === 0) continue;
    raw.targets = raw.legacyRoots.map((p) => {
      const abs = joinPath(root, p);
      const hit = repos.find((r) =>
        r.path === abs || r.configuredPath === p || joinPath(root, r.configuredPath) === abs
      );
      if (hit) return hit.name;
      const guess = abs.slice(abs.lastIndexOf("/") + 1).replace(/[^a-zA-Z0-9_]/g, "_");
      if (!configured) {
        if (!implied.has(guess)) {
          implied.set(guess, { name: guess, path: abs, configuredPath: p, default: false });
        }
        return guess;
      }
      return repos.some((r) => r.name === guess) ? guess : p;
    });
  }
  if (!configured && implied.size > 0) {
    repos = [...implied.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
    repos[0]!.default = true;
  }
  const remap = opts.repoRemap ?? registeredRemaps.get(root) ?? null;
  if (remap) repos = repos.map((r) => ({ ...r, path: remap.repoPath(r) }));
  const defaultRepo = defaultRepoOf(repos);
  const repoNames = new Set(repos.map((r) => r.name));

  const prompts: Prompt[] = [];
  for (const raw of raws) {
    const at = { file: raw.relFile, key: "targets", prompt_id: raw.id };
    for (const t of raw.targets) {
      if (t.startsWith("@")) {
        sink.error("repo_group_in_targets", `${raw.relFile}: targets entry "${t}" is a repo group; name repos`, at);
      } else if (!repoNames.has(t)) {
        sink.error(
          "unknown_target_repo",
          `${raw.relFile}: target repo "${t}" is not defined in ${mf}; known repos: ${
            [...repoNames].join(", ") || "(none)"
          }`,
          at,
        );
      }
    }
    for (const d of raw.dependsOn) {
      if (!byId.has(d)) {
        sink.error(
          "unknown_dependency",
          `${raw.relFile}: depends_on names unknown prompt ${d}; known: ${raws.map((r) => r.id).join(", ")}`,
          { file: raw.relFile, key: "depends_on", prompt_id: raw.id },
        );
      }
    }
    const promptLayer = normalizeLayer(
      raw.frontMatter,
      [...PROMPT_EXECUTION_KEYS, "recovery", ...PROVIDER_BAGS],
      { file: raw.relFile, promptId: raw.id, packetDir: root },
      sink,
    );
    const cwdRepo = repos.find((r) => r.name === raw.targets[0]) ?? defaultRepo;
    prompts.push({
      id: raw.id,
      file: raw.file,
      relFile: raw.relFile,
      phase: raw.phase,
      sp: raw.sp,
      name: raw.name,
      targets: raw.targets,
      commit: raw.commit,
      dependsOn: raw.dependsOn,
      verify: raw.verify,
      simulate: raw.simulate,
      body: remap ? remap.rewriteText(raw.body) : raw.body,
      frontMatter: raw.frontMatter,
      options: withRewrittenPaths(resolveExecutionOptions(mergeLayers([base, promptLayer, flags]), budgets), remap),
      cwd: cwdRepo && cwdRepo.path !== "" ? cwdRepo.path : root,
      legacyCommands: raw.legacyCommands,
    });
  }
  const cycle = dependencyCycle(prompts);
  if (cycle) {
    const first = prompts.find((p) => p.id === cycle[0]);
    sink.error("dependency_cycle", `dependency cycle: ${cycle.join(" → ")}`, {
      file: first?.relFile ?? null,
      key: "depends_on",
      prompt_id: cycle[0] ?? null,
    });
  }
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
  };
  return { dir: root, packet, findings: sink.list, promptFiles };
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

/** Compare two normalised ids numerically. */
export function compareIds(a: string, b: string): number {
  return a.length !== b.length ? a.length - b.length : a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Load a packet for running or displaying. Throws {@link PacketError} (exit 3) for the first error finding,
 * {@link NotFoundError} (exit 4) when the directory is not a packet, {@link UsageError} for invalid overrides.
 */
export async function loadPacket(dir: string, opts: LoadOptions = {}): Promise<Packet> {
  const r = await inspectPacket(dir, opts);
  const errors = r.findings.filter((f) => f.severity === "error");
  const first = errors[0];
  if (first || !r.packet) {
    const f = first!;
    const hints = [`packet: ${r.dir}`];
    if (errors.length > 1) hints.push(`${errors.length - 1} more error(s); run: prompt_runner packet lint ${r.dir}`);
    throw new PacketError(f.kind, f.message, {
      ...(f.file ? { file: f.file } : {}),
      ...(f.key ? { key: f.key } : {}),
      hints,
      details: { file: f.file, key: f.key, prompt_id: f.prompt_id },
    });
  }
  return r.packet;
}
