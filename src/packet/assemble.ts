/**
 * The pure half of loading a packet (docs/reference/packet.md): from parsed prompt files, the repos and the option layers to the
 * packet's prompts, each finding reported in discovery order. {@link ./load.ts} performs the reads.
 */
import type { FindingSink } from "./findings.ts";
import {
  joinPath,
  mergeLayers,
  normalizeLayer,
  type OptionLayer,
  PROMPT_EXECUTION_KEYS,
  PROVIDER_BAGS,
  resolveExecutionOptions,
} from "./options.ts";
import type { RawPrompt } from "./prompt_file.ts";
import { dependencyCycle } from "./dependencies.ts";
import { OptionsInterner } from "./options_intern.ts";
import type { ExecutionOptions, Prompt, Repo } from "./types.ts";

/** Compare two normalised ids numerically. */
function compareIds(a: string, b: string): number {
  return a.length !== b.length ? a.length - b.length : a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Merge each prompt file's own findings into `sink` in file order and keep the first prompt of each id (a later
 * duplicate is an error finding); the prompts come back sorted by id.
 */
export function uniquePrompts(
  parsed: { raw: RawPrompt | null; own: FindingSink }[],
  sink: FindingSink,
): { raws: RawPrompt[]; byId: Map<string, RawPrompt> } {
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
  return { raws, byId };
}

/**
 * Legacy `## Repository Root` paths: each prompt's roots become target names (a configured repo, or a name guessed
 * from the path); a packet without repos infers them from the roots (SDK behaviour). Sets `targets` of each prompt
 * with roots and returns the packet's repos.
 */
export function applyLegacyRoots(raws: RawPrompt[], repos: Repo[], root: string): Repo[] {
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
  if (configured || implied.size === 0) return repos;
  const inferred = [...implied.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
  inferred[0]!.default = true;
  return inferred;
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
function withRewrittenPaths(o: ExecutionOptions, rewrite: ((text: string) => string) | null): ExecutionOptions {
  if (!rewrite) return o;
  const r = (t: string | null) => (t === null ? null : rewrite(t));
  return {
    ...o,
    system_prompt: r(o.system_prompt),
    append_system_prompt: r(o.append_system_prompt),
    provider_opts: rewriteDeep(o.provider_opts, rewrite) as ExecutionOptions["provider_opts"],
  };
}

/** What {@link buildPrompts} combines. */
export interface PromptContext {
  root: string;
  /** The manifest file name (for messages). */
  manifestFile: string;
  repos: Repo[];
  defaultRepo: Repo | null;
  /** The packet-level layers merged (environment, profile, manifest). */
  base: OptionLayer;
  /** The command-line layer, on top of each prompt's own. */
  flags: OptionLayer;
  budgets: Parameters<typeof resolveExecutionOptions>[1];
  /** A workspace's rewrite of author-machine paths, or null. */
  rewrite: ((text: string) => string) | null;
}

/** Check one prompt's targets (a repo group, an unknown repo) and dependencies (an unknown prompt). */
function checkReferences(
  raw: RawPrompt,
  ctx: PromptContext,
  repoNames: Set<string>,
  byId: Map<string, RawPrompt>,
  raws: RawPrompt[],
  sink: FindingSink,
): void {
  const at = { file: raw.relFile, key: "targets", prompt_id: raw.id };
  for (const t of raw.targets) {
    if (t.startsWith("@")) {
      sink.error("repo_group_in_targets", `${raw.relFile}: targets entry "${t}" is a repo group; name repos`, at);
    } else if (!repoNames.has(t)) {
      sink.error(
        "unknown_target_repo",
        `${raw.relFile}: target repo "${t}" is not defined in ${ctx.manifestFile}; known repos: ${
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
}

/** The packet's prompts, their references checked and options resolved; then a dependency cycle, if any. */
export function buildPrompts(
  raws: RawPrompt[],
  byId: Map<string, RawPrompt>,
  ctx: PromptContext,
  sink: FindingSink,
): Prompt[] {
  const repoNames = new Set(ctx.repos.map((r) => r.name));
  const prompts: Prompt[] = [];
  // Identical resolved options are one frozen object shared by the prompts (a 10,000-prompt packet held 10,000 copies).
  const shared = new OptionsInterner<ExecutionOptions>();
  for (const raw of raws) {
    checkReferences(raw, ctx, repoNames, byId, raws, sink);
    const promptLayer = normalizeLayer(
      raw.frontMatter,
      [...PROMPT_EXECUTION_KEYS, "recovery", ...PROVIDER_BAGS],
      { file: raw.relFile, promptId: raw.id, packetDir: ctx.root },
      sink,
    );
    const cwdRepo = ctx.repos.find((r) => r.name === raw.targets[0]) ?? ctx.defaultRepo;
    const options = resolveExecutionOptions(mergeLayers([ctx.base, promptLayer, ctx.flags]), ctx.budgets);
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
      body: ctx.rewrite ? ctx.rewrite(raw.body) : raw.body,
      frontMatter: raw.frontMatter,
      options: shared.intern(withRewrittenPaths(options, ctx.rewrite)),
      cwd: cwdRepo && cwdRepo.path !== "" ? cwdRepo.path : ctx.root,
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
  return prompts;
}
