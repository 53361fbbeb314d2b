/** End-to-end cases of docs/reference/providers.md §7.9 with the real `codex` CLI against the fake OpenAI server. */
import { defineLaneSuite } from "./_suite.ts";

defineLaneSuite("codex");
