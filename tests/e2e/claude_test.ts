/** End-to-end cases of docs/reference/providers.md §7.9 with the real `claude` CLI against the fake Anthropic server. */
import { defineLaneSuite } from "./_suite.ts";
import { defineSteerTransportSuite } from "./_steer_transports.ts";

defineLaneSuite("claude");
// The same CLI over its stream-json input transport: in-turn steers and in-process interrupts.
defineSteerTransportSuite("claude", "stream_json", { claude_opts: { transport: "stream_json" } });
