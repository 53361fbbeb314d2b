/** Prompt selection and ordering (docs/reference/runner.md §2–§3). Pure: packet + selection + progress → ordered prompts. */
import { NotFoundError, UsageError } from "../errors.ts";
import { normalizePromptId } from "../util/ids.ts";
import type { ProgressMap } from "../store/mod.ts";
import type { Packet, Prompt } from "./types.ts";

/** The blocking check of docs/reference/runner.md §3, re-exported next to selection. */
export { blockedBy } from "./dependencies.ts";

/** A selection from the command line. Exactly one base selector applies: ids > phase > remaining > all. */
export type Selection = {
  ids: string[];
  phase: number | null;
  remaining: boolean;
  from: string | null;
  through: string | null;
};

/** The empty selection (= `--all`). */
export const ALL: Readonly<Selection> = Object.freeze({
  ids: [],
  phase: null,
  remaining: false,
  from: null,
  through: null,
});

function unknownPrompt(given: string, packet: Packet): NotFoundError {
  return new NotFoundError(
    "unknown_prompt",
    `unknown prompt ${given}; known: ${packet.prompts.map((p) => p.id).join(", ")}`,
    { details: { prompt: given } },
  );
}

function resolveId(packet: Packet, given: string): Prompt {
  const id = normalizePromptId(given);
  const p = id === null ? undefined : packet.prompts.find((q) => q.id === id);
  if (!p) throw unknownPrompt(given, packet);
  return p;
}

/**
 * Stable topological sort (docs/reference/runner.md §3): repeatedly emit the ready prompt (all selected dependencies emitted)
 * that comes first in `base`. Only edges between selected prompts reorder.
 */
function orderByDependencies(base: readonly Prompt[]): Prompt[] {
  const selected = new Set(base.map((p) => p.id));
  const emitted = new Set<string>();
  const pending = [...base];
  const out: Prompt[] = [];
  while (pending.length > 0) {
    let idx = pending.findIndex((p) => p.dependsOn.every((d) => !selected.has(d) || emitted.has(d)));
    if (idx < 0) idx = 0; // a cycle (rejected at load); keep base order
    const [p] = pending.splice(idx, 1);
    out.push(p!);
    emitted.add(p!.id);
  }
  return out;
}

/**
 * Select and order prompts. Unknown ids (explicit, `--from`, `--through`) throw `NotFoundError` `unknown_prompt`
 * (exit 4); `--from` after `--through` is a usage error.
 */
export function selectPrompts(packet: Packet, sel: Selection, progress: ProgressMap): Prompt[] {
  let base: Prompt[];
  if (sel.ids.length > 0) {
    base = [];
    for (const given of sel.ids) {
      const p = resolveId(packet, given);
      if (!base.includes(p)) base.push(p);
    }
  } else if (sel.phase !== null) {
    base = packet.prompts.filter((p) => p.phase === sel.phase);
  } else if (sel.remaining) {
    base = packet.prompts.filter((p) => progress.get(p.id)?.status !== "completed");
  } else {
    base = [...packet.prompts];
  }
  if (sel.from !== null || sel.through !== null) {
    const pos = (p: Prompt) => packet.prompts.indexOf(p);
    const lo = sel.from === null ? 0 : pos(resolveId(packet, sel.from));
    const hi = sel.through === null ? packet.prompts.length - 1 : pos(resolveId(packet, sel.through));
    if (lo > hi) {
      throw new UsageError(
        "conflicting_flags",
        `--from ${sel.from} comes after --through ${sel.through} in packet order`,
      );
    }
    base = base.filter((p) => pos(p) >= lo && pos(p) <= hi);
  }
  return orderByDependencies(base);
}
