/** `run --dry-run` (docs/reference/runner.md §11): the plan details per selected prompt; no lease, no state, no control dir. */
import { enforcedContract } from "../contract/enforced.ts";
import type { Packet, Prompt } from "../packet/mod.ts";
import type { CommitPolicy, RunIo } from "./context.ts";
import { escapeControl } from "../util/escape.ts";

/** The dry-run description of one prompt (also the `--json` element). */
async function dryRunEntry(packet: Packet, prompt: Prompt, storeRoot: string, commit: CommitPolicy) {
  const o = prompt.options;
  const text = await Deno.readTextFile(prompt.file).catch(() => "");
  const { contract, amendments } = await enforcedContract(prompt, storeRoot);
  const byName = new Map(packet.repos.map((r) => [r.name, r.path]));
  const targets = (prompt.targets.length ? prompt.targets : packet.defaultRepo ? [packet.defaultRepo.name] : [])
    .map((name) => ({ name, path: byName.get(name) ?? null }));
  return {
    id: prompt.id,
    name: prompt.name,
    file: {
      path: prompt.relFile,
      lines: text === "" ? 0 : text.replace(/\n$/, "").split("\n").length,
      bytes: new TextEncoder().encode(text).length,
    },
    execution: {
      provider: o.provider,
      model: o.model,
      reasoning_effort: o.reasoning_effort,
      cwd: prompt.cwd,
      allowed_tools: o.allowed_tools,
      permission_mode: o.permission_mode,
      targets,
    },
    recovery: o.recovery,
    contract,
    amendments,
    commit: commit === "none"
      ? { plan: "skipped (--no-commit)", message: null }
      : { plan: commit, message: prompt.commit.split("\n").slice(0, 10).join("\n") },
  };
}

/** Print the dry run (human or `--json` array). */
export async function printDryRun(
  packet: Packet,
  prompts: Prompt[],
  storeRoot: string,
  commit: CommitPolicy,
  io: RunIo,
): Promise<void> {
  const entries = [];
  for (const p of prompts) entries.push(await dryRunEntry(packet, p, storeRoot, commit));
  if (io.json) {
    io.stdout.write(JSON.stringify(entries) + "\n");
    return;
  }
  const out: string[] = [];
  for (const e of entries) {
    const x = e.execution;
    const r = e.recovery;
    out.push(
      `[dry run] Prompt ${e.id}: ${e.name}`,
      `  file        ${e.file.path} (${e.file.lines} lines, ${e.file.bytes} bytes)`,
      `  provider    ${x.provider} / ${x.model}${x.reasoning_effort ? ` (effort ${x.reasoning_effort})` : ""}`,
      `  cwd         ${x.cwd}`,
      `  tools       ${x.allowed_tools?.join(", ") ?? "(lane default)"}`,
      `  permission  ${x.permission_mode ?? "(lane default)"}`,
      `  repos       ${x.targets.map((t) => `${t.name} (${t.path ?? "?"})`).join(", ") || "(packet dir)"}`,
      `  recovery    retries ${r.retry.max_attempts} (per class: ${
        Object.entries(r.retry.class_attempts).map(([k, v]) => `${k}=${v}`).join(", ")
      }), repairs ${
        r.repair.enabled ? r.repair.max_attempts : "off"
      }, resumes ${r.resume_attempts}, steers ${r.max_steers}`,
      "  contract",
    );
    const clauses = Object.entries(e.contract);
    if (clauses.length === 0) out.push("    (no items)");
    for (const [clause, entries] of clauses) {
      for (const entry of entries) {
        out.push(`    ${clause}: ${typeof entry === "string" ? entry : JSON.stringify(entry)}`);
      }
    }
    for (const a of e.amendments) out.push(`    (amended ${a.phase}: ${a.operation} ${a.clause} — ${a.reason})`);
    if (e.commit.message === null) out.push(`  commit      ${e.commit.plan}`);
    else {
      out.push(`  commit      ${e.commit.plan}`);
      for (const l of e.commit.message.split("\n")) out.push(`    ${l}`);
    }
    out.push("");
  }
  // Every line is one line of packet text: control characters (a newline in a name too) shown escaped.
  io.stdout.write(out.map(escapeControl).join("\n") + (out.length ? "\n" : ""));
}
