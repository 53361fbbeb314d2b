/** `prompt_runner checklist sync [TARGET]` (docs/reference/cli.md §3.10, docs/reference/packet.md §8): write checklist files next to prompts. */
import { basename, relative } from "../util/path.ts";
import type { CommandContext, CommandSpec } from "./frame.ts";
import { resolveTarget, TARGET_FLAGS } from "./target.ts";
import { loadPacket } from "../packet/load.ts";
import { checklistItems, checklistPath, checklistText } from "../contract/checklist.ts";
import { outsideMessage, outsidePacket } from "../packet/confine.ts";
import { findingCode, PacketError } from "../errors.ts";
import { escapeControl as esc } from "../util/escape.ts";

/** The `checklist sync` command. */
export const spec: CommandSpec = {
  usage: "[TARGET] [flags]",
  description: "Write `<prompt>.checklist.md` next to every prompt file: a human-readable view of its packet " +
    "contract. The runner never reads these files back and amendments do not change them.",
  flags: { ...TARGET_FLAGS },
  async run(ctx: CommandContext): Promise<number> {
    const target = await resolveTarget(ctx.positionals, ctx.flags, { idsFollow: false });
    const packet = await loadPacket(target.packetDir);
    // A checklist linked outside the packet is never written through (it would overwrite another file): refused
    // before anything is written.
    for (const prompt of packet.prompts) {
      const path = checklistPath(prompt.file);
      const outside = await outsidePacket(packet.dir, path);
      if (outside) {
        const rel = relative(packet.dir, path);
        throw new PacketError(findingCode("outside_packet"), `${rel}: ${outsideMessage(packet.dir, outside)}`, {
          file: rel,
        });
      }
    }
    const written: string[] = [];
    const warnings: string[] = [];
    for (const prompt of packet.prompts) {
      const path = checklistPath(prompt.file);
      await Deno.writeTextFile(path, checklistText(prompt, packet));
      const rel = relative(packet.dir, path);
      written.push(rel);
      if (!ctx.json) ctx.stdout.write(`wrote ${esc(rel)}\n`);
      if (checklistItems(prompt, packet).length === 0) {
        const msg = `prompt ${prompt.id} (${basename(prompt.file)}) has no verification items`;
        warnings.push(msg);
        ctx.stderr.write(`warning: ${esc(msg)}\n`);
      }
    }
    if (ctx.json) ctx.stdout.write(JSON.stringify({ packet: packet.dir, written, warnings }) + "\n");
    return 0;
  },
};
