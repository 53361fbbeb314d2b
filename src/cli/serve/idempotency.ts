/**
 * `Idempotency-Key` on the API's writes (docs/reference/http_api.md §4, "Retrying a write"): a client that lost the
 * answer to a write (a dropped connection, a proxy's timeout) sends it again with the same key, and gets the first
 * write's answer instead of a second write — a steer retried this way is delivered, and spends the budget, once.
 *
 * A key is remembered per token name, target and endpoint for {@link IDEMPOTENCY_TTL_MS}, in this server's memory (a
 * restarted server does not know the keys of the one before), at most {@link IDEMPOTENCY_MAX} of them (the oldest go
 * first). The same key with another body is refused (422 `idempotency_key_reused`): it names another write, and
 * guessing which one was meant is not the server's to do. A first attempt that failed is forgotten, so its retry
 * writes.
 */
import { canonicalJson } from "../../contract/mod.ts";

/** How long a key is remembered. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** How many keys are remembered at most. */
export const IDEMPOTENCY_MAX = 10_000;

/** The characters and length of a key. */
const KEY = /^[A-Za-z0-9._:-]{1,128}$/;

/** A write's answer as the server sends it. */
export interface WriteAnswer {
  status: number;
  body: unknown;
}

interface Remembered {
  fingerprint: string;
  at: number;
  answer: Promise<WriteAnswer>;
}

/** What {@link IdempotencyStore.run} did: wrote (`replayed: false`) or answered a write made before. */
export interface Settled {
  answer: WriteAnswer;
  replayed: boolean;
}

/** The header's key; null without the header; `invalid` when it is not 1 to 128 of `A-Z a-z 0-9 . _ : -`. */
export function idempotencyKeyOf(req: Request): string | null | "invalid" {
  const raw = req.headers.get("idempotency-key");
  if (raw === null) return null;
  return KEY.test(raw) ? raw : "invalid";
}

/** The fingerprint of a write's body: its fields but `wait_ms` (how long to wait is not what is written). */
export async function fingerprintOf(kind: string, body: Record<string, unknown>): Promise<string> {
  const { wait_ms: _wait, ...fields } = body;
  const bytes = new TextEncoder().encode(canonicalJson({ kind, fields }));
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(hash, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The keys of one server (see the module note). */
export class IdempotencyStore {
  readonly #entries = new Map<string, Remembered>();

  constructor(
    private readonly ttlMs = IDEMPOTENCY_TTL_MS,
    private readonly max = IDEMPOTENCY_MAX,
    private readonly now: () => number = Date.now,
  ) {}

  /** Keys remembered now (tests). */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * Run the write `write` once for `scope`: a first call runs it; a later call with the same fingerprint, while the
   * first is in flight or after it answered, gets its answer (`replayed`); another fingerprint is `conflict`.
   */
  run(scope: string, fingerprint: string, write: () => Promise<WriteAnswer>): Promise<Settled> | "conflict" {
    this.#prune();
    const known = this.#entries.get(scope);
    if (known !== undefined) {
      if (known.fingerprint !== fingerprint) return "conflict";
      return known.answer.then((answer) => ({ answer, replayed: true }));
    }
    const answer = write();
    const entry: Remembered = { fingerprint, at: this.now(), answer };
    this.#entries.set(scope, entry);
    // A write that failed wrote nothing the client can name: forgotten, so that its retry writes.
    answer.catch(() => {
      if (this.#entries.get(scope) === entry) this.#entries.delete(scope);
    });
    return answer.then((a) => ({ answer: a, replayed: false }));
  }

  #prune(): void {
    const oldest = this.now() - this.ttlMs;
    for (const [scope, e] of this.#entries) {
      if (e.at > oldest && this.#entries.size < this.max) break;
      this.#entries.delete(scope);
    }
  }
}
