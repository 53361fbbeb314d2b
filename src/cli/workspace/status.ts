/** `workspace status [ID] [--json]` (docs/reference/workspace.md §8): the status rollup plus one line per clone. */
import type { CommandSpec } from "../frame.ts";
import { UsageError } from "../../errors.ts";
import { statusRollup } from "../../control/mod.ts";
import { painter } from "../../render/ansi.ts";
import { loadWorkspaceManifest } from "../../workspace/manifest.ts";
import { withCloneLines, workspaceSection } from "../../workspace/status.ts";
import { formatStatus } from "../status.ts";
import { resolveTarget } from "../target.ts";

/** The command. */
export const spec: CommandSpec = {
  usage: "[ID|MANIFEST] [--json]",
  description: "The status rollup of a workspace's packet plus one line per clone: short HEAD, branch and the " +
    "number of uncommitted paths. Without an id, the workspace related to the current directory.",
  flags: {
    workspace: { type: "string", value: "M", description: "a workspace manifest or prepared workspace id" },
    packet: { type: "string", value: "DIR", description: "a packet inside the workspace's clones" },
  },
  async run(ctx) {
    const t = await resolveTarget(ctx.positionals, ctx.flags, { idsFollow: false, createStore: false });
    if (t.kind !== "workspace" || !t.workspace) {
      throw new UsageError("not_a_workspace", `${t.packetDir} is a packet, not a workspace`, {
        hints: ["name a workspace: prompt_runner workspace status <id>; for a packet use: prompt_runner status"],
      });
    }
    const m = await loadWorkspaceManifest(t.workspace.manifest);
    const rollup = await statusRollup({
      target: t.label,
      packetDir: t.packetDir,
      storeRoot: t.storeRoot,
      kind: "workspace",
    });
    const section = await workspaceSection(m);
    if (ctx.json) {
      ctx.stdout.write(JSON.stringify({ ...rollup, workspace: section }) + "\n");
      return 0;
    }
    const paint = painter(ctx.color);
    ctx.stdout.write(withCloneLines(formatStatus(rollup, paint), section, (s) => paint("dim", s)));
    return 0;
  },
};
