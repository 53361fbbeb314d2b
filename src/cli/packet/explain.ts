/** `prompt_runner packet explain [TARGET] [flags]` (docs/cli.md): each prompt's effective options and their sources. */
import type { CommandSpec } from "../frame.ts";
import { resolveTarget } from "../target.ts";
import { OVERRIDE_FLAGS, parseOverrides, TARGET_FLAGS } from "../selection_flags.ts";
import { explainPacket, loaderEnv, loadPacket, type PacketExplanation } from "../../packet/mod.ts";
import { escapeControl as esc } from "../../util/escape.ts";

/** A value as one line, its control characters escaped (a string's newline too). */
function show(v: unknown): string {
  if (v === null || v === undefined) return "-";
  return esc(typeof v === "string" ? v : JSON.stringify(v));
}

/**
 * The human report: the packet's profile and repos, then per prompt one line per option with its source. Every value
 * read from the packet, the profiles or the environment is shown with its control characters escaped.
 */
function render(x: PacketExplanation): string {
  const lines = [`Packet ${esc(x.packet)} (${esc(x.dir)})`];
  lines.push(
    `  profile  ${
      x.profile ? esc(`${x.profile.name} (${x.profile.source}${x.profile.file ? `: ${x.profile.file}` : ""})`) : "none"
    }`,
  );
  for (const r of x.repos) lines.push(`  repo     ${esc(r.name)}${r.default ? " (default)" : ""}  ${esc(r.path)}`);
  for (const p of x.prompts) {
    const contract = Object.entries(p.verify).map(([clause, n]) => `${clause} ×${n}`).join(", ") || "none";
    lines.push(
      "",
      `${esc(p.id)}  ${esc(p.name)}  (${esc(p.file)})`,
      `  cwd  ${esc(p.cwd)}`,
      `  phase ${p.phase} · ${p.sp} SP · depends on ${esc(p.depends_on.join(", ")) || "nothing"} · commit ${
        show(p.commit)
      }`,
      `  contract  ${esc(contract)}`,
    );
    const width = Math.max(...Object.keys(p.options).map((k) => esc(k).length));
    for (const [key, v] of Object.entries(p.options)) {
      const from = v.merged_from && v.merged_from.length > 1 ? v.merged_from.join(" > ") : v.source;
      const file = v.file ? ` ${v.file}` : "";
      lines.push(`  ${esc(key).padEnd(width)}  ${show(v.value)}  ← ${esc(`${from}${file}`)}`);
    }
  }
  return lines.join("\n") + "\n";
}

/** The `packet explain` command. */
export const spec: CommandSpec = {
  usage: "[TARGET] [flags]",
  description: "The effective configuration of each prompt and where each value came from: flag, prompt, " +
    "manifest, home profile, built-in profile, environment (PROMPT_RUNNER_PROVIDER/MODEL) or default. Takes the " +
    "override flags of run, so it explains what run would use. Nothing is written.",
  flags: { ...OVERRIDE_FLAGS, ...TARGET_FLAGS },
  async run(ctx) {
    const overrides = parseOverrides(ctx.flags);
    const target = await resolveTarget(ctx.positionals, ctx.flags, { idsFollow: false });
    const env = loaderEnv();
    const packet = await loadPacket(target.packetDir, { overrides, env });
    const x = await explainPacket(packet, overrides, env);
    ctx.stdout.write(ctx.json ? JSON.stringify(x) + "\n" : render(x));
    return 0;
  },
};
