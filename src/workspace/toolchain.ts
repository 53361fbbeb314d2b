/**
 * Tool versions a project pins (docs/reference/workspace.md §10.2): every `.tool-versions`, `mise.toml` and
 * `.mise.toml` in a clone, each pin probed read-only from the pinning file's directory — `asdf current TOOL` or
 * `mise current TOOL` when a version manager is installed, else `TOOL --version`. Nothing is installed, compiled or
 * run through a login shell.
 */
import { runHelper } from "../util/helper.ts";

/** One pinned tool and what the probe found. */
export interface ToolPin {
  repo: string;
  /** The pinning file. */
  file: string;
  /** Its 1-based line. */
  line: number;
  tool: string | null;
  /** Acceptable versions (the first is the pin; asdf allows fallbacks). */
  required: string[];
  /** The command that was run, or null when none could be. */
  probe: string | null;
  /** Its first output line. */
  resolved: string | null;
  ready: boolean;
  error: string | null;
}

const PIN_FILES = new Set([".tool-versions", "mise.toml", ".mise.toml"]);
const PRUNED = new Set([".git", "node_modules", "_build", "deps", "target", "vendor", ".prompt_runner", "cover"]);
const MAX_DEPTH = 6;
/** The executable of tools whose asdf/mise name is not their command. */
const COMMAND_OF: Record<string, string> = { nodejs: "node", golang: "go", python: "python3", ruby: "ruby" };
const PROBE_TIMEOUT_MS = 10_000;

/** Every pin file under `root` (symlinks not followed; build and dependency directories skipped). */
export async function pinFiles(root: string, depth = 0): Promise<string[]> {
  const out: string[] = [];
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(root));
  } catch {
    return out;
  }
  entries.sort((a, b) => a.name.localeCompare(b.name));
  for (const e of entries) {
    if (e.isFile && PIN_FILES.has(e.name)) out.push(`${root}/${e.name}`);
  }
  if (depth >= MAX_DEPTH) return out;
  for (const e of entries) {
    if (e.isDirectory && !e.isSymlink && !PRUNED.has(e.name)) {
      out.push(...await pinFiles(`${root}/${e.name}`, depth + 1));
    }
  }
  return out;
}

type RawPin = { line: number; tool: string | null; required: string[]; error: string | null };

/** Parse `.tool-versions` text: `tool version [fallback…]` per line, `#` comments (pure). */
export function parseToolVersions(text: string): RawPin[] {
  const pins: RawPin[] = [];
  text.split("\n").forEach((raw, i) => {
    const line = raw.replace(/#.*$/, "").trim();
    if (line === "") return;
    const [tool, ...versions] = line.split(/\s+/);
    if (versions.length === 0) pins.push({ line: i + 1, tool: null, required: [], error: `expected "tool version"` });
    else pins.push({ line: i + 1, tool: tool!, required: versions, error: null });
  });
  return pins;
}

/** Parse the `[tools]` table of a mise file: `name = "1.2"`, `name = ["1.2", "1.1"]`, `name = { version = "1.2" }`. */
export function parseMiseTools(text: string): RawPin[] {
  const pins: RawPin[] = [];
  let inTools = false;
  text.split("\n").forEach((raw, i) => {
    const line = raw.replace(/\s+#.*$/, "").trim();
    if (line === "" || line.startsWith("#")) return;
    if (line.startsWith("[")) {
      inTools = /^\[\s*tools\s*\]$/.test(line);
      return;
    }
    if (!inTools) return;
    const m = /^("?)([^"=\s]+)\1\s*=\s*(.+)$/.exec(line);
    if (!m) {
      pins.push({ line: i + 1, tool: null, required: [], error: `expected name = "version" in [tools]` });
      return;
    }
    const value = m[3]!;
    const inline = /version\s*=\s*"([^"]+)"/.exec(value);
    const versions = inline ? [inline[1]!] : [...value.matchAll(/"([^"]+)"/g)].map((x) => x[1]!);
    if (versions.length === 0) {
      pins.push({ line: i + 1, tool: m[2]!, required: [], error: `expected a quoted version, got ${value}` });
    } else pins.push({ line: i + 1, tool: m[2]!, required: versions, error: null });
  });
  return pins;
}

/** The first executable named `name` on PATH, or null. */
function onPath(name: string, path: string): string | null {
  for (const dir of path.split(":")) {
    if (!dir) continue;
    try {
      const st = Deno.statSync(`${dir}/${name}`);
      if (st.isFile && ((st.mode ?? 0o111) & 0o111) !== 0) return `${dir}/${name}`;
    } catch { /* not here */ }
  }
  return null;
}

/** Whether an output names one of the versions as a word (a leading `v` ignored). */
function names(output: string, versions: string[]): boolean {
  const words = output.split(/[\s,()]+/).map((w) => w.replace(/^v(?=\d)/, ""));
  return versions.some((v) => words.includes(v.replace(/^v(?=\d)/, "")));
}

async function probe(tool: string, required: string[], cwd: string, managers: string[], path: string) {
  const manager = managers.map((m) => onPath(m, path)).find((p) => p !== null) ?? null;
  const command = manager ?? onPath(COMMAND_OF[tool] ?? tool, path);
  if (command === null) {
    return {
      probe: null,
      resolved: null,
      ready: false,
      error: `neither ${managers.join(" nor ")} nor ${COMMAND_OF[tool] ?? tool} is on PATH`,
    };
  }
  const args = manager ? ["current", tool] : ["--version"];
  const probeText = `${command.slice(command.lastIndexOf("/") + 1)} ${args.join(" ")}`;
  const r = await runHelper(command, { args, cwd, timeoutMs: PROBE_TIMEOUT_MS }).catch((e: Error) => e);
  if (r instanceof Error) return { probe: probeText, resolved: null, ready: false, error: r.message };
  const dec = new TextDecoder();
  const output = (dec.decode(r.stdout) + "\n" + dec.decode(r.stderr)).trim();
  const resolved = output.split("\n")[0] ?? "";
  const ready = r.success && names(output, required);
  const error = ready
    ? null
    : r.success
    ? `wants ${required.join(" or ")}, found "${resolved}"`
    : `${probeText} exited ${r.code ?? "by a signal"}${r.timedOut ? " (timed out)" : ""}: ${resolved}`;
  return { probe: probeText, resolved, ready, error };
}

/** Every pin of the clones (repo name → clone path), probed. */
export async function checkToolchains(clones: { repo: string; path: string }[], path: string): Promise<ToolPin[]> {
  const out: ToolPin[] = [];
  for (const c of clones) {
    for (const file of await pinFiles(c.path)) {
      const text = await Deno.readTextFile(file).catch(() => null);
      const name = file.slice(file.lastIndexOf("/") + 1);
      const cwd = file.slice(0, file.lastIndexOf("/"));
      if (text === null) {
        out.push({
          repo: c.repo,
          file,
          line: 0,
          tool: null,
          required: [],
          probe: null,
          resolved: null,
          ready: false,
          error: "unreadable",
        });
        continue;
      }
      const isAsdf = name === ".tool-versions";
      for (const pin of isAsdf ? parseToolVersions(text) : parseMiseTools(text)) {
        const base = { repo: c.repo, file, line: pin.line, tool: pin.tool, required: pin.required };
        if (pin.error !== null || pin.tool === null) {
          out.push({ ...base, probe: null, resolved: null, ready: false, error: pin.error });
          continue;
        }
        out.push({ ...base, ...await probe(pin.tool, pin.required, cwd, isAsdf ? ["asdf", "mise"] : ["mise"], path) });
      }
    }
  }
  return out;
}
