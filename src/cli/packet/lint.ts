/** `prompt_runner packet lint [TARGET] [--strict] [--json]` (docs/reference/cli.md §3.8): static checks, exit 3 on errors. */
import type { CommandSpec } from "../frame.ts";
import { resolveTarget, TARGET_FLAGS } from "../target.ts";
import { lintPacket, type LintResult } from "../../contract/packet_lint.ts";
import { Exit } from "../../errors.ts";
import { escapeControl as esc } from "../../util/escape.ts";

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/**
 * The human report of docs/reference/cli.md §3.8. File names and messages (one line each) are shown with their control
 * characters escaped, a newline too.
 */
function renderLint(r: LintResult, label: string): string {
  const lines = [`Packet lint: ${esc(label)} (${esc(r.root)})`];
  for (const f of r.findings) {
    const label = f.severity === "error" ? "ERROR    " : "WARNING  ";
    lines.push(`  ${label}${f.file === null ? "(packet)" : esc(f.file)}  ${esc(f.kind)}`);
    lines.push(`           ${esc(stripFilePrefix(f.message, f.file))}`);
  }
  lines.push(`${plural(r.errors, "error")}, ${plural(r.warnings, "warning")}`);
  return lines.join("\n") + "\n";
}

/** Messages start with `<file>: ` for error output elsewhere; under a file heading that prefix is redundant. */
function stripFilePrefix(message: string, file: string | null): string {
  return file && message.startsWith(`${file}: `) ? message.slice(file.length + 2) : message;
}

/** The `--json` document of docs/reference/cli.md §3.8. */
function lintJson(r: LintResult): Record<string, unknown> {
  return {
    packet: r.name,
    root: r.root,
    strict: r.strict,
    pass: r.pass,
    errors: r.errors,
    warnings: r.warnings,
    findings: r.findings.map((f) => ({
      kind: f.kind,
      severity: f.severity,
      prompt_id: f.prompt_id,
      file: f.file,
      key: f.key,
      message: f.message,
    })),
  };
}

/** The `packet lint` command. */
export const spec: CommandSpec = {
  usage: "[TARGET] [--strict] [--json]",
  description: "Static checks of the manifest, prompt files and contracts. Never runs git or commands. " +
    "Exit 0 when there are no errors, 3 otherwise; --strict turns warnings into errors.",
  flags: {
    strict: { type: "boolean", description: "treat warnings as errors" },
    ...TARGET_FLAGS,
  },
  async run(ctx) {
    const target = await resolveTarget(ctx.positionals, ctx.flags, { idsFollow: false });
    const result = await lintPacket(target.packetDir, { strict: ctx.flags.strict === true });
    ctx.stdout.write(ctx.json ? JSON.stringify(lintJson(result)) + "\n" : renderLint(result, target.label));
    return result.pass ? Exit.ok : Exit.packet;
  },
};
