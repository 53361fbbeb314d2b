/**
 * `prompt_runner profile new NAME --provider P --model M [--reasoning E] [--permission MODE] [--tools LIST]
 * [--prompt-template T] [--json]` (docs/cli.md): a home profile a packet names with `profile: NAME`.
 */
import type { CommandSpec, FlagValues } from "../frame.ts";
import { UsageError } from "../../errors.ts";
import { flagValues, refuseControlChars } from "../one_line.ts";
import {
  loaderEnv,
  normalizeProvider,
  profileNameProblem,
  profileOptionFindings,
  PROVIDERS,
  requireConfigHome,
  writeHomeProfile,
} from "../../packet/mod.ts";

/** The flag each profile key comes from, for messages. */
const FLAG_OF: Record<string, string> = {
  provider: "--provider",
  model: "--model",
  reasoning_effort: "--reasoning",
  permission_mode: "--permission",
  allowed_tools: "--tools",
};

function str(flags: FlagValues, name: string): string | null {
  const v = flags[name];
  return typeof v === "string" ? v : null;
}

/** The profile's options from the flags; a bad value is a usage error naming the flag and what it expects. */
function optionsOf(name: string, flags: FlagValues): Record<string, unknown> {
  refuseControlChars(flagValues(flags, ["provider", "model", "reasoning", "permission", "tools", "prompt-template"]));
  const provider = str(flags, "provider");
  const model = str(flags, "model");
  if (provider === null) throw new UsageError("missing_argument", "profile new needs --provider P");
  if (model === null || model.trim() === "") throw new UsageError("missing_argument", "profile new needs --model M");
  const lane = normalizeProvider(provider);
  if (lane === null) {
    throw new UsageError("invalid_value", `--provider is "${provider}"; expected one of ${PROVIDERS.join(", ")}`);
  }
  const options: Record<string, unknown> = { provider: lane, model: model.trim() };
  const effort = str(flags, "reasoning");
  if (effort !== null) options.reasoning_effort = effort;
  const permission = str(flags, "permission");
  if (permission !== null) options.permission_mode = permission;
  const tools = str(flags, "tools");
  if (tools !== null) options.allowed_tools = tools.split(",").map((t) => t.trim()).filter((t) => t !== "");
  const errors = profileOptionFindings(options, `profile ${name}`).filter((f) => f.severity === "error");
  if (errors.length > 0) {
    const f = errors[0]!;
    const flag = FLAG_OF[f.key ?? ""] ?? f.key ?? "";
    throw new UsageError("invalid_value", `${flag}: ${f.message.replace(`profile ${name}: `, "")}`);
  }
  const template = str(flags, "prompt-template");
  if (template !== null) options.prompt_template = template;
  return options;
}

/** The `profile new` command. */
export const spec: CommandSpec = {
  usage:
    "NAME --provider P --model M [--reasoning E] [--permission MODE] [--tools LIST] [--prompt-template T] [--json]",
  description: "Write profiles/NAME.md in the config home: an option layer under the manifest that a packet uses " +
    "with profile: NAME (a home profile named like a built-in replaces it). Refuses a bad name, an unknown provider " +
    "or a bad value (exit 2), and an existing profile file, which it never overwrites.",
  flags: {
    provider: { type: "string", value: "P", description: `lane: ${PROVIDERS.join("|")} (or an alias)` },
    model: { type: "string", value: "M", description: "model passed to the lane" },
    reasoning: { type: "string", value: "E", description: "reasoning_effort" },
    permission: { type: "string", value: "MODE", description: "permission_mode: default|auto|bypass|plan" },
    tools: { type: "string", value: "LIST", description: "allowed_tools, comma-separated (Read,Edit,Bash)" },
    "prompt-template": { type: "string", value: "T", description: "the template prompt new uses by default" },
  },
  async run(ctx) {
    const [name, ...extra] = ctx.positionals;
    if (name === undefined) throw new UsageError("missing_argument", "profile new needs a NAME");
    if (extra.length > 0) throw new UsageError("unexpected_argument", `unexpected argument "${extra[0]}"`);
    const problem = profileNameProblem(name);
    if (problem) throw new UsageError("invalid_value", problem);
    const options = optionsOf(name, ctx.flags);
    const home = requireConfigHome(loaderEnv());
    const file = `${home}/profiles/${name}.md`;
    if (!(await writeHomeProfile(home, name, options))) {
      throw new UsageError("invalid_value", `profile "${name}" already exists: ${file} (left unchanged)`, {
        hints: ["edit that file, or choose another name"],
      });
    }
    if (ctx.json) ctx.stdout.write(JSON.stringify({ profile: name, file, options }) + "\n");
    else ctx.stdout.write(`created profile ${name}: ${file}\n  use it with "profile: ${name}" in a packet manifest\n`);
    return 0;
  },
};
