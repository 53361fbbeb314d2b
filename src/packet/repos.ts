/** Target repositories of a manifest (docs/reference/packet.md §3, §6): map or list form, canonical paths, the default repo rule. */
import type { Repo } from "./types.ts";
import type { FindingSink } from "./findings.ts";
import { joinPath } from "./options.ts";
import { truthy } from "./recovery.ts";

function isMap(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** Resolve a path relative to the packet dir and canonicalise it (symlinks resolved when it exists). */
export function canonicalPath(packetDir: string, p: string): string {
  const joined = joinPath(packetDir, p);
  try {
    return Deno.realPathSync(joined);
  } catch {
    return joined;
  }
}

/**
 * Parse `repos:` (map `name → {path, default?}` or `name → "path"`, or list of `{name, path, default?}`). Repos are
 * returned sorted by name. A repo without a path keeps `path: ""` so preflight can report `missing_path`.
 */
export function parseRepos(raw: unknown, packetDir: string, file: string, sink: FindingSink): Repo[] {
  if (raw === undefined || raw === null) return [];
  const entries: { name: string; spec: unknown }[] = [];
  if (isMap(raw)) {
    for (const [name, spec] of Object.entries(raw)) entries.push({ name, spec });
  } else if (Array.isArray(raw)) {
    raw.forEach((item, i) => {
      if (isMap(item) && (typeof item.name === "string" || typeof item.name === "number")) {
        entries.push({ name: String(item.name), spec: item });
      } else {
        sink.error("invalid_option_value", `${file}: repos[${i}] needs a name; expected {name, path, default?}`, {
          file,
          key: `repos[${i}]`,
        });
      }
    });
  } else {
    sink.error("invalid_option_value", `${file}: repos must be a map of name → {path, default?} or a list`, {
      file,
      key: "repos",
    });
    return [];
  }
  const repos: Repo[] = [];
  const seen = new Set<string>();
  for (const { name, spec } of entries) {
    if (seen.has(name)) {
      sink.error("invalid_option_value", `${file}: repo "${name}" is defined twice`, { file, key: `repos.${name}` });
      continue;
    }
    seen.add(name);
    const path = typeof spec === "string" ? spec : isMap(spec) && typeof spec.path === "string" ? spec.path : "";
    const isDefault = isMap(spec) ? truthy(spec.default) : false;
    repos.push({
      name,
      path: path === "" ? "" : canonicalPath(packetDir, path),
      configuredPath: path,
      default: isDefault,
    });
  }
  return repos.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The default repo: the first (by name) with `default: true`, else the first by name; null without repos. */
export function defaultRepoOf(repos: readonly Repo[]): Repo | null {
  return repos.find((r) => r.default) ?? repos[0] ?? null;
}
