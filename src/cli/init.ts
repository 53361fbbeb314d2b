/** `prompt_runner init [--default-profile NAME] [--json]` (docs/cli.md): the config home's profiles and templates. */
import type { CommandSpec } from "./frame.ts";
import { UsageError } from "../errors.ts";
import { initHome, loaderEnv, profileEntries, profileNameProblem, requireConfigHome } from "../packet/mod.ts";

/** The `init` command. */
export const spec: CommandSpec = {
  usage: "[--default-profile NAME] [--json]",
  description: "Create the config home ($XDG_CONFIG_HOME/prompt_runner, else ~/.config/prompt_runner): config.md, " +
    "an editable copy of each built-in profile in profiles/, the built-in prompt templates in templates/. " +
    "Idempotent: a file that exists is kept as it is, and the report says so.",
  flags: {
    "default-profile": {
      type: "string",
      value: "NAME",
      description: "write default_profile: NAME into a new config.md (a profile for packets without profile:)",
    },
  },
  async run(ctx) {
    const env = loaderEnv();
    const home = requireConfigHome(env);
    const wanted = typeof ctx.flags["default-profile"] === "string" ? ctx.flags["default-profile"] : null;
    if (wanted !== null) {
      const problem = profileNameProblem(wanted);
      if (problem) throw new UsageError("invalid_value", `--default-profile: ${problem}`);
    }
    const items = await initHome(home, wanted);
    if (wanted !== null) {
      const known = (await profileEntries(env)).map((p) => p.name);
      if (!known.includes(wanted)) {
        ctx.stderr.write(
          `warning: default profile "${wanted}" does not exist yet; create it with prompt_runner profile new ` +
            `${wanted} --provider P --model M (known: ${known.join(", ")})\n`,
        );
      }
      if (items[0]!.action === "kept") {
        ctx.stderr.write(`warning: ${items[0]!.file} was kept as it is; its default_profile was not changed\n`);
      }
    }
    const created = items.filter((i) => i.action === "created").map((i) => i.file);
    const kept = items.filter((i) => i.action === "kept").map((i) => i.file);
    if (ctx.json) {
      ctx.stdout.write(JSON.stringify({ config_home: home, created, kept }) + "\n");
      return 0;
    }
    const lines = [`Config home: ${home}`];
    for (const i of items) {
      const rel = i.file.slice(home.length + 1);
      lines.push(i.action === "created" ? `  created  ${rel}` : `  kept     ${rel} (exists; left unchanged)`);
    }
    lines.push(`${created.length} created, ${kept.length} kept`);
    ctx.stdout.write(lines.join("\n") + "\n");
    return 0;
  },
};
