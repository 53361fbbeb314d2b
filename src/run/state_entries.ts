/**
 * The runner's in-memory prompt entries of `state.json` (docs/reference/runner.md §10.2, memory): an entry at rest — no
 * attempt of it under way — is held as its compact JSON text rather than as an object graph, with a verification report
 * that appears twice (the last attempt's `verification` and the result's `last_verifier`) held once. A 10,000-prompt run
 * then keeps about one line of text per finished prompt, and `state.json` is written from these texts piece by piece
 * ({@link docPieces}) instead of one `JSON.stringify` of the whole document.
 */

/** What this file needs of a prompt entry (`PromptState` in src/run/state_doc.ts; src/run/state.ts imports this file). */
interface EntryShape {
  status: string;
  result?: { last_verifier: unknown } | undefined;
}

/** Statuses of a prompt whose attempts are under way: its entry stays an object (it changes several times a second). */
const LIVE = new Set(["running", "retry_scheduled", "repairing"]);

/**
 * Stands for the shared report inside a frozen entry's text. It is a JSON string, so it appears in the text only where
 * a whole string value equals it; {@link freezeEntry} counts the occurrences and keeps the text whole on any surprise.
 */
const MARK = "\u0000prompt_runner:last_verifier\u0000";
const MARK_JSON = JSON.stringify(MARK);

/** A prompt entry at rest: its JSON text cut where the shared report goes, and the report's text (or none). */
export class FrozenEntry {
  constructor(readonly parts: readonly string[], readonly shared: string | null) {}

  /** The entry's whole JSON text, as `JSON.stringify(entry)` writes it. */
  text(): string {
    return this.shared === null ? this.parts[0]! : this.parts.join(this.shared);
  }

  /** The entry's text as pieces (no concatenation). */
  *pieces(): Generator<string> {
    for (let i = 0; i < this.parts.length; i++) {
      if (i > 0) yield this.shared!;
      yield this.parts[i]!;
    }
  }

  /** The characters held (a test seam: memory per finished prompt). */
  get size(): number {
    return this.parts.reduce((n, p) => n + p.length, 0) + (this.shared?.length ?? 0);
  }
}

/** A held entry: a live object, or frozen text. */
export type HeldEntry<E extends EntryShape> = E | FrozenEntry;

/** Whether an entry may be frozen: no attempt of it is under way. */
export function atRest(entry: EntryShape): boolean {
  return !LIVE.has(entry.status);
}

/**
 * The entry as frozen text. The result's `last_verifier` and every attempt `verification` with the same JSON text
 * are written once.
 */
export function freezeEntry(entry: EntryShape): FrozenEntry {
  const lv = entry.result?.last_verifier;
  if (!lv) return new FrozenEntry([JSON.stringify(entry)], null);
  const shared = JSON.stringify(lv);
  let marked = 0;
  const text = JSON.stringify(entry, function (key, value) {
    if ((key === "verification" || key === "last_verifier") && value !== null && typeof value === "object") {
      if (value === lv || JSON.stringify(value) === shared) {
        marked++;
        return MARK;
      }
    }
    return value;
  });
  const parts = text.split(MARK_JSON);
  if (parts.length - 1 !== marked) return new FrozenEntry([JSON.stringify(entry)], null);
  return new FrozenEntry(parts, shared);
}

/** A fresh object of the entry (a frozen one is decoded; a live one is the object itself). */
export function thawEntry<E extends EntryShape>(held: HeldEntry<E>): E {
  return held instanceof FrozenEntry ? JSON.parse(held.text()) as E : held;
}

/**
 * The pieces of `state.json` (compact JSON, the same text `JSON.stringify` of the whole document gives, prompts in the
 * order held) and a final newline.
 */
export function* docPieces<E extends EntryShape>(
  head: Record<string, unknown>,
  entries: ReadonlyMap<string, HeldEntry<E>>,
): Generator<string> {
  const top = JSON.stringify(head);
  yield top.length > 2 ? `${top.slice(0, -1)},"prompts":{` : `{"prompts":{`;
  let first = true;
  for (const [id, held] of entries) {
    yield `${first ? "" : ","}${JSON.stringify(id)}:`;
    first = false;
    if (held instanceof FrozenEntry) yield* held.pieces();
    else yield JSON.stringify(held);
  }
  yield "}}\n";
}
