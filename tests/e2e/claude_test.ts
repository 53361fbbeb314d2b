/** End-to-end cases of docs/reference/providers.md §7.9 with the real `claude` CLI against the fake Anthropic server. */
import { defineLaneSuite } from "./_suite.ts";

defineLaneSuite("claude");
