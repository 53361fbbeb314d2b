/** `workspace prepare <MANIFEST|ID> [--json]` (docs/reference/workspace.md §4). */
import type { CommandSpec } from "../frame.ts";
import { UsageError } from "../../errors.ts";
import { loadWorkspaceManifest } from "../../workspace/manifest.ts";
import { findRegistered } from "../../workspace/registry.ts";
import { prepareWorkspace } from "../../workspace/prepare.ts";

/** The command. */
export const spec: CommandSpec = {
  usage: "<MANIFEST|ID> [--json]",
  description: "Create or update a workspace's independent clones, its external state root and its registry entry. " +
    "Idempotent: re-running fetches and fast-forwards; it never discards or resets work.",
  flags: {},
  async run(ctx) {
    const arg = ctx.positionals[0];
    if (!arg || ctx.positionals.length > 1) {
      throw new UsageError("missing_argument", "workspace prepare takes exactly one manifest path or workspace id");
    }
    let manifestPath = arg;
    const isFile = await Deno.stat(arg).then((s) => s.isFile, () => false);
    if (!isFile) {
      const entry = await findRegistered(arg);
      if (entry) manifestPath = entry.manifest;
    }
    const manifest = await loadWorkspaceManifest(manifestPath);
    const result = await prepareWorkspace(manifest);
    if (ctx.json) ctx.stdout.write(JSON.stringify(result.lock, null, 2) + "\n");
    else ctx.stdout.write(result.lines.join("\n") + "\n");
    return 0;
  },
};
