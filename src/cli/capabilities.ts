/** `prompt_runner capabilities [--json]` (docs/reference/workspace.md §1.1): what a manifest's `requires` may name. */
import type { CommandSpec } from "./frame.ts";
import { UsageError } from "../errors.ts";
import { CAPABILITIES, SDK_COMPAT, VERSION } from "../version.ts";

/** The command. */
export const spec: CommandSpec = {
  usage: "[--json]",
  description: "The installed capabilities (one per line) a workspace manifest's requires.capabilities may name, " +
    "and the sdk release whose semantics requires.prompt_runner is checked against.",
  flags: {},
  run(ctx) {
    if (ctx.positionals.length > 0) {
      throw new UsageError("unexpected_argument", `capabilities takes no arguments, got "${ctx.positionals[0]}"`);
    }
    if (ctx.json) {
      const doc = {
        schema: "prompt_runner.capabilities/v1",
        version: VERSION,
        sdk_compat: SDK_COMPAT,
        capabilities: CAPABILITIES,
      };
      ctx.stdout.write(JSON.stringify(doc) + "\n");
    } else ctx.stdout.write(CAPABILITIES.join("\n") + "\n");
    return Promise.resolve(0);
  },
};
