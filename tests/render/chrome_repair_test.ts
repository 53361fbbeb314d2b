/** The header of a repair attempt previews the repair section, not the first 10 lines of the decorated prompt. */
import assert from "node:assert/strict";
import { renderHeader } from "../../src/render/mod.ts";
import { repairPrompt } from "../../src/run/repair_prompt.ts";
import type { VerifyReport } from "../../src/contract/types.ts";

const REPORT = {
  items: [
    {
      id: "files_exist#1",
      clause: "files_exist",
      kind: "file_exists",
      repo: "app",
      path: "a.txt",
      status: "pass",
      details: "ok",
    },
    {
      id: "files_exist#2",
      clause: "files_exist",
      kind: "file_exists",
      repo: "app",
      path: "b.txt",
      status: "fail",
      details: "missing",
    },
    {
      id: "commands#1",
      clause: "commands",
      kind: "command",
      repo: "app",
      command: "make \x1b[2Jcheck",
      status: "fail",
      details: "exit 2\nmany\nlines",
    },
  ],
} as unknown as VerifyReport;

Deno.test("renderHeader() of a repair: the original preview, then the repair heading, last error and unmet checks", () => {
  const original = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
  const body = repairPrompt({
    body: original,
    pass: 1,
    max: 2,
    lastError: "verification failed: b.txt",
    report: REPORT,
  });
  const text = renderHeader(
    {
      promptId: "02",
      name: "Pair",
      attempt: 2,
      mode: "repair",
      promptFile: null,
      project: null,
      provider: "simulated",
      model: null,
      logFile: null,
      body,
    },
    "compact",
    false,
  );
  const preview = text.slice(text.indexOf("Prompt preview"));
  assert.equal(
    preview,
    [
      "Prompt preview (first 10 lines):",
      ...Array.from({ length: 10 }, (_, i) => `  line ${i + 1}`),
      "  …",
      "",
      "Repair section (appended to the prompt):",
      "  ## Repair pass 1 of 2",
      "  ### Last error",
      "  verification failed: b.txt",
      "  ### Unmet checks",
      "  - files_exist#2",
      "    path: b.txt",
      "  - commands#1",
      "    command: make \\x1b[2Jcheck",
      "",
      "Starting simulated session…",
      "",
    ].join("\n"),
  );
});
