import assert from "node:assert/strict";
import {
  type HeaderInfo,
  logHeader,
  logMarker,
  promptOutcomeLine,
  renderHeader,
  steerNotice,
} from "../../src/render/mod.ts";
import { logHeaderPromptFile } from "../../src/render/chrome.ts";

const INFO: HeaderInfo = {
  promptId: "01",
  name: "Retry after provider capacity",
  attempt: 2,
  mode: "retry",
  promptFile: "prompts/01_retry_after_capacity.prompt.md",
  project: "/home/ada/src/app",
  provider: "simulated",
  model: "simulated-demo",
  logFile: ".prompt_runner/logs/prompt-01-20261130-120503.log",
  body: "# Retry after provider capacity\n\nDo the thing.\n",
};

Deno.test("renderHeader() prints the non-studio block of docs/reference/events-and-rendering.md §9", () => {
  assert.equal(
    renderHeader(INFO, "compact", false),
    [
      "=".repeat(60),
      "Prompt 01: Retry after provider capacity        attempt 2 (retry)",
      "=".repeat(60),
      "Prompt:   prompts/01_retry_after_capacity.prompt.md",
      "Project:  /home/ada/src/app",
      "Provider: simulated / simulated-demo",
      "Log:      .prompt_runner/logs/prompt-01-20261130-120503.log",
      "",
      "Prompt preview (first 10 lines):",
      "  # Retry after provider capacity",
      "",
      "  Do the thing.",
      "",
      "",
      "Starting simulated session…",
      "",
    ].join("\n"),
  );
});

Deno.test("renderHeader() previews at most 10 body lines and marks the rest", () => {
  const body = Array.from({ length: 14 }, (_, i) => `line ${i + 1}`).join("\n");
  const out = renderHeader({ ...INFO, body }, "verbose", false);
  assert.ok(out.includes("  line 10\n  …\n"));
  assert.ok(!out.includes("line 11"));
});

Deno.test("renderHeader() prints the studio block and leaves out unknown fields", () => {
  const out = renderHeader({ ...INFO, logFile: null, model: null }, "studio", false);
  assert.equal(
    out,
    [
      "━".repeat(60),
      "  Prompt 01: Retry after provider capacity  · attempt 2 (retry)",
      "━".repeat(60),
      "  Prompt   prompts/01_retry_after_capacity.prompt.md",
      "  Project  /home/ada/src/app",
      "  LLM      simulated",
      "",
    ].join("\n"),
  );
  const colored = renderHeader(INFO, "studio", true);
  assert.ok(colored.startsWith("\x1b[2m━"));
  assert.ok(colored.includes("\x1b[1m  Prompt 01: Retry after provider capacity  · attempt 2 (retry)\x1b[0m"));
  assert.ok(!renderHeader(INFO, "compact", false).includes("\x1b"));
});

Deno.test("steerNotice() prints the yellow and red ↳ lines", () => {
  assert.equal(
    steerNotice("accepted", "\nrun the failing test first\nthen fix", false),
    "↳ steer accepted: run the failing test first\n",
  );
  assert.equal(steerNotice("accepted", "x".repeat(150), false), `↳ steer accepted: ${"x".repeat(99)}…\n`);
  assert.equal(steerNotice("interrupting", "2", false), "↳ interrupting to deliver 2 steers…\n");
  assert.equal(steerNotice("interrupting", "1", false), "↳ interrupting to deliver 1 steer…\n");
  assert.equal(steerNotice("resuming", "", false), "↳ resuming the session with the steer\n");
  assert.equal(steerNotice("refused", "steer budget exhausted", false), "↳ steer refused: steer budget exhausted\n");
  assert.equal(steerNotice("resuming", "", true), "\x1b[1;33m↳ resuming the session with the steer\x1b[0m\n");
  assert.equal(steerNotice("refused", "no live session", true), "\x1b[0;31m↳ steer refused: no live session\x1b[0m\n");
});

Deno.test("promptOutcomeLine() and the log helpers use the docs/reference/runner.md formats", () => {
  assert.equal(promptOutcomeLine("03", "completed", false), "✓ Prompt 03 completed\n");
  assert.equal(promptOutcomeLine("03", "verification_failed", false), "✗ Prompt 03 verification failed\n");
  assert.equal(
    logHeader({
      provider: "claude",
      model: "sonnet",
      tools: null,
      cwd: "/w",
      promptFile: "/p/01.prompt.md",
      runId: "R",
      attempt: 1,
      mode: "run",
    }),
    "Session: provider=claude model=sonnet tools=n/a cwd=/w\nPrompt: /p/01.prompt.md\nRun: R attempt 1 (run)\n\n",
  );
  assert.equal(
    logMarker("STEER", { action: "interrupt", provider: "codex", count: 2 }),
    "STEER action=interrupt provider=codex count=2\n",
  );
});

Deno.test("logHeaderPromptFile() reads back the prompt file a log header names, and nothing from other text", () => {
  const header = (promptFile: string) =>
    logHeader({
      provider: "codex",
      model: null,
      tools: ["Bash"],
      cwd: "/w",
      promptFile,
      runId: "R",
      attempt: 2,
      mode: "repair",
    });
  for (const file of ["prompts/01_a.prompt.md", "steps/with space.prompt.md", "Prompt: odd.md"]) {
    assert.equal(logHeaderPromptFile(header(file) + "r+ codex\n--- 2 events ---\n"), file);
  }
  assert.equal(logHeaderPromptFile(header("")), null);
  assert.equal(logHeaderPromptFile("Prompt: prompts/01.prompt.md\nRun: R attempt 1 (run)\n"), null);
  assert.equal(logHeaderPromptFile("Session: provider=x\nPrompt: a.md\n"), null, "cut before the Run line");
  assert.equal(logHeaderPromptFile(""), null);
});
