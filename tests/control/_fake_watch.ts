/** Test doubles for directory watchers: a scripted `Deno.watchFs` stand-in and a settle-within helper. */
import { within } from "../support/wait.ts";
import { Wakeup } from "../../src/control/tail.ts";

/** A scripted stand-in for `Deno.watchFs`: events are pushed by the test; it can end or fail. */
export class FakeWatcher implements AsyncIterable<Deno.FsEvent> {
  #queue: Deno.FsEvent[] = [];
  #wake: (() => void) | null = null;
  #end: "open" | "ended" | Error = "open";
  closed = false;

  push(kind: Deno.FsEvent["kind"], flag?: Deno.FsEvent["flag"]): void {
    this.pushEvent({ kind, paths: ["/x/requests/r.json"], ...(flag ? { flag } : {}) });
  }
  /** Report one event as given. */
  pushEvent(event: Deno.FsEvent): void {
    this.#queue.push(event);
    this.#notify();
  }
  end(): void {
    this.#end = "ended";
    this.#notify();
  }
  fail(): void {
    this.#end = new Error("watch failed");
    this.#notify();
  }
  close(): void {
    this.closed = true;
    this.end();
  }
  #notify(): void {
    const w = this.#wake;
    this.#wake = null;
    w?.();
  }
  async *[Symbol.asyncIterator](): AsyncGenerator<Deno.FsEvent> {
    for (;;) {
      const e = this.#queue.shift();
      if (e) {
        yield e;
        continue;
      }
      if (this.#end instanceof Error) throw this.#end;
      if (this.#end === "ended") return;
      await new Promise<void>((r) => (this.#wake = r));
    }
  }
}

/** Resolves to true when `p` settles within `ms`. */
export function settlesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  return within(p.then(() => true), ms, false);
}

/** A follower's {@link Wakeup} on `/x/control` whose watchers are {@link FakeWatcher}s (each re-arm adds one). */
export function fakeWakeup(
  opts: { ignore?: (name: string) => boolean } = {},
): { wake: Wakeup; watchers: FakeWatcher[] } {
  const watchers: FakeWatcher[] = [];
  const wake = new Wakeup("/x/control", {
    rearmMs: 20,
    watchFs: () => {
      const w = new FakeWatcher();
      watchers.push(w);
      return w;
    },
    ...opts,
  });
  return { wake, watchers };
}
