/** `prompt_runner packet doctor [TARGET] [--json]` (docs/reference/cli.md §3.9): readiness plus authoring warnings; exit 0. */
import type { CommandSpec } from "../frame.ts";
import { TARGET_FLAGS } from "../target.ts";
import { runReadiness } from "./preflight.ts";

/** The `packet doctor` command. */
export const spec: CommandSpec = {
  usage: "[TARGET] [--json]",
  description: "The preflight readiness report plus authoring warnings (no prompts, default repos, prompts " +
    "without targets or verification items, scaffold placeholders). Exit 0 unless the packet does not parse (3).",
  flags: { ...TARGET_FLAGS },
  run: (ctx) => runReadiness(ctx, true),
};
