/** `workspace doctor [MANIFEST|ID] [--json]` (docs/reference/workspace.md §10.2): read-only readiness; exit 1 when not ready. */
import type { CommandSpec } from "../frame.ts";
import { WORKSPACE_TARGET_FLAG, workspaceTarget } from "./_target.ts";
import { doctorLines, doctorWorkspace } from "../../workspace/doctor.ts";

/** The command. */
export const spec: CommandSpec = {
  usage: "[MANIFEST|ID] [--json]",
  description: "Read-only readiness of a workspace: clones present, independent, with the manifest's origin and on " +
    "the pinned ref; uncommitted work reported as resumable (a warning, not a failure); the tool versions the clones " +
    "pin (.tool-versions, mise.toml); the runtime root writable. Exit 0 ready, 1 not ready. Writes nothing.",
  flags: {
    workspace: WORKSPACE_TARGET_FLAG,
  },
  async run(ctx) {
    const m = await workspaceTarget(ctx, "workspace doctor");
    const report = await doctorWorkspace(m, undefined, Deno.env.get("PATH") ?? "");
    if (ctx.json) ctx.stdout.write(JSON.stringify(report, null, 2) + "\n");
    else ctx.stdout.write(doctorLines(report).join("\n") + "\n");
    return report.ready ? 0 : 1;
  },
};
