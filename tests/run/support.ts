/** Packet builders and state readers for runner tests (black-box CLI tests and scenario checks). */
import { createScratchRepo } from "../../examples/setup.ts";
import { mergeStatePending } from "../../src/store/state_pending.ts";

/** A simulated packet manifest with repo `app` (inside the packet) and zero retry delays. */
export function manifest(extra = ""): string {
  return `---
name: scenario
provider: simulated
model: simulated-demo
permission_mode: bypass
repos:
  app:
    path: app
    default: true
recovery:
  retry:
    base_delay_ms: 0
    max_delay_ms: 0
    jitter: false
${extra}---
# Scenario packet
`;
}

/** A prompt file from front matter lines (YAML) and a title. */
export function promptFile(id: string, yaml: string, title = `Prompt ${id}`): string {
  return `---\nid: ${id}\ncommit: "feat: prompt ${id}"\n${yaml.trim()}\n---\n# ${title}\n\nDo the work of prompt ${id}.\n`;
}

/** Create `<root>/pkt` with the manifest, prompts (file name → content) and the scratch repo `app`. */
export async function makePacket(
  root: string,
  prompts: Record<string, string>,
  extraManifest = "",
): Promise<string> {
  const dir = `${root}/pkt`;
  await Deno.mkdir(`${dir}/prompts`, { recursive: true });
  await Deno.writeTextFile(`${dir}/prompt_runner_packet.md`, manifest(extraManifest));
  for (const [name, text] of Object.entries(prompts)) await Deno.writeTextFile(`${dir}/prompts/${name}`, text);
  await createScratchRepo(`${dir}/app`);
  return dir;
}

/** Minimal view of a prompt entry in state.json. */
export interface PromptEntry {
  status: string;
  attempts: { run_id: string; attempt: number; mode: string; status: string; streams: { kind: string }[] }[];
  result?: Record<string, unknown>;
  blocked_by?: string[];
}

/**
 * Read state.json's prompts as every reader does (docs/reference/runner.md §10.2): with the entries still pending in
 * `state.pending.jsonl` merged over it (a live runner rewrites state.json at most every 2 s).
 */
export async function readPrompts(packetDir: string): Promise<Record<string, PromptEntry>> {
  const store = `${packetDir}/.prompt_runner`;
  const doc = JSON.parse(await Deno.readTextFile(`${store}/state.json`).catch(() => "{}"));
  const pending = await Deno.readTextFile(`${store}/state.pending.jsonl`).catch(() => "");
  return mergeStatePending(doc, pending).prompts as Record<string, PromptEntry>;
}

/** `mode:status` history of one prompt. */
export function history(entry: PromptEntry | undefined): string[] {
  return (entry?.attempts ?? []).map((a) => `${a.mode}:${a.status}`);
}

/** Number of commits on HEAD in a repo. */
export async function commitCount(repo: string): Promise<number> {
  const out = await new Deno.Command("git", { args: ["rev-list", "--count", "HEAD"], cwd: repo, stdout: "piped" })
    .output();
  return Number(new TextDecoder().decode(out.stdout).trim());
}

/** Read the snapshot, or null. */
export async function readSnapshot(packetDir: string): Promise<Record<string, unknown> | null> {
  try {
    return JSON.parse(await Deno.readTextFile(`${packetDir}/.prompt_runner/control/snapshot.json`));
  } catch {
    return null;
  }
}
