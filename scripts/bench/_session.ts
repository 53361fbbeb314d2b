/** A lane session over a given event stream, for benchmarks that drive the real pump without a provider process. */
import type { ProviderEvent } from "../../src/events/mod.ts";
import { type LaneSession, TRANSPORT_CAPABILITIES } from "../../src/lanes/mod.ts";

/** A ready session that yields `events` and ends `ok`; interrupt and kill do nothing. */
export function benchSession(events: AsyncIterable<ProviderEvent>, sessionId: string): LaneSession {
  return {
    events,
    sessionId,
    isReady: () => true,
    whenReady: () => Promise.resolve(),
    interrupt: () => Promise.resolve(),
    kill: () => {},
    end: () => ({ kind: "ok" }),
    process: null,
    transport: TRANSPORT_CAPABILITIES.exec,
  };
}
