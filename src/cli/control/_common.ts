/** Helpers shared by the `control …` commands: target flags, run addressing, colour, label rows. */
import type { CommandContext, FlagSpec } from "../frame.ts";
import { resolveTarget } from "../target.ts";
import type { RunRef } from "../../control/mod.ts";
import { UsageError } from "../../errors.ts";
import { isRunId } from "../../util/time.ts";
import { type Paint, painter } from "../../render/ansi.ts";

/** `--workspace` / `--packet` (docs/reference/cli.md §2), accepted by every control command. */
export const TARGET_FLAGS: Record<string, FlagSpec> = {
  workspace: { type: "string", value: "M", description: "a workspace manifest or prepared workspace id" },
  packet: { type: "string", value: "DIR", description: "the packet directory" },
};

/** `--author`. */
export const AUTHOR_FLAG: Record<string, FlagSpec> = {
  author: {
    type: "string",
    value: "A",
    description: "issuer recorded in the audit log (default: $USER, $USERNAME, else the OS user)",
  },
};

/** The resolved target of a control command plus the positionals after it. */
export interface ControlTarget {
  storeRoot: string;
  packetDir: string;
  label: string;
  rest: string[];
}

/** Resolve TARGET (docs/reference/cli.md §2). */
export async function controlTarget(ctx: CommandContext, opts: { idsFollow?: boolean } = {}): Promise<ControlTarget> {
  // Contract commands need a packet: a workspace without a default binding needs --packet (docs/reference/workspace.md §7).
  const requirePacketBinding = ["contract", "amend", "relax"].includes(ctx.path[1] ?? "");
  const t = await resolveTarget(ctx.positionals, ctx.flags, { ...opts, requirePacketBinding });
  return { storeRoot: t.storeRoot, packetDir: t.packetDir, label: t.label, rest: t.rest };
}

/** The run a command addresses: `--run RUN_ID` when given, else the current run of the store root. */
export async function runRef(target: ControlTarget, runFlag?: string): Promise<RunRef> {
  if (runFlag) {
    // A run id names files in the store (an earlier run's event archive): never a path (`--run ../../x`).
    if (!isRunId(runFlag)) {
      throw new UsageError("invalid_value", `--run takes a run id such as 20261130T120501Z-7QK2MD, got "${runFlag}"`);
    }
    return { storeRoot: target.storeRoot, runId: runFlag };
  }
  // Loaded here: `control contract`, which addresses no run, does not evaluate the control surface.
  const { currentRun } = await import("../../control/mod.ts");
  return await currentRun({ kind: "state", stateRoot: target.storeRoot });
}

/** A painter honouring the context's colour switch. */
export function paintFor(ctx: CommandContext): Paint {
  return painter(ctx.color);
}

/** A string flag's value, or undefined. */
export function str(ctx: CommandContext, name: string): string | undefined {
  const v = ctx.flags[name];
  return typeof v === "string" ? v : undefined;
}

/** A repeatable string flag's values. */
export function list(ctx: CommandContext, name: string): string[] {
  const v = ctx.flags[name];
  if (Array.isArray(v)) return v;
  return typeof v === "string" ? [v] : [];
}

/** Print one JSON document. */
export function printJson(ctx: CommandContext, value: unknown): void {
  ctx.stdout.write(JSON.stringify(value) + "\n");
}

/** `Date` → local wall-clock `HH:MM:SS.mmm`. */
export function localClock(iso: unknown): string {
  const d = typeof iso === "string" ? new Date(iso) : null;
  if (!d || Number.isNaN(d.getTime())) return "--:--:--.---";
  const p = (n: number, w = 2) => String(n).padStart(w, "0");
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
}

/**
 * Split a command line into words with shell-style quoting (single quotes, double quotes with `\` escapes,
 * backslash escapes), without any expansion. Throws `SyntaxError` for an unterminated quote.
 */
export function shellWords(text: string): string[] {
  const words: string[] = [];
  let cur = "";
  let inWord = false;
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) throw new SyntaxError("unterminated single quote");
      cur += text.slice(i + 1, end);
      inWord = true;
      i = end + 1;
    } else if (c === '"') {
      i++;
      for (;;) {
        if (i >= text.length) throw new SyntaxError("unterminated double quote");
        const d = text[i]!;
        if (d === '"') break;
        if (d === "\\" && i + 1 < text.length && '"\\$`\n'.includes(text[i + 1]!)) {
          cur += text[i + 1];
          i += 2;
          continue;
        }
        cur += d;
        i++;
      }
      inWord = true;
      i++;
    } else if (c === "\\" && i + 1 < text.length) {
      cur += text[i + 1];
      inWord = true;
      i += 2;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(cur);
      cur = "";
      inWord = false;
      i++;
    } else {
      cur += c;
      inWord = true;
      i++;
    }
  }
  if (inWord) words.push(cur);
  return words;
}

/** Print the outcome `--wait` saw (`applied` green, `rejected — <reason>` red); the exit code follows it. */
export function printWaited(ctx: CommandContext, waited: { outcome: string; reason: string | null } | null): number {
  if (!waited) return 0;
  const paint = paintFor(ctx);
  ctx.stdout.write(
    waited.outcome === "rejected"
      ? paint("red", `rejected — ${waited.reason ?? ""}`) + "\n"
      : paint("green", waited.outcome) + "\n",
  );
  return waited.outcome === "rejected" ? 1 : 0;
}
