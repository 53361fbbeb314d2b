/** `workspace list [--json]` (docs/reference/workspace.md §5). */
import type { CommandSpec } from "../frame.ts";
import { loadWorkspaceManifest } from "../../workspace/manifest.ts";
import { isPrepared, listRegistry } from "../../workspace/registry.ts";
import { workspacePaths } from "../../workspace/paths.ts";
import { runState, runUnit } from "../../workspace/run_state.ts";

/** The command. */
export const spec: CommandSpec = {
  usage: "[--json]",
  description: "Every registered workspace: id, state of its bound packet's latest run, and manifest path.",
  flags: {},
  async run(ctx) {
    const rows: {
      id: string;
      manifest: string;
      prepared: boolean;
      state: string;
      store_root: string | null;
      unit?: string;
    }[] = [];
    for (const entry of await listRegistry()) {
      try {
        const m = await loadWorkspaceManifest(entry.manifest);
        const p = workspacePaths(m);
        // A run started in a systemd user unit is named by its unit (docs/reference/workspace.md §9).
        const unit = m.packet ? await runUnit(p.boundStoreRoot) : null;
        rows.push({
          id: m.id,
          manifest: m.path,
          prepared: await isPrepared(m),
          state: m.packet ? await runState(p.boundStoreRoot) : "no_packet",
          store_root: m.packet ? p.boundStoreRoot : null,
          ...(unit !== null ? { unit } : {}),
        });
      } catch {
        rows.push({
          id: entry.workspace,
          manifest: entry.manifest,
          prepared: false,
          state: "manifest_missing",
          store_root: null,
        });
      }
    }
    if (ctx.json) {
      ctx.stdout.write(JSON.stringify({ workspaces: rows }, null, 2) + "\n");
      return 0;
    }
    if (rows.length === 0) {
      ctx.stderr.write("No workspaces are registered; run: prompt_runner workspace prepare <manifest.yml>\n");
      return 0;
    }
    const w = Math.max(...rows.map((r) => r.id.length));
    for (const r of rows) {
      const state = r.prepared ? r.state : "not_prepared";
      const unit = r.unit ? `  (systemd unit ${r.unit})` : "";
      ctx.stdout.write(`${r.id.padEnd(w)}  ${state.padEnd(12)} ${r.manifest}${unit}\n`);
    }
    return 0;
  },
};
