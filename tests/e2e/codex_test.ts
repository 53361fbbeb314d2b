/**
 * End-to-end cases of docs/reference/providers.md §7.9 with the real `codex` CLI against the fake OpenAI server; the
 * steer cases again over the `app_server` transport (docs/reference/providers.md §3.1).
 */
import { defineLaneSuite } from "./_suite.ts";
import { defineSteerTransportSuite } from "./_steer_transports.ts";

defineLaneSuite("codex");
defineSteerTransportSuite("codex", "app_server", { codex_opts: { app_server: true } });
