/**
 * `control view [TARGET] [--log-mode M] [--tool-output T] [--thinking S] [--diff D] [--author A] [--wait]`
 * (docs/reference/control-plane.md §13): ask the live run to change how it renders.
 */
import type { CommandContext, CommandSpec } from "../frame.ts";
import { UsageError } from "../../errors.ts";
import { setView } from "../../control/mod.ts";
import { VIEW_VALUES } from "../../events/types.ts";
import { AUTHOR_FLAG, controlTarget, printJson, printWaited, runRef, str, TARGET_FLAGS } from "./_common.ts";
import { waitForOutcome } from "./_wait.ts";

const SETTINGS = [["log-mode", "log_mode"], ["tool-output", "tool_output"], ["thinking", "thinking"], [
  "diff",
  "diff",
]] as const;

/** The command. */
export const spec: CommandSpec = {
  usage: "[TARGET] [--log-mode M] [--tool-output T] [--thinking S] [--diff D] [--author A] [--wait]",
  description: "Change how the live run renders; applied at the run's next boundary (see control log).",
  flags: {
    ...TARGET_FLAGS,
    ...AUTHOR_FLAG,
    "log-mode": { type: "string", value: "M", values: VIEW_VALUES.log_mode, description: "compact, verbose or studio" },
    "tool-output": {
      type: "string",
      value: "T",
      values: VIEW_VALUES.tool_output,
      description: "none, summary, preview or full",
    },
    thinking: { type: "string", value: "S", values: VIEW_VALUES.thinking, description: "show or hide" },
    diff: { type: "string", value: "D", values: VIEW_VALUES.diff, description: "none, stat or full" },
    wait: { type: "boolean", description: "wait up to 10 s for the outcome and print it" },
  },
  async run(ctx: CommandContext): Promise<number> {
    const view: Record<string, string> = {};
    for (const [flag, key] of SETTINGS) {
      const v = str(ctx, flag);
      if (v !== undefined) view[key] = v;
    }
    const author = str(ctx, "author");
    const by = author !== undefined ? { author } : {};
    if (Object.keys(view).length === 0) {
      // The API records the refusal (`empty_view`) when the target has a run; the caller sees the usage error.
      const ref = await controlTarget(ctx, { idsFollow: false }).then((t) => runRef(t)).catch(() => null);
      if (ref) await setView(ref, view, by).catch(() => {});
      throw new UsageError("missing_argument", "no view setting given", {
        hints: ["pass at least one of --log-mode, --tool-output, --thinking, --diff"],
      });
    }
    const target = await controlTarget(ctx, { idsFollow: false });
    const ref = await runRef(target);
    // A value the view does not take: the API records the refusal; the caller sees it spelled as the flag it typed.
    const bad = SETTINGS.find(([flag, key]) => {
      const v = str(ctx, flag);
      return v !== undefined && !(VIEW_VALUES[key] as readonly string[]).includes(v);
    });
    const handle = await setView(ref, view, by).catch((e) => {
      if (!bad) throw e;
      const allowed = (VIEW_VALUES[bad[1]] as readonly string[]).join(", ");
      throw new UsageError(
        "invalid_view_value",
        `--${bad[0]} does not take "${str(ctx, bad[0])}"; allowed: ${allowed}`,
      );
    });
    const waited = ctx.flags.wait === true ? await waitForOutcome(ref, handle.request, 10_000) : null;
    if (ctx.json) {
      printJson(ctx, { request: handle.request, run_id: handle.runId, outcome: waited?.outcome ?? null });
    } else {
      const shown = Object.keys(view).sort().map((k) => `${k}=${view[k]}`).join(", ");
      ctx.stdout.write(
        `Requested ${shown} for run ${handle.runId}; it applies at the next boundary (see control log).\n`,
      );
      printWaited(ctx, waited);
    }
    return waited?.outcome === "rejected" ? 1 : 0;
  },
};
