import assert from "node:assert/strict";
import { CLAUDE_FAILURE_HINTS } from "../../src/lanes/claude.ts";
import { ANTIGRAVITY_FAILURE_HINTS } from "../../src/lanes/antigravity.ts";
import { CURSOR_FAILURE_HINTS } from "../../src/lanes/cursor.ts";
import { classifyHint, type FailureHint, statusInMessage } from "../../src/lanes/hints.ts";

const facts = (status: number | null, kind: string, message: string) => ({ status, kind, message });

Deno.test("classifyHint() requires every present field to match and takes the first hit", () => {
  const hints: FailureHint[] = [
    { class: "a", status: [400], message: /model/ },
    { class: "b", statusRange: [500, 599] },
    { class: "c", kind: /^x$/ },
  ];
  assert.equal(classifyHint(hints, facts(400, "k", "bad model"))?.class, "a");
  assert.equal(classifyHint(hints, facts(400, "k", "bad request")), null);
  assert.equal(classifyHint(hints, facts(600, "k", "")), null);
  assert.equal(classifyHint(hints, facts(503, "k", ""))?.class, "b");
  assert.equal(classifyHint(hints, facts(null, "x", ""))?.class, "c");
  assert.equal(classifyHint([{ class: "empty" }], facts(null, "x", "y")), null);
});

Deno.test("claude failure hints follow docs/reference/providers.md §2", () => {
  const c = (status: number | null, kind: string, message = "") =>
    classifyHint(CLAUDE_FAILURE_HINTS, facts(status, kind, message))?.class ?? null;
  assert.equal(c(401, "http_401"), "provider_auth_claim");
  assert.equal(c(403, "http_403"), "provider_auth_claim");
  assert.equal(c(null, "error", "authentication_error: invalid x-api-key"), "provider_auth_claim");
  assert.equal(c(429, "http_429"), "provider_rate_limit");
  // 500 is capacity like codex's "high demand" 500: the same fault has the same class on every lane.
  for (const s of [529, 502, 503, 500]) assert.equal(c(s, `http_${s}`), "provider_capacity");
  assert.equal(c(null, "error", "overloaded_error"), "provider_capacity");
  assert.equal(c(404, "http_404", "model: claude-nope not found"), "provider_config_claim");
  assert.equal(c(400, "http_400", "invalid model name"), "provider_config_claim");
  assert.equal(c(400, "http_400", "prompt too long"), null);
  assert.equal(c(501, "http_501"), "provider_runtime_claim");
  assert.equal(c(null, "error_max_turns"), "provider_runtime_claim");
});

Deno.test("cursor and antigravity hints map their documented words", () => {
  const cur = (m: string) => classifyHint(CURSOR_FAILURE_HINTS, facts(null, "error", m))?.class ?? null;
  assert.equal(cur("Please log in with agent login"), "provider_auth_claim");
  assert.equal(cur("Rate limit exceeded"), "provider_rate_limit");
  assert.equal(cur("Unknown model gpt-9"), "provider_config_claim");
  const ag = (kind: string, m: string) => classifyHint(ANTIGRAVITY_FAILURE_HINTS, facts(null, kind, m))?.class ?? null;
  assert.equal(ag("error", "UNAUTHENTICATED: sign in"), "provider_auth_claim");
  assert.equal(ag("UNAVAILABLE", "backend down"), "provider_capacity");
  assert.equal(ag("NOT_FOUND", "model gemini-x not found"), "provider_config_claim");
  assert.equal(ag("NOT_FOUND", "file missing"), null);
  assert.equal(ag("error", "DEADLINE_EXCEEDED"), "transport_timeout");
});

Deno.test("statusInMessage() finds HTTP statuses in provider texts", () => {
  assert.equal(statusInMessage("exceeded retry limit, last status: 429 Too Many Requests"), 429);
  assert.equal(statusInMessage("unexpected status 401 Unauthorized: {}"), 401);
  assert.equal(statusInMessage("API Error: 529 overloaded"), 529);
  assert.equal(statusInMessage("took 500 ms"), null);
});
