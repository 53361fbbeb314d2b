/** `workspace plan [MANIFEST|ID] [--json]` (docs/reference/workspace.md §10.1): what prepare would do; writes nothing. */
import type { CommandSpec } from "../frame.ts";
import { manifestArgument, manifestForTarget } from "../../workspace/target_manifest.ts";
import { planLines, planWorkspace } from "../../workspace/plan.ts";

/** The command. */
export const spec: CommandSpec = {
  usage: "[MANIFEST|ID] [--json]",
  description: "What `workspace prepare` would do — clones, fetches, checkouts, the runtime and store roots, the " +
    "lock record and the registry entry — and what would make it refuse. Writes nothing, not even the runtime root. " +
    "Exit 0 when prepare would go through, 1 when it would refuse.",
  flags: {
    workspace: { type: "string", value: "M", description: "a workspace manifest or registered workspace id" },
  },
  async run(ctx) {
    const given = manifestArgument(
      ctx.positionals,
      typeof ctx.flags.workspace === "string" ? ctx.flags.workspace : null,
      "workspace plan",
    );
    const plan = await planWorkspace(await manifestForTarget(given, Deno.cwd()));
    if (ctx.json) ctx.stdout.write(JSON.stringify(plan, null, 2) + "\n");
    else ctx.stdout.write(planLines(plan).join("\n") + "\n");
    return plan.ok ? 0 : 1;
  },
};
