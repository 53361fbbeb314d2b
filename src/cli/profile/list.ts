/** `prompt_runner profile list [--json]` (docs/cli.md): the profiles a packet can name, with where each comes from. */
import type { CommandSpec } from "../frame.ts";
import { configHome, loaderEnv, profileEntries } from "../../packet/mod.ts";

/** The `profile list` command. */
export const spec: CommandSpec = {
  usage: "[--json]",
  description: "Every profile a packet can name with profile: — the config home's profiles/*.md and the " +
    "built-ins — with its provider, model and source; a home file that replaces a built-in, the default profile " +
    "(config.md) and a profile that cannot be used are marked.",
  flags: {},
  async run(ctx) {
    const env = loaderEnv();
    const entries = await profileEntries(env);
    if (ctx.json) {
      ctx.stdout.write(JSON.stringify({ config_home: configHome(env), profiles: entries }) + "\n");
      return 0;
    }
    const w = (f: (e: (typeof entries)[number]) => string, min: number) =>
      Math.max(min, ...entries.map((e) => f(e).length));
    const nw = w((e) => e.name, 4);
    const pw = w((e) => e.provider ?? "-", 8);
    const mw = w((e) => e.model ?? "-", 5);
    const lines = [`${"NAME".padEnd(nw)}  ${"PROVIDER".padEnd(pw)}  ${"MODEL".padEnd(mw)}  SOURCE`];
    for (const e of entries) {
      let source = e.file ?? "built-in";
      if (e.overrides_builtin) source += " (replaces the built-in)";
      if (e.is_default) source += " [default]";
      lines.push(`${e.name.padEnd(nw)}  ${(e.provider ?? "-").padEnd(pw)}  ${(e.model ?? "-").padEnd(mw)}  ${source}`);
      if (e.problem) lines.push(`${"".padEnd(nw)}  error: ${e.problem}`);
    }
    ctx.stdout.write(lines.join("\n") + "\n");
    return 0;
  },
};
