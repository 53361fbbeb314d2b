/** `workspace plan [MANIFEST|ID] [--json]` (docs/reference/workspace.md §10.1): what prepare would do; writes nothing. */
import type { CommandSpec } from "../frame.ts";
import { WORKSPACE_TARGET_FLAG, workspaceTarget } from "./_target.ts";
import { planLines, planWorkspace } from "../../workspace/plan.ts";

/** The command. */
export const spec: CommandSpec = {
  usage: "[MANIFEST|ID] [--json]",
  description: "What `workspace prepare` would do — clones, fetches, checkouts, the runtime and store roots, the " +
    "lock record and the registry entry — and what would make it refuse. Writes nothing, not even the runtime root. " +
    "Exit 0 when prepare would go through, 1 when it would refuse.",
  flags: {
    workspace: WORKSPACE_TARGET_FLAG,
  },
  async run(ctx) {
    const plan = await planWorkspace(await workspaceTarget(ctx, "workspace plan"));
    if (ctx.json) ctx.stdout.write(JSON.stringify(plan, null, 2) + "\n");
    else ctx.stdout.write(planLines(plan).join("\n") + "\n");
    return plan.ok ? 0 : 1;
  },
};
