/**
 * `prompt_runner verify [TARGET] [IDS…] [--json]` (docs/reference/cli.md §3.3): evaluate the enforced contracts of the selected
 * prompts now, without a provider and without touching progress.log; every verification is appended to the
 * history with source `manual`.
 */
import type { CommandContext, CommandSpec } from "./frame.ts";
import { resolveTarget, TARGET_FLAGS } from "./target.ts";
import { loadPacket } from "../packet/load.ts";
import { ALL, selectPrompts } from "../packet/select.ts";
import type { Packet, Prompt } from "../packet/mod.ts";
import { enforcedContract } from "../contract/enforced.ts";
import { verifyContextFor } from "../contract/context.ts";
import { verifyContract } from "../contract/verify.ts";
import { appendVerification } from "../contract/history.ts";
import { checkNoteLines, checkNotes, TAIL_LINES, VERBOSE_TAIL_LINES } from "../contract/check_notes.ts";
import { painter } from "../render/ansi.ts";
import { GitCache } from "../contract/git.ts";
import type { VerifyReport } from "../contract/mod.ts";
import { lintGate } from "../run/lint_gate.ts";

/** The `--json` document of `verify`. */
export interface VerifyOutput {
  schema: "prompt_runner.verify/v1";
  pass: boolean;
  prompts: number;
  failed: string[];
  faulted: string[];
  reports: VerifyReport[];
}

/**
 * Verify prompts one after another, appending each report to the history. Nothing but command items changes the
 * work trees in between, so the prompts share one git memo (command items clear it).
 */
async function verifyPrompts(packet: Packet, prompts: Prompt[], storeRoot: string): Promise<VerifyReport[]> {
  const reports: VerifyReport[] = [];
  const gitCache = new GitCache();
  for (const prompt of prompts) {
    const { contract, amendments } = await enforcedContract(prompt, storeRoot);
    const ctx = {
      ...verifyContextFor(packet, prompt, storeRoot, { runId: null, source: "manual", attempt: null }),
      gitCache,
    };
    const report = await verifyContract(contract, ctx, amendments);
    await appendVerification(storeRoot, report);
    reports.push(report);
  }
  return reports;
}

/** The summary document of a set of reports. */
function verifyOutput(reports: VerifyReport[]): VerifyOutput {
  const failed = reports.filter((r) => r.status === "fail").map((r) => r.prompt_id);
  const faulted = reports.filter((r) => r.status === "fault").map((r) => r.prompt_id);
  return {
    schema: "prompt_runner.verify/v1",
    pass: failed.length === 0 && faulted.length === 0,
    prompts: reports.length,
    failed,
    faulted,
    reports,
  };
}

/**
 * Human output: per failing or faulted check a `✗ <prompt> <clause> <path|command>: <verdict>` line and the last lines
 * of its output (a command's; {@link TAIL_LINES}, or {@link VERBOSE_TAIL_LINES} with `--verbose`), then the count line.
 */
function renderVerify(out: VerifyOutput, color: boolean, tailLines: number): string {
  const paint = painter(color);
  const lines: string[] = [];
  for (const r of out.reports) {
    for (const note of checkNotes(r, tailLines)) {
      const [head, ...tail] = checkNoteLines({ ...note, clause: `${r.prompt_id} ${note.clause}` });
      lines.push(head!.replace("✗", paint("red", "✗")), ...tail.map((l) => paint("dim", l)));
    }
  }
  lines.push(
    `Verified ${out.prompts} ${
      out.prompts === 1 ? "prompt" : "prompts"
    }: ${out.failed.length} failed, ${out.faulted.length} faulted`,
  );
  return lines.join("\n") + "\n";
}

/** The `verify` command. */
export const spec: CommandSpec = {
  usage: "[TARGET] [IDS…] [flags]",
  description: "Evaluate the enforced contracts (amendments folded) of the selected prompts (all by default) now, " +
    "without a provider and without touching progress.log. Exit 0 when all pass, 1 on any failure or fault.",
  flags: { ...TARGET_FLAGS },
  async run(ctx: CommandContext): Promise<number> {
    const target = await resolveTarget(ctx.positionals, ctx.flags, { idsFollow: true });
    const packet = await loadPacket(target.packetDir);
    const prompts = target.rest.length > 0
      ? selectPrompts(packet, { ...ALL, ids: target.rest }, new Map())
      : packet.prompts;
    // The same gate as `run`: a misspelt clause or malformed entry would be left out of the verdict, so a report
    // that "passes" would check less than the contract says (docs/lint.md).
    await lintGate(target.packetDir, { overrides: {}, ids: prompts.map((p) => p.id), strict: false });
    const out = verifyOutput(await verifyPrompts(packet, prompts, target.storeRoot));
    ctx.stdout.write(
      ctx.json
        ? JSON.stringify(out) + "\n"
        : renderVerify(out, ctx.color, ctx.verbose ? VERBOSE_TAIL_LINES : TAIL_LINES),
    );
    return out.pass ? 0 : 1;
  },
};
