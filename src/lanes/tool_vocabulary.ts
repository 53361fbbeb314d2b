/**
 * `allowed_tools` in the generic vocabulary (docs/packets.md "Tool names"): packets name tools the way Claude Code
 * does (`Read, Edit, Write, Bash, Glob, Grep, WebFetch …`, the vocabulary prompt_runner_sdk's examples use for every
 * lane). Each lane that only observes its tools after the fact maps its own tool calls onto that vocabulary here, so
 * an allowed call raises no guardrail and a disallowed one still does. Pure data and pure functions.
 */

/**
 * What one lane tool call needs from `allowed_tools`: every group must be allowed, and a group is allowed when any of
 * its generic names is listed (`[["Edit", "MultiEdit"]]`: an edit is allowed by `Edit` or by `MultiEdit`).
 */
export type ToolNeeds = readonly (readonly string[])[];

/** A lane's tool name → what a call of it needs; a function when the call's input decides (codex `file_change`). */
export type ToolVocabulary = Readonly<
  Record<string, ToolNeeds | ((input: Record<string, unknown>) => ToolNeeds | null)>
>;

const READ: ToolNeeds = [["Read"]];
const EDIT: ToolNeeds = [["Edit", "MultiEdit"]];
const WRITE: ToolNeeds = [["Write"]];
const BASH: ToolNeeds = [["Bash"]];
const GLOB: ToolNeeds = [["Glob"]];
const GREP: ToolNeeds = [["Grep"]];
const LIST: ToolNeeds = [["LS", "Glob"]];
const FETCH: ToolNeeds = [["WebFetch"]];
const SEARCH: ToolNeeds = [["WebSearch"]];
const TODO: ToolNeeds = [["TodoWrite"]];
const TASK: ToolNeeds = [["Task"]];

/** One file change of codex `file_change` / apply_patch: a new file is a Write, a deleted file too, else an Edit. */
function changeNeeds(kind: unknown): readonly string[] {
  return kind === "add" || kind === "delete" ? ["Write"] : ["Edit", "MultiEdit"];
}

/** codex (`codex exec --json` items as src/lanes/codex_stream.ts names them). */
export const CODEX_TOOLS: ToolVocabulary = {
  shell: BASH,
  file_change: (input) => {
    const changes = Array.isArray(input["changes"]) ? input["changes"] : [];
    const kinds = changes.map((
      c,
    ) => (c !== null && typeof c === "object" ? (c as Record<string, unknown>).kind : null));
    if (!kinds.length) return [["Edit", "MultiEdit", "Write"]];
    const seen = new Map<string, readonly string[]>();
    for (const k of kinds) {
      const need = changeNeeds(k);
      seen.set(need.join(), need);
    }
    return [...seen.values()];
  },
  web_search: SEARCH,
};

/** amp: Claude-shaped events with amp's own tool names. */
export const AMP_TOOLS: ToolVocabulary = {
  Bash: BASH,
  Read: READ,
  edit_file: EDIT,
  undo_edit: EDIT,
  format_file: EDIT,
  create_file: WRITE,
  glob: GLOB,
  Grep: GREP,
  list_directory: LIST,
  read_web_page: FETCH,
  web_search: SEARCH,
  todo_read: TODO,
  todo_write: TODO,
  Task: TASK,
};

/** cursor: the `<name>ToolCall` keys of `tool_call` lines, without the suffix. */
export const CURSOR_TOOLS: ToolVocabulary = {
  shell: BASH,
  read: READ,
  edit: EDIT,
  write: WRITE,
  delete: WRITE,
  ls: LIST,
  glob: GLOB,
  grep: GREP,
  semSearch: GREP,
  todo: TODO,
  updateTodos: TODO,
  webSearch: SEARCH,
  webFetch: FETCH,
};

/** antigravity: `step_update.tool_name`. */
export const ANTIGRAVITY_TOOLS: ToolVocabulary = {
  view_file: READ,
  view_file_outline: READ,
  view_code_item: READ,
  write_to_file: WRITE,
  replace_file_content: EDIT,
  multi_replace_file_content: EDIT,
  run_command: BASH,
  command_status: BASH,
  read_terminal: BASH,
  send_command_input: BASH,
  grep_search: GREP,
  codebase_search: GREP,
  find_by_name: GLOB,
  list_dir: LIST,
  read_url_content: FETCH,
  search_web: SEARCH,
  invoke_subagent: TASK,
  browser_subagent: TASK,
};

/** An MCP call named `mcp:<server>.<tool>` (codex) needs `mcp__<server>__<tool>` or `mcp__<server>`, as claude spells them. */
function mcpNeeds(toolName: string): ToolNeeds | null {
  const m = /^mcp:([^.]+)\.(.+)$/.exec(toolName);
  return m ? [[`mcp__${m[1]}__${m[2]}`, `mcp__${m[1]}`]] : null;
}

/** What a lane's tool call needs in the generic vocabulary, or null when the vocabulary does not know the tool. */
export function genericNeeds(
  vocabulary: ToolVocabulary,
  toolName: string,
  input: Record<string, unknown>,
): ToolNeeds | null {
  const entry = Object.hasOwn(vocabulary, toolName) ? vocabulary[toolName] : undefined;
  if (entry === undefined) return mcpNeeds(toolName);
  return typeof entry === "function" ? entry(input) : entry;
}

/**
 * Whether `allowed_tools` allows a lane's tool call: an entry naming the lane's own tool (any case) allows it, and so
 * do entries covering every generic need of the call (any case). A scoped entry such as `Bash(git diff:*)` is a
 * rule only claude can enforce: on an observing lane it allows nothing, so the call is recorded.
 */
export function toolAllowed(
  vocabulary: ToolVocabulary,
  toolName: string,
  input: Record<string, unknown>,
  allowed: readonly string[],
): boolean {
  const listed = new Set(allowed.map((t) => t.trim().toLowerCase()));
  if (listed.has(toolName.toLowerCase())) return true;
  const needs = genericNeeds(vocabulary, toolName, input);
  if (needs === null || needs.length === 0) return false;
  return needs.every((group) => group.some((name) => listed.has(name.toLowerCase())));
}
