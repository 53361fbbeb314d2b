/** The target of `workspace plan` and `workspace doctor`: a manifest path or registered id, positional or `--workspace`. */
import type { CommandContext, FlagSpec } from "../frame.ts";
import { manifestArgument, manifestForTarget, type WorkspaceManifest } from "../../workspace/mod.ts";

/** The `--workspace` flag of a read-only workspace command. */
export const WORKSPACE_TARGET_FLAG: FlagSpec = {
  type: "string",
  value: "M",
  description: "a workspace manifest or registered workspace id",
};

/** The manifest the command names (or the one discovered from the current directory). */
export async function workspaceTarget(ctx: CommandContext, command: string): Promise<WorkspaceManifest> {
  const flag = typeof ctx.flags.workspace === "string" ? ctx.flags.workspace : null;
  return await manifestForTarget(manifestArgument(ctx.positionals, flag, command), Deno.cwd());
}
