import assert from "node:assert/strict";
import { parseOverrides, parseSelection } from "../../src/cli/selection_flags.ts";
import { UsageError } from "../../src/errors.ts";

Deno.test("parseSelection() reads ids, phase, remaining, from and through", () => {
  assert.deepEqual(parseSelection({ phase: "2", remaining: true, from: "3", through: "05" }, ["1"]), {
    ids: ["1"],
    phase: 2,
    remaining: true,
    from: "3",
    through: "05",
  });
  assert.throws(() => parseSelection({ phase: "two" }, []), UsageError);
});

Deno.test("parseOverrides() normalises values and rejects invalid ones as usage errors", () => {
  assert.deepEqual(
    parseOverrides({
      provider: "codex_sdk",
      model: "m",
      "permission-mode": "bypassPermissions",
      timeout: "10m",
      "retry-attempts": "2",
      "repair-attempts": "0",
      "max-steers": "5",
      "log-mode": "studio",
      thinking: "hide",
    }),
    {
      provider: "codex",
      model: "m",
      permission_mode: "bypass",
      timeout_ms: 600000,
      retry_attempts: 2,
      repair_attempts: 0,
      max_steers: 5,
      log_mode: "studio",
      thinking: "hide",
    },
  );
  for (const bad of [{ provider: "x" }, { diff: "huge" }, { timeout: "soon" }, { "retry-attempts": "-1" }]) {
    assert.throws(() => parseOverrides(bad), (e: unknown) => e instanceof UsageError && e.exit === 2);
  }
});
