/**
 * `prompt_runner prompt new ID --packet DIR [--name N] [--phase N] [--targets LIST] [--commit MSG] [--template T]
 * [--mission TEXT] [--depends-on LIST] (--contains PATH=TEXT | --command CMD)… [--file PATH]…
 * [--simulate-write PATH=TEXT]… [--json]` (docs/cli.md): a prompt rendered from a template, valid by construction.
 */
import type { CommandSpec, FlagValues } from "./frame.ts";
import { findingCode, PacketError, UsageError } from "../errors.ts";
import { shellWords } from "./control/_common.ts";
import { lintPacket } from "../contract/packet_lint.ts";
import {
  contentChecks,
  inspectPacket,
  loaderEnv,
  loadTemplate,
  type PromptContract,
  promptFileText,
  resolveProfileOptions,
  slug,
} from "../packet/mod.ts";
import { normalizePromptId } from "../util/ids.ts";
import { resolve } from "../util/path.ts";
import { createNew } from "../util/create_new.ts";
import { flagValues, refuseControlChars } from "./one_line.ts";

/** The timeout written on each `--command` entry (lint warns about a command without one). */
const COMMAND_TIMEOUT_MS = 300_000;

function str(flags: FlagValues, name: string): string | null {
  const v = flags[name];
  return typeof v === "string" ? v : null;
}

function list(flags: FlagValues, name: string): string[] {
  const v = flags[name];
  return Array.isArray(v) ? v : [];
}

function csv(flags: FlagValues, name: string): string[] {
  return (str(flags, name) ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "");
}

function pathText(flag: string, value: string): { path: string; text: string } {
  const eq = value.indexOf("=");
  if (eq <= 0 || eq === value.length - 1) {
    throw new UsageError("invalid_value", `--${flag} "${value}": expected PATH=TEXT with both parts non-empty`);
  }
  return { path: value.slice(0, eq), text: value.slice(eq + 1) };
}

function contractOf(flags: FlagValues): PromptContract {
  return {
    files: list(flags, "file"),
    contains: list(flags, "contains").map((v) => pathText("contains", v)),
    commands: list(flags, "command").map((v) => {
      let words: string[];
      try {
        words = shellWords(v);
      } catch (e) {
        throw new UsageError("invalid_value", `--command "${v}": ${(e as Error).message}`);
      }
      const [exec, ...args] = words;
      if (!exec) throw new UsageError("invalid_value", "--command needs a command");
      return { exec, args, timeout_ms: COMMAND_TIMEOUT_MS };
    }),
    simulateWrites: list(flags, "simulate-write").map((v) => pathText("simulate-write", v)),
  };
}

/**
 * Refuse a prompt directory outside the packet (`prompt_dir: ../elsewhere`, or a link leading out): the loader never
 * reads a prompt there, so a prompt written there would be a file outside the packet that no run ever sees.
 * Judged from the longest existing part of the path, its links resolved; nothing is created to find out.
 */
function refuseOutsidePacket(root: string, promptDir: string, configured: unknown): void {
  const missing: string[] = [];
  let at = promptDir;
  let real: string | null = null;
  while (real === null) {
    try {
      real = Deno.realPathSync(at);
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
      missing.unshift(at.slice(at.lastIndexOf("/") + 1));
      at = at.slice(0, at.lastIndexOf("/")) || "/";
    }
  }
  const where = missing.length ? `${real === "/" ? "" : real}/${missing.join("/")}` : real;
  if (where === root || where.startsWith(`${root}/`)) return;
  const key = typeof configured === "string" ? `prompt_dir: ${configured}` : "prompt_dir: prompts";
  throw new PacketError(
    findingCode("outside_packet"),
    `${root}/prompt_runner_packet.md: ${key}: the prompt directory resolves to ${where}, outside the packet ${root}; ` +
      "expected a directory inside the packet (prompt new writes nothing outside it)",
    { file: "prompt_runner_packet.md", key: "prompt_dir" },
  );
}

/** The `prompt new` command. */
export const spec: CommandSpec = {
  usage: "ID --packet DIR [--name N] [--phase N] [--targets LIST] [--commit MSG] [--template T] [--mission TEXT] " +
    "[--depends-on LIST] (--contains PATH=TEXT | --command CMD)… [--file PATH]… [--simulate-write PATH=TEXT]… [--json]",
  description: "Write <prompt_dir>/<ID>_<name>.prompt.md rendered from a template (--template, else the manifest's " +
    "prompt_template, else the profile's, else default). The contract comes from the flags (and the template's " +
    "verify:) and must check content (--contains or --command); the new file must pass packet lint --strict or it " +
    "is removed again (exit 3). Never overwrites a file; refuses an id the packet already has.",
  flags: {
    packet: { type: "string", value: "DIR", description: "the packet directory (required)" },
    name: { type: "string", value: "N", description: "the prompt's name (default: Prompt ID)" },
    phase: { type: "string", value: "N", description: "phase (default 1)" },
    targets: { type: "string", value: "LIST", description: "target repos, comma-separated" },
    commit: { type: "string", value: "MSG", description: "commit message (default: feat: <name>)" },
    template: { type: "string", value: "T", description: "template name (see template list) or a .md path" },
    mission: { type: "string", value: "TEXT", description: "the Mission section (default: a placeholder)" },
    "depends-on": { type: "string", value: "LIST", description: "prompt ids this one depends on" },
    contains: { type: "string", multiple: true, value: "PATH=TEXT", description: "verify: contains" },
    command: { type: "string", multiple: true, value: "CMD", description: "verify: commands (5 min timeout)" },
    file: { type: "string", multiple: true, value: "PATH", description: "verify: files_exist" },
    "simulate-write": {
      type: "string",
      multiple: true,
      value: "PATH=TEXT",
      description: "a simulated-provider script: attempt 1 writes PATH",
    },
  },
  async run(ctx) {
    const [rawId, ...extra] = ctx.positionals;
    if (rawId === undefined) throw new UsageError("missing_argument", "prompt new needs an ID");
    if (extra.length > 0) throw new UsageError("unexpected_argument", `unexpected argument "${extra[0]}"`);
    const packetFlag = str(ctx.flags, "packet");
    if (packetFlag === null) throw new UsageError("missing_argument", "prompt new needs --packet DIR");
    const id = normalizePromptId(rawId);
    if (id === null) throw new UsageError("invalid_value", `prompt id "${rawId}" is not a number (e.g. 1, 01, 12)`);
    const env = loaderEnv();
    const found = await inspectPacket(resolve(packetFlag), { env });
    const packet = found.packet;
    if (packet === null) {
      const f = found.findings[0];
      throw new PacketError(findingCode(f?.kind ?? "manifest_invalid"), f?.message ?? "the manifest cannot be read");
    }
    const clash = packet.prompts.find((p) => p.id === id);
    if (clash) throw new UsageError("invalid_value", `prompt ${id} already exists: ${clash.relFile}`);
    const targets = csv(ctx.flags, "targets");
    for (const t of targets) {
      if (!packet.repos.some((r) => r.name === t)) {
        const known = packet.repos.map((r) => r.name).join(", ") || "none";
        throw new UsageError("unknown_repo", `--targets: "${t}" is not a repo of the packet; known: ${known}`);
      }
    }
    const dependsOn = csv(ctx.flags, "depends-on").map((d) => {
      const n = normalizePromptId(d);
      if (n === null || !packet.prompts.some((p) => p.id === n)) {
        throw new UsageError("invalid_value", `--depends-on: "${d}" is not a prompt of the packet`);
      }
      return n;
    });
    const phaseText = str(ctx.flags, "phase") ?? "1";
    if (!/^\d+$/.test(phaseText.trim())) {
      throw new UsageError("invalid_value", `--phase takes an integer, got "${phaseText}"`);
    }
    refuseControlChars(flagValues(ctx.flags, ["name", "targets", "depends-on", "template", "file"]));
    const name = str(ctx.flags, "name") ?? `Prompt ${id}`;
    const profileTemplate = (await resolveProfileOptions(packet, env)).prompt_template;
    const flagTemplate = str(ctx.flags, "template");
    const manifestTemplate = typeof packet.manifest.prompt_template === "string"
      ? packet.manifest.prompt_template
      : null;
    const ref = flagTemplate ?? manifestTemplate ??
      (typeof profileTemplate === "string" ? profileTemplate : null) ?? "default";
    // A template path the packet's own manifest names must stay inside the packet (src/packet/templates.ts).
    const confine = flagTemplate === null && manifestTemplate !== null ? { confineTo: packet.dir } : {};
    const template = await loadTemplate(ref, env, packet.dir, confine);
    const { text, verify } = promptFileText(template, {
      id,
      phase: Number(phaseText.trim()),
      name,
      targets,
      commit: str(ctx.flags, "commit") ?? `feat: ${name}`,
      mission: str(ctx.flags, "mission"),
      dependsOn,
      contract: contractOf(ctx.flags),
    });
    if (contentChecks(verify) === 0) {
      throw new UsageError(
        "missing_argument",
        "prompt new needs a contract that checks content: --contains PATH=TEXT or --command CMD (or a template " +
          "whose verify: has one); --file alone only checks that a file exists",
      );
    }
    const file = `${packet.promptDir}/${id}_${slug(name)}.prompt.md`;
    refuseOutsidePacket(packet.dir, packet.promptDir, packet.manifest.prompt_dir);
    const rel = file.slice(packet.dir.length + 1);
    await Deno.mkdir(packet.promptDir, { recursive: true });
    // Checked again once the directory exists: a link made in between would otherwise lead the write out.
    refuseOutsidePacket(packet.dir, packet.promptDir, packet.manifest.prompt_dir);
    if (!(await createNew(file, text))) {
      throw new UsageError("invalid_value", `${rel} already exists (left unchanged)`);
    }
    const lint = await lintPacket(packet.dir, { strict: true, env });
    const mine = lint.findings.filter((f) => f.file === rel);
    if (mine.length > 0) {
      await Deno.remove(file);
      throw new PacketError(
        findingCode(mine[0]!.kind),
        `the new prompt does not pass packet lint --strict, so it was removed: ${mine[0]!.message}`,
        { file: rel, hints: mine.slice(1).map((f) => f.message) },
      );
    }
    const others = lint.findings.length;
    if (ctx.json) {
      ctx.stdout.write(
        JSON.stringify({ id, file, template: { name: template.name, source: template.source }, others }) + "\n",
      );
    } else {
      ctx.stdout.write(`created prompt ${id}: ${file} (template ${template.name}, ${template.source})\n`);
      if (others > 0) {
        ctx.stdout.write(`  the packet has ${others} other lint finding(s): prompt_runner packet lint ${packet.dir}\n`);
      }
    }
    return 0;
  },
};
