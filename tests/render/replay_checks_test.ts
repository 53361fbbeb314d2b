/** `replay` of a `verification_finished` event: named checks when the event carries them, report ids otherwise. */
import assert from "node:assert/strict";
import type { Envelope } from "../../src/events/types.ts";
import { replayEvents } from "../../src/render/replay.ts";
import { envelope } from "./_fixtures.ts";
import { failedCommandCheck, missingFileCheck } from "../support/check_fixtures.ts";

const OPTS = { view: null, color: false, tty: false, diff_max_lines: 60, tool_output_max_lines: 20, pathDiffFor: null };

function failed(extra: Record<string, unknown>): Envelope {
  return envelope("verification_finished", {
    source: "attempt",
    status: "fail",
    counts: { items: 3, passed: 1, failed: 2, faulted: 0 },
    failures: ["files_exist#2", "commands#1"],
    faults: [],
    ...extra,
  }, { origin: "runner", prompt_id: "02", attempt: 1, stream: null });
}

Deno.test("replay names each failing check: clause, path or command, verdict, output tail", () => {
  const checks = [
    missingFileCheck("b.txt"),
    failedCommandCheck("deno test", "exit 1", ["FAILED | 1 passed | 1 failed"], 12),
  ];
  const r = replayEvents([failed({ checks })], OPTS);
  assert.equal(
    r.output,
    "Verification failed for prompt 02\n" +
      "  ✗ files_exist b.txt: missing\n" +
      "  ✗ commands deno test: exit 1\n" +
      "      … (12 earlier lines)\n" +
      "      │ FAILED | 1 passed | 1 failed\n",
  );
});

Deno.test("replay of a stream recorded before checks were named still lists the report ids", () => {
  const r = replayEvents([failed({})], OPTS);
  assert.equal(r.output, "Verification failed for prompt 02: files_exist#2, commands#1\n");
});
