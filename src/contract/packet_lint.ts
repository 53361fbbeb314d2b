/**
 * `packet lint` findings (docs/reference/packet.md §11, docs/reference/contract.md §11): everything the loader reports, the file-name rules,
 * and the contract rules of src/contract/lint.ts. Never runs git or commands.
 */
import { lintContract, rememberedCanonicalPath } from "./lint.ts";
import { lintSimulate } from "../packet/simulate_lint.ts";
import { inspectPacket, type LoadOptions } from "../packet/load.ts";
import { filenamePrefix } from "../packet/prompt_text.ts";
import { normalizePromptId } from "../util/ids.ts";
import { closest } from "../util/edit_distance.ts";
import type { Finding, Packet, PacketInspection, Prompt } from "../packet/mod.ts";

/** The result of linting a packet. */
export interface LintResult {
  /** Packet name (the dir's base name when the manifest does not parse). */
  name: string;
  /** Canonical packet dir. */
  root: string;
  strict: boolean;
  /** Errors first, then warnings, each in discovery order. With `strict`, warnings are reported as errors. */
  findings: Finding[];
  errors: number;
  warnings: number;
  pass: boolean;
  packet: Packet | null;
}

function hasItems(verify: Record<string, unknown[]>, legacy: string[]): boolean {
  return legacy.length > 0 || Object.values(verify).some((v) => v.length > 0);
}

/**
 * Lint a packet directory. Throws only when the directory is not a packet (NotFoundError). `inspection` is the
 * directory's inspection with the same options when the caller made it already (it is not read again).
 */
export async function lintPacket(
  dir: string,
  opts: LoadOptions & { strict?: boolean } = {},
  inspection?: PacketInspection,
): Promise<LintResult> {
  const r = inspection ?? await inspectPacket(dir, opts);
  const found: Finding[] = [...r.findings];
  const packet = r.packet;
  const seenIds = new Set<string>();
  const canonical = rememberedCanonicalPath();
  // The first prompt of each file, looked up by name (a search per file was quadratic in the packet's size).
  const byFile = new Map<string, Prompt>();
  for (const p of packet?.prompts ?? []) if (!byFile.has(p.file)) byFile.set(p.file, p);
  for (const file of r.promptFiles) {
    const base = file.slice(file.lastIndexOf("/") + 1);
    const rel = file.slice(r.dir.length + 1);
    const prompt = byFile.get(file);
    const prefix = filenamePrefix(base);
    if (prefix === null) {
      found.push({
        kind: "prompt_filename_without_prefix",
        severity: "error",
        prompt_id: prompt?.id ?? null,
        file: rel,
        key: null,
        message: `${rel}: prompt file name has no numeric prefix; name it like 03_${base}`,
      });
    } else if (prompt && normalizePromptId(prefix) !== prompt.id) {
      found.push({
        kind: "prompt_id_filename_mismatch",
        severity: "error",
        prompt_id: prompt.id,
        file: rel,
        key: "id",
        message: `${rel}: prompt id ${prompt.id} does not match the file name prefix ${prefix}`,
      });
    }
    if (!prompt || !packet || seenIds.has(prompt.id)) continue;
    seenIds.add(prompt.id);
    let contract: Finding[];
    try {
      contract = await lintContract(prompt, packet, canonical);
    } catch (e) {
      contract = [{
        kind: "contract_lint_failed",
        severity: "error",
        prompt_id: prompt.id,
        file: rel,
        key: "verify",
        message: `${rel}: the contract could not be checked: ${e instanceof Error ? e.message : String(e)}`,
      }];
    }
    found.push(...contract, ...lintSimulate(prompt));
    if (
      !hasItems(prompt.verify, prompt.legacyCommands) &&
      !contract.some((f) => f.kind === "prompt_without_verify" || f.kind === "contract_without_items")
    ) {
      found.push({
        kind: "prompt_without_verify",
        severity: "warning",
        prompt_id: prompt.id,
        file: rel,
        key: "verify",
        message: `${rel}: prompt ${prompt.id} has no verification items; it completes on a nominal session success`,
      });
    }
  }
  if (packet?.agentControl) found.push(...(await lintCompletionVerify(packet)));
  if (packet && r.promptFiles.length === 0) found.push(await withoutPrompts(packet));
  dropSuperseded(found);
  const strict = opts.strict === true;
  const findings = [
    ...found.filter((f) => f.severity === "error"),
    ...found.filter((f) => f.severity === "warning").map((f) => strict ? { ...f, severity: "error" as const } : f),
  ];
  const errors = findings.filter((f) => f.severity === "error").length;
  return {
    name: packet?.name ?? r.dir.slice(r.dir.lastIndexOf("/") + 1),
    root: r.dir,
    strict,
    findings,
    errors,
    warnings: findings.length - errors,
    pass: errors === 0,
    packet,
  };
}

/**
 * `packet_without_prompts`: nothing was found to run, naming the directory looked in (and, when it does not exist, a
 * sibling directory close to its name). A run of such a packet "completed" with nothing checked.
 */
async function withoutPrompts(packet: Packet): Promise<Finding> {
  const file = "prompt_runner_packet.md";
  const dir = packet.promptDir;
  const shown = dir.startsWith(packet.dir + "/") ? dir.slice(packet.dir.length + 1) : dir;
  const set = typeof packet.manifest.prompt_dir === "string" && packet.manifest.prompt_dir !== "";
  const where = `${shown}/${set ? ` (prompt_dir: ${packet.manifest.prompt_dir})` : ""}`;
  const info = await Deno.stat(dir).catch(() => null);
  let why: string;
  let hint: string | null = null;
  if (info === null) {
    const parent = dir.slice(0, dir.lastIndexOf("/")) || "/";
    const siblings: string[] = [];
    try {
      for await (const e of Deno.readDir(parent)) if (e.isDirectory && !e.name.startsWith(".")) siblings.push(e.name);
    } catch { /* no parent: no suggestion */ }
    hint = closest(dir.slice(dir.lastIndexOf("/") + 1), siblings.sort());
    why = "the directory does not exist";
  } else if (!info.isDirectory) why = "it is not a directory";
  else why = "it holds no *.prompt.md (or *.md) file";
  return {
    kind: "packet_without_prompts",
    severity: "error",
    prompt_id: null,
    file,
    key: "prompt_dir",
    message: `${file}: no prompts found in ${where}: ${why}; a run would check nothing` +
      (hint ? `; did you mean "${hint}"?` : ""),
  };
}

/**
 * A key reported as `stray_verify_key` (an error: a misspelt `verify:` or a clause outside it) is not also reported as
 * the loader's `unknown_front_matter_key` warning.
 */
function dropSuperseded(found: Finding[]): void {
  const stray = new Set(found.filter((f) => f.kind === "stray_verify_key").map((f) => `${f.file}\0${f.key}`));
  if (stray.size === 0) return;
  const kept = found.filter((f) => !(f.kind === "unknown_front_matter_key" && stray.has(`${f.file}\0${f.key}`)));
  found.splice(0, found.length, ...kept);
}

/**
 * `agent_control.completion_verify` (docs/agent-control.md §1) is linted like a prompt's contract, scoped to the
 * default repo; its errors name the manifest and `agent_control.completion_verify.<clause>[n]`.
 */
async function lintCompletionVerify(packet: Packet): Promise<Finding[]> {
  const first = packet.prompts[0];
  if (!first) return [];
  const verify = packet.agentControl!.completion_verify;
  const file = "prompt_runner_packet.md";
  const pseudo = {
    ...first,
    id: "completion_verify",
    relFile: file,
    verify,
    frontMatter: { verify },
    cwd: packet.defaultRepo?.path || packet.dir,
    legacyCommands: [],
  };
  return (await lintContract(pseudo, packet)).filter((f) => f.severity === "error").map((f) => ({
    ...f,
    prompt_id: null,
    key: f.key === null ? "agent_control.completion_verify" : `agent_control.completion_${f.key}`,
    message: `${file}: agent_control.completion_verify: ${f.message}`,
  }));
}
