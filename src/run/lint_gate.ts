/**
 * The run-time lint gate (docs/lint.md): `run`, `start` and `repair` refuse (exit 3, naming file and field) every
 * lint finding of the selected prompts that would make a check silently not happen. With `--strict` every lint
 * finding refuses, warnings included — the same verdict as `packet lint --strict`.
 */
import { findingCode, PacketError, PromptRunnerError } from "../errors.ts";
import { lintPacket } from "../contract/packet_lint.ts";
import { loadPacket } from "../packet/load.ts";
import { type Selection, selectPrompts } from "../packet/select.ts";
import type { Finding, OptionOverrides, PacketInspection, Prompt } from "../packet/mod.ts";

/**
 * Lint findings that refuse a run even without `--strict`: each would make a verdict check less than it says.
 * Everything else the sdk tolerated (unknown manifest/front-matter keys, file naming, legacy sections …) runs.
 */
export const RUN_REFUSALS: ReadonlySet<string> = new Set([
  "unknown_verify_clause",
  "invalid_verify_entry",
  "unknown_verify_repo",
  "source_absent_without_patterns",
  "invalid_regex",
  "invalid_glob",
  "contract_without_items",
  "contract_lint_failed",
  "unknown_simulate_key",
  "stray_verify_key",
  "packet_without_prompts",
]);

/** The findings that refuse a run of `ids` (packet-level findings always count). Pure. */
export function refusals(findings: Finding[], ids: ReadonlySet<string>, strict: boolean): Finding[] {
  return findings.filter((f) =>
    (f.prompt_id === null || ids.has(f.prompt_id)) &&
    (strict ? f.severity === "error" : RUN_REFUSALS.has(f.kind))
  );
}

/** `<file>: <field>: <message>` (the message's own `<file>: ` prefix dropped; a field it starts with not repeated). */
export function refusalLine(f: Finding): string {
  const file = f.file ?? "packet";
  const msg = f.message.startsWith(`${file}: `) ? f.message.slice(file.length + 2) : f.message;
  return f.key && !msg.startsWith(f.key) ? `${file}: ${f.key}: ${msg}` : `${file}: ${msg}`;
}

/**
 * The {@link PacketError} (exit 3) `run` throws for these lint findings of the prompts `ids`, or null when it would run:
 * the first refusal is the error, the others its hint lines. `inspection`: the packet's inspection with the same
 * overrides, when the caller has it (the packet is then not read again). `plan` shows it without throwing.
 */
export async function lintRefusal(
  packetDir: string,
  opts: { overrides: OptionOverrides; ids: Iterable<string>; strict: boolean; inspection?: PacketInspection },
): Promise<PacketError | null> {
  const r = await lintPacket(packetDir, { overrides: opts.overrides, strict: opts.strict }, opts.inspection);
  const found = refusals(r.findings, new Set(opts.ids), opts.strict);
  const first = found[0];
  if (!first) return null;
  const hints = found.slice(1, 11).map(refusalLine);
  if (found.length > 11) hints.push(`… ${found.length - 11} more`);
  hints.push(
    `nothing was run: ${
      opts.strict ? "--strict refuses every lint finding" : "these would make a check silently not happen"
    }; see: prompt_runner packet lint ${r.root}`,
  );
  return new PacketError(findingCode(first.kind), `refusing to run: ${refusalLine(first)}`, {
    ...(first.file ? { file: first.file } : {}),
    ...(first.key ? { key: first.key } : {}),
    hints,
    details: { file: first.file, key: first.key, prompt_id: first.prompt_id, refusals: found },
  });
}

/** Throw {@link lintRefusal}'s error, when there is one. */
export async function lintGate(
  packetDir: string,
  opts: { overrides: OptionOverrides; ids: Iterable<string>; strict: boolean; inspection?: PacketInspection },
): Promise<void> {
  const refused = await lintRefusal(packetDir, opts);
  if (refused) throw refused;
}

/**
 * The gate for `start`: load, select as `run` would, then {@link lintGate} and the refusal of a contract its own
 * session edited (src/run/contract_guard.ts; not with `acceptEdits`). Nothing is spawned on refusal.
 */
export async function lintGateForSelection(
  packetDir: string,
  storeRoot: string,
  opts: { overrides: OptionOverrides; selection: Selection; strict: boolean; acceptEdits?: boolean },
): Promise<void> {
  const packet = await loadPacket(packetDir, { overrides: opts.overrides });
  let prompts: Prompt[];
  try {
    // Loaded here only: `plan` imports this module for its gate and reads progress.log only under --remaining.
    const { readProgress } = await import("../store/progress.ts");
    prompts = selectPrompts(packet, opts.selection, await readProgress(storeRoot));
  } catch (e) {
    // A selection error is the runner's to report (through `start`'s own path); the gate has nothing to add.
    if (e instanceof PromptRunnerError) return;
    throw e;
  }
  await lintGate(packetDir, { overrides: opts.overrides, ids: prompts.map((p) => p.id), strict: opts.strict });
  if (opts.acceptEdits !== true) {
    const { editRefusal, editStanding } = await import("./contract_guard.ts");
    const refused = editRefusal(await editStanding(storeRoot, prompts));
    if (refused) throw refused;
  }
}
