/**
 * `control steer [TARGET] [--] TEXT… [--author A] [--interrupt] [--wait]` (docs/reference/control-plane.md §13): guidance
 * for the live agent.
 */
import type { CommandContext, CommandSpec } from "../frame.ts";
import { UsageError } from "../../errors.ts";
import { checkSteerText, snapshot, steer } from "../../control/mod.ts";
import { AUTHOR_FLAG, controlTarget, printJson, printWaited, runRef, str, TARGET_FLAGS } from "./_common.ts";

/** The command. */
export const spec: CommandSpec = {
  usage: "[TARGET] [--] TEXT… [--author A] [--interrupt] [--wait]",
  description:
    "Send guidance to the live agent: written into the running turn where the session's transport takes input (no " +
    "tool is cancelled), else the run interrupts the turn and resumes the same session with it. The words are joined " +
    "with single spaces. The contract does not change.",
  flags: {
    ...TARGET_FLAGS,
    ...AUTHOR_FLAG,
    interrupt: {
      type: "boolean",
      description:
        "stop what the agent is doing first (in the CLI's process where its transport can, else by interrupting it)",
    },
    wait: {
      type: "boolean",
      description: "wait up to 60 s until the CLI acknowledged the steer (delivered) or it was rejected",
    },
  },
  async run(ctx: CommandContext): Promise<number> {
    // Words after `--` are always text, never a target.
    const dd = ctx.argv.indexOf("--");
    const tailCount = dd >= 0 ? ctx.argv.length - dd - 1 : 0;
    const head = ctx.positionals.slice(0, ctx.positionals.length - tailCount);
    const tail = ctx.positionals.slice(ctx.positionals.length - tailCount);
    const target = await controlTarget({ ...ctx, positionals: head }, { idsFollow: true });
    const text = [...target.rest, ...tail].join(" ").trim();
    const author = str(ctx, "author");
    const by = {
      ...(author !== undefined ? { author } : {}),
      ...(ctx.flags.interrupt === true ? { interrupt: true } : {}),
    };
    const checked = checkSteerText(text);
    if (!checked.ok && checked.code === "empty_steer") {
      // The API records the refusal (`empty_steer`) when the target has a run; the caller sees the usage error.
      const ref = await runRef(target).catch(() => null);
      if (ref) await steer(ref, text, by).catch(() => {});
      throw new UsageError("missing_argument", "no steer text given", {
        hints: ["usage: prompt_runner control steer [TARGET] [--] TEXT…"],
      });
    }
    const ref = await runRef(target);
    const handle = await steer(ref, text, by);
    const snap = await snapshot(ref).catch(() => null);
    // `--wait` is rare: its poller loads only then.
    const waited = ctx.flags.wait === true
      ? await (await import("./_wait.ts")).waitForOutcome(ref, handle.request, 60_000)
      : null;
    if (ctx.json) {
      printJson(ctx, {
        request: handle.request,
        run_id: handle.runId,
        outcome: waited?.outcome ?? null,
        delivered: waited ? waited.outcome === "applied" : null,
        delivery: waited?.delivery ?? null,
      });
    } else {
      const prompt = snap?.prompt_id ? `prompt ${snap.prompt_id} of ` : "";
      ctx.stdout.write(
        `Steer queued for ${prompt}run ${handle.runId}; it is delivered at the next boundary (see control log).\n`,
      );
      if (waited?.outcome === "applied") ctx.stdout.write(`delivered (${waited.delivery ?? "applied"})\n`);
      else printWaited(ctx, waited);
    }
    return waited?.outcome === "rejected" ? 1 : 0;
  },
};
