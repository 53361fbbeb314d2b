/**
 * `prompt_runner repair [TARGET] <id>`: one repair attempt for a prompt, built from its last recorded verification
 * (docs/reference/runner.md §8), then the usual decision table (further repairs while budget remains).
 */
import { UsageError } from "../errors.ts";
import type { CommandContext, CommandSpec } from "./frame.ts";
import { resolveTarget } from "./target.ts";
import { OVERRIDE_FLAGS, parseOverrides, TARGET_FLAGS } from "./selection_flags.ts";
import { commitPolicy, targetCommitPolicy } from "./run.ts";
import { DISPLAY_FLAGS, displayRequest } from "./display_flags.ts";
import { runPacket } from "../run/runner.ts";
import { REPORT_FLAGS, withAbortReports } from "./report_flags.ts";

/** The `repair` command. */
export const spec: CommandSpec = {
  usage: "[TARGET] <ID> [flags]",
  description: "Run a repair attempt for one prompt: the original body plus the unmet checks of its last recorded " +
    "verification. The result is verified and committed like any attempt.",
  flags: {
    "no-commit": { type: "boolean", description: "do not commit" },
    committer: { type: "string", value: "git|noop", description: "how completed work is committed (default git)" },
    "skip-preflight": { type: "boolean", description: "skip repo and lane checks (the --allow-run check still runs)" },
    "allow-dirty": {
      type: "boolean",
      description: "run on target repos with uncommitted changes; those paths stay out of the prompt's work",
    },
    "new-run": { type: "boolean", description: "always mint a new run id" },
    strict: { type: "boolean", description: "refuse every lint finding of the prompt, warnings too" },
    ...DISPLAY_FLAGS,
    ...REPORT_FLAGS,
    ...OVERRIDE_FLAGS,
    ...TARGET_FLAGS,
  },
  run: withAbortReports(async (ctx: CommandContext, ci): Promise<number> => {
    const f = ctx.flags;
    const overrides = parseOverrides(f);
    commitPolicy(f);
    const display = displayRequest(ctx);
    const target = await resolveTarget(ctx.positionals, f);
    const commit = targetCommitPolicy(f, target);
    if (target.rest.length !== 1) {
      throw new UsageError("missing_argument", "repair takes exactly one prompt id");
    }
    return await runPacket({
      packetDir: target.packetDir,
      storeRoot: target.storeRoot,
      label: target.label,
      kind: target.kind,
      selection: { ids: target.rest, phase: null, remaining: false, from: null, through: null },
      overrides,
      newRun: f["new-run"] === true,
      verifyFirst: false,
      keepGoing: false,
      commit,
      skipPreflight: f["skip-preflight"] === true,
      allowDirty: f["allow-dirty"] === true,
      dryRun: false,
      repairFirst: true,
      io: { stdout: ctx.stdout, stderr: ctx.stderr, json: ctx.json, color: ctx.color },
      argv: ctx.argv,
      strict: f.strict === true,
      display,
      ci,
    });
  }),
};
