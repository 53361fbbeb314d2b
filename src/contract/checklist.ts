/** Checklist files (docs/reference/packet.md §8): a human-readable view of each prompt's packet contract. */
import type { Packet, Prompt } from "../packet/mod.ts";
import { isLegacyCommand, isRecord, pick } from "./entries.ts";
import { packetContract } from "./enforced.ts";
import { parsePathString } from "./paths.ts";
import { repoIndex } from "./context.ts";

/** Clauses in checklist order (alphabetical). */
const CHECKLIST_ORDER = [
  "changed_paths_only",
  "commands",
  "contains",
  "doc",
  "files_absent",
  "files_exist",
  "glob",
  "json",
  "matches",
  "repos_clean",
  "source_absent",
  "yaml",
] as const;

/** The checklist path of a prompt file: `01_x.prompt.md` → `01_x.prompt.checklist.md`. */
export function checklistPath(promptFile: string): string {
  return promptFile.replace(/\.md$/, "") + ".checklist.md";
}

function pathLabel(entry: unknown, repos: Record<string, string>): string {
  if (typeof entry === "string") {
    const ref = parsePathString(entry, repos);
    return ref.repo !== null ? `${ref.repo}:${ref.path}` : ref.path;
  }
  if (isRecord(entry)) {
    const path = String(entry.path ?? "");
    return typeof entry.repo === "string" ? `${entry.repo}:${path}` : path;
  }
  return String(entry);
}

/** The checklist label of one entry (docs/reference/packet.md §8 label table). */
function checklistLabel(
  clause: string,
  entry: unknown,
  repos: Record<string, string>,
  defaultRepo: string | null,
): string {
  const p = () => pathLabel(entry, repos);
  const obj = isRecord(entry) ? entry : {};
  switch (clause) {
    case "files_exist":
      return `file exists: ${p()}`;
    case "files_absent":
      return `file absent: ${p()}`;
    case "contains": {
      const text = isRecord(entry) ? String(pick(obj, "text", "contains") ?? "") : "";
      return `contains: ${p()} — "${text.slice(0, 60)}"`;
    }
    case "matches":
      return `matches: ${p()} — /${String(pick(obj, "pattern", "matches") ?? "")}/`;
    case "doc": {
      const n = typeof obj.min_lines === "number" ? obj.min_lines : 1;
      return `doc: ${p()} (non-blank; ${n} lines advisory)`;
    }
    case "yaml":
      return `YAML parses: ${p()}`;
    case "json":
      return `JSON contract: ${p()}`;
    case "glob":
      return `glob contract: ${p()}`;
    case "source_absent":
      return `forbidden source absent: ${p()}`;
    case "repos_clean": {
      const repo = typeof entry === "string"
        ? entry
        : typeof obj.repo === "string"
        ? obj.repo
        : defaultRepo ?? "packet";
      return obj.pushed === true ? `repo committed and pushed: ${repo}` : `repo committed: ${repo}`;
    }
    case "commands": {
      if (isLegacyCommand(entry)) {
        return `command: ${typeof entry === "string" ? entry : String(pick(obj, "run", "command"))}`;
      }
      const args = pick(obj, "args", "argv");
      const argv = [String(pick(obj, "exec", "program")), ...(Array.isArray(args) ? args.map(String) : [])];
      return `command: ${argv.join(" ")}`;
    }
    case "changed_paths_only":
      return `changed path allowed: ${p()}`;
    default:
      return `${clause}: ${JSON.stringify(entry)}`;
  }
}

/** The checklist items of a prompt, in checklist order. */
export function checklistItems(prompt: Prompt, packet: Packet): string[] {
  const contract = packetContract(prompt);
  const repos = repoIndex(packet);
  const defaultRepo = prompt.targets[0] ?? packet.defaultRepo?.name ?? null;
  const out: string[] = [];
  for (const clause of CHECKLIST_ORDER) {
    for (const entry of contract[clause] ?? []) out.push(checklistLabel(clause, entry, repos, defaultRepo));
  }
  return out;
}

/** The full checklist document of a prompt. */
export function checklistText(prompt: Prompt, packet: Packet): string {
  const items = checklistItems(prompt, packet);
  const lines = [
    `# Checklist ${prompt.id}: ${prompt.name}`,
    "",
    "Generated from the prompt verification contract.",
    "",
    "## Verification Items",
    "",
    ...(items.length
      ? items.map((i) => `- [ ] ${i}`)
      : ["No verification items yet; add a `verify:` contract to the prompt."]),
  ];
  return lines.join("\n") + "\n";
}
