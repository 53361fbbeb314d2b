/** `control contract [TARGET] ID [--json]` (docs/reference/control-plane.md §9.7, §13): packet vs enforced contract. */
import type { CommandContext, CommandSpec } from "../frame.ts";
import { UsageError } from "../../errors.ts";
// The view alone, not the control surface (src/control/mod.ts re-exports its types).
import { contract, type ContractView } from "../../control/contract_view.ts";
import type { Color, Paint } from "../../render/mod.ts";
import { controlTarget, paintFor, printJson, TARGET_FLAGS } from "./_common.ts";

/** Colour of a timing class (docs/reference/control-plane.md §9.3). */
export const PHASE_COLOR: Record<string, Color> = {
  pre_verify: "green",
  post_failure: "red",
  post_success: "yellow",
};

/** The human form of docs/reference/control-plane.md §9.7. */
function formatContract(v: ContractView, paint: Paint): string {
  const lines = ["", `  ${paint("bold", `contract for ${v.prompt_id}`)}`, ""];
  if (v.amendments.length === 0) {
    lines.push(`  ${paint("dim", "no amendments; the packet's contract is enforced as written")}`);
  }
  for (const a of v.amendments) {
    const phase = paint(PHASE_COLOR[a.phase] ?? "dim", a.phase.padEnd(12));
    lines.push(
      `  ${phase} ${a.operation} ${a.clause}${paint("dim", ` by ${a.author}`)} — ${a.reason}${
        a.persisted ? " (persisted)" : ""
      }`,
    );
  }
  lines.push("");
  for (const d of v.diff) {
    const text = `${d.clause}: ${d.entry}`;
    if (d.change === "same") lines.push(paint("dim", `    ${text}`));
    else if (d.change === "removed") lines.push(paint("red", `  - ${text}`));
    else lines.push(paint("green", `  + ${text}`));
  }
  lines.push("");
  return lines.join("\n") + "\n";
}

/** The command. */
export const spec: CommandSpec = {
  usage: "[TARGET] ID [--json]",
  description: "A prompt's packet contract, its amendments with timing classes, and the enforced contract's diff.",
  flags: { ...TARGET_FLAGS },
  async run(ctx: CommandContext): Promise<number> {
    const target = await controlTarget(ctx);
    const id = target.rest[0];
    if (id === undefined) throw new UsageError("missing_argument", "no prompt id given");
    if (target.rest.length > 1) throw new UsageError("unexpected_argument", `unexpected argument "${target.rest[1]}"`);
    const view = await contract({ packetDir: target.packetDir, storeRoot: target.storeRoot }, id);
    if (ctx.json) printJson(ctx, view);
    else ctx.stdout.write(formatContract(view, paintFor(ctx)));
    return 0;
  },
};
