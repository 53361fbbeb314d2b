/** Tool facts shared by the renderers: tool families, studio activities and completion summaries (docs/reference/events-and-rendering.md §7.3). */
import type { View } from "../events/mod.ts";
import { inputPath } from "./diff.ts";
import { formatSize, nonBlankLines, oneLine, plural, shortPath, splitLines, truncate } from "./text.ts";

/** A tool family: names of every lane mapped onto the studio vocabulary. */
export type ToolFamily =
  | "shell"
  | "read"
  | "write"
  | "edit"
  | "glob"
  | "grep"
  | "task"
  | "fetch"
  | "search"
  | "file_change"
  | "other";

const FAMILIES: Record<string, ToolFamily> = {
  Bash: "shell",
  bash: "shell",
  shell: "shell",
  run_command: "shell",
  run_terminal_cmd: "shell",
  Read: "read",
  read: "read",
  read_file: "read",
  view_file: "read",
  Write: "write",
  write: "write",
  create_file: "write",
  write_to_file: "write",
  Edit: "edit",
  MultiEdit: "edit",
  NotebookEdit: "edit",
  edit: "edit",
  edit_file: "edit",
  replace_file_content: "edit",
  multi_replace_file_content: "edit",
  search_replace: "edit",
  Glob: "glob",
  glob: "glob",
  find_by_name: "glob",
  Grep: "grep",
  grep: "grep",
  grep_search: "grep",
  Task: "task",
  WebFetch: "fetch",
  read_url_content: "fetch",
  WebSearch: "search",
  web_search: "search",
  search_web: "search",
  file_change: "file_change",
};

/** The family of a tool name. */
function toolFamily(name: string): ToolFamily {
  return FAMILIES[name] ?? "other";
}

/** A completed tool call with the input remembered from its start. */
export interface ToolResult {
  id: string;
  name: string;
  input: Record<string, unknown>;
  output: string;
  failed: boolean;
  exitCode: number | null;
  meta: Record<string, unknown> | null;
  /** `at` of the start event, when it was seen. */
  startedAt: string | null;
  at: string;
}

function s(v: unknown): string | null {
  return typeof v === "string" && v !== "" ? v : null;
}

/** The command of a shell tool input. */
function commandOf(input: Record<string, unknown>): string {
  const c = input.command ?? input.cmd ?? input.CommandLine;
  if (Array.isArray(c)) return c.map(String).join(" ");
  return typeof c === "string" ? c : "";
}

function pathOf(input: Record<string, unknown>): string {
  return shortPath(inputPath(input) ?? "?");
}

function patternOf(input: Record<string, unknown>): string {
  return s(input.pattern) ?? s(input.glob_pattern) ?? s(input.Pattern) ?? s(input.Query) ?? "?";
}

function hostOf(url: string): string {
  try {
    return new URL(url).host || url;
  } catch {
    return url;
  }
}

/** Studio activity text of a tool start (`Running: …`, `Reading …`, …). */
export function toolActivity(name: string, input: Record<string, unknown>): string {
  switch (toolFamily(name)) {
    case "shell":
      return `Running: ${oneLine(commandOf(input), 60)}`;
    case "read":
      return `Reading ${pathOf(input)}`;
    case "write":
      return `Writing ${pathOf(input)}`;
    case "edit":
      return `Editing ${pathOf(input)}`;
    case "glob":
      return `Searching for ${patternOf(input)}`;
    case "grep":
      return `Searching "${patternOf(input)}" in ${shortPath(inputPath(input) ?? ".")}`;
    case "task":
      return `Running task: ${oneLine(s(input.description) ?? "?", 60)}`;
    case "fetch":
      return `Fetching ${hostOf(s(input.url) ?? s(input.Url) ?? "?")}`;
    case "search":
      return `Searching: "${oneLine(s(input.query) ?? s(input.Query) ?? "?", 60)}"`;
    case "file_change": {
      const n = Array.isArray(input.changes) ? input.changes.length : 0;
      return `Changing ${plural(n, "file")}`;
    }
    default:
      return `Using ${name}`;
  }
}

function durationPart(r: ToolResult): string | null {
  if (r.startedAt === null) return null;
  const ms = Date.parse(r.at) - Date.parse(r.startedAt);
  if (!(ms > 2000)) return null;
  return `${(ms / 1000).toFixed(1)}s`;
}

function parens(parts: (string | null)[]): string {
  const kept = parts.filter((p): p is string => p !== null);
  return kept.length ? ` (${kept.join(", ")})` : "";
}

const CHANGE_VERB: Record<string, string> = { add: "Added", delete: "Deleted", update: "Edited" };

/**
 * Studio completion summaries for one tool result. One line for most tools; codex `file_change` gives one line per
 * changed path (`Added …`, `Edited …`, `Deleted …`). Output-derived parts are left out under `tool_output: none`.
 */
export function toolSummaries(r: ToolResult, toolOutput: View["tool_output"]): { path: string | null; text: string }[] {
  const facts = toolOutput !== "none";
  const family = toolFamily(r.name);
  const path = inputPath(r.input);
  switch (family) {
    case "shell": {
      const cmd = oneLine(commandOf(r.input), 60);
      const exit = r.exitCode !== null ? `exit ${r.exitCode}` : null;
      const tail = facts ? parens([exit, formatSize(r.output.length), durationPart(r)]) : "";
      return [{ path: null, text: `${r.failed ? "Bash failed" : "Ran"}: ${cmd}${tail}` }];
    }
    case "read":
      if (r.failed) return [{ path, text: `Read failed: ${pathOf(r.input)}` }];
      return [{
        path,
        text: `Read ${pathOf(r.input)}${facts ? ` (${plural(splitLines(r.output).length, "line")})` : ""}`,
      }];
    case "write": {
      if (r.failed) return [{ path, text: `Write failed: ${pathOf(r.input)}` }];
      const content = typeof r.input.content === "string" ? r.input.content : null;
      return [{
        path,
        text: `Wrote ${pathOf(r.input)}${content !== null ? ` (${plural(splitLines(content).length, "line")})` : ""}`,
      }];
    }
    case "edit":
      return [{ path, text: `${r.failed ? "Edit failed:" : "Edited"} ${pathOf(r.input)}` }];
    case "file_change": {
      const changes = Array.isArray(r.input.changes) ? r.input.changes : [];
      const out: { path: string | null; text: string }[] = [];
      for (const c of changes) {
        if (c === null || typeof c !== "object") continue;
        const rec = c as Record<string, unknown>;
        const p = s(rec.path);
        if (p === null) continue;
        const verb = r.failed ? "Edit failed:" : CHANGE_VERB[String(rec.kind)] ?? "Edited";
        out.push({ path: p, text: `${verb} ${shortPath(p)}` });
      }
      return out.length ? out : [{ path: null, text: r.failed ? "file_change failed" : "file_change complete" }];
    }
    case "glob": {
      const n = nonBlankLines(r.output).length;
      return [{ path: null, text: `Found ${facts ? plural(n, "file") : "files"} matching ${patternOf(r.input)}` }];
    }
    case "grep": {
      const n = nonBlankLines(r.output).length;
      return [{
        path: null,
        text: `Found ${facts ? plural(n, "match", "matches") : "matches"} for "${patternOf(r.input)}"`,
      }];
    }
    case "task":
      return [{
        path: null,
        text: `Task ${r.failed ? "failed" : "complete"}: ${truncate(s(r.input.description) ?? "?", 60)}`,
      }];
    default: {
      const size = facts ? ` (${formatSize(r.output.length)})` : "";
      return [{ path: null, text: `${r.name} ${r.failed ? "failed" : "complete"}${size}` }];
    }
  }
}
