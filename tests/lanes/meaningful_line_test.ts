import assert from "node:assert/strict";
import { meaningfulLine } from "../../src/lanes/cli_session.ts";
import { retryLine } from "../../src/run/output.ts";

Deno.test("meaningfulLine: a Rust backtrace after the CLI's error yields the error, never a frame", () => {
  const stderr = [
    "WARNING: proceeding, even though we could not create PATH aliases",
    "Error: thread/resume: thread/resume failed: no rollout found for thread id 01a2 (code -32600)",
    "",
    "Stack backtrace:",
    "   0: anyhow::error::<impl anyhow::Error>::msg",
    "   8: std::rt::lang_start_internal",
    "   9: <unknown>",
  ].join("\n");
  assert.equal(
    meaningfulLine(stderr),
    "Error: thread/resume: thread/resume failed: no rollout found for thread id 01a2 (code -32600)",
  );
});

Deno.test("meaningfulLine: a panic's message line wins over its boilerplate and frames", () => {
  const stderr = [
    "thread 'main' panicked at src/main.rs:12:5:",
    "session file is missing",
    "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace",
  ].join("\n");
  assert.equal(meaningfulLine(stderr), "session file is missing");
  assert.equal(
    meaningfulLine("No conversation found with session ID: abc\n"),
    "No conversation found with session ID: abc",
  );
  assert.equal(meaningfulLine(""), "");
});

Deno.test("retryLine: the provider's own message follows the spec line (first line, shortened)", () => {
  assert.equal(
    retryLine("03", "provider_capacity", 2, 1800, "API Error: 529 Overloaded\nmore detail"),
    "Retrying prompt 03 after provider_capacity (attempt 2, in 1.8s)… — API Error: 529 Overloaded",
  );
  assert.equal(retryLine("03", "unknown", 4, 0, ""), "Retrying prompt 03 after unknown (attempt 4, in 0.0s)…");
  const long = retryLine("03", "unknown", 2, 0, "x".repeat(1000));
  assert.ok(long.length < 320 && long.endsWith("…"));
});
