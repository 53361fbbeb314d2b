/** `prompt_runner template list [PACKET] [--json]` (docs/cli.md): the prompt templates `prompt new` can use. */
import type { CommandSpec } from "./frame.ts";
import { resolveTarget, TARGET_FLAGS } from "./target.ts";
import { configHome, listTemplates, loaderEnv } from "../packet/mod.ts";

/** The `template list` command. */
export const spec: CommandSpec = {
  usage: "[PACKET] [--json]",
  description: "The prompt templates visible to prompt new: the packet's templates/ (with PACKET), the config " +
    "home's templates/, the built-ins. A packet template overrides a home one of the same name, which overrides a " +
    "built-in; each row says where it comes from and what it overrides.",
  flags: { ...TARGET_FLAGS },
  async run(ctx) {
    const env = loaderEnv();
    const withPacket = ctx.positionals.length > 0 || typeof ctx.flags.packet === "string" ||
      typeof ctx.flags.workspace === "string";
    const packetDir = withPacket
      ? (await resolveTarget(ctx.positionals, ctx.flags, { idsFollow: false })).packetDir
      : null;
    const entries = await listTemplates(env, packetDir);
    if (ctx.json) {
      ctx.stdout.write(
        JSON.stringify({ packet: packetDir, config_home: configHome(env), templates: entries }) + "\n",
      );
      return 0;
    }
    const width = Math.max(4, ...entries.map((e) => e.name.length));
    const lines = [`${"NAME".padEnd(width)}  SOURCE    FILE`];
    for (const e of entries) {
      const over = e.overrides.length > 0 ? `  (overrides ${e.overrides.join(", ")})` : "";
      lines.push(`${e.name.padEnd(width)}  ${e.source.padEnd(8)}  ${e.file ?? "-"}${over}`);
    }
    ctx.stdout.write(lines.join("\n") + "\n");
    return 0;
  },
};
