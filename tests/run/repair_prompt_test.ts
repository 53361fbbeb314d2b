import assert from "node:assert/strict";
import { repairPrompt, repairSection } from "../../src/run/repair_prompt.ts";
import type { ReportItem, VerifyReport } from "../../src/contract/types.ts";

function item(over: Partial<ReportItem>): ReportItem {
  return {
    id: "files_exist#1",
    clause: "files_exist",
    kind: "file_exists",
    repo: "app",
    status: "pass",
    pass: true,
    fault: null,
    details: "ok",
    ...over,
  };
}

function report(items: ReportItem[]): VerifyReport {
  const failed = items.filter((i) => i.status === "fail");
  return {
    schema: "prompt_runner.verify_report/v1",
    prompt_id: "02",
    run_id: null,
    source: "attempt",
    attempt: 1,
    verified_at: "2026-11-30T12:00:00.000Z",
    status: failed.length ? "fail" : "pass",
    pass: failed.length === 0,
    counts: { items: items.length, passed: items.length - failed.length, failed: failed.length, faulted: 0 },
    items,
    failures: failed.map((i) => i.id),
    faults: [],
    amendments: [],
    contract_digest: "sha256:x",
  };
}

Deno.test("repairPrompt() renders the docs/reference/runner.md §8 example exactly after the original body", () => {
  const r = report([
    item({ id: "files_exist#1", path: "hello.txt" }),
    item({ id: "files_exist#2", path: "hello.meta.txt", status: "fail", pass: false, details: "missing" }),
    item({ id: "changed_paths_only@app", clause: "changed_paths_only", kind: "changed_paths_only" }),
  ]);
  const text = repairPrompt({
    body: "# Create hello\n\nDo it.\n",
    pass: 1,
    max: 2,
    lastError: "verification failed: file_exists hello.meta.txt: missing",
    report: r,
  });
  assert.equal(
    text,
    `# Create hello

Do it.

## Repair pass 1 of 2

The previous session ended, and its changes are still in the workspace. Continue from the current state and fix
only the unmet checks below. Do not redo work that already passes, and do not edit or weaken the checks.

### Last error
verification failed: file_exists hello.meta.txt: missing

### Unmet checks
- files_exist#2
  kind: file_exists
  repo: app
  path: hello.meta.txt
  output:
      missing

### Satisfied checks
files_exist#1, changed_paths_only@app
`,
  );
});

Deno.test("repairSection() keeps the last 40 detail lines, shows command and cwd, and says none recorded", () => {
  const details = Array.from({ length: 45 }, (_, i) => `line ${i + 1}`).join("\n");
  const r = report([
    item({
      id: "commands#1",
      clause: "commands",
      kind: "command",
      repo: null,
      command: "deno test",
      cwd: "/w",
      status: "fail",
      pass: false,
      details,
    }),
  ]);
  const text = repairSection({ pass: 2, max: 2, lastError: null, report: r });
  assert.match(text, /^## Repair pass 2 of 2\n/);
  assert.match(text, /### Last error\nnone recorded\n/);
  assert.match(
    text,
    / {2}command: deno test\n {2}cwd: \/w\n {2}output:\n {6}\[… 5 earlier lines omitted\]\n {6}line 6\n/,
  );
  assert.ok(!text.includes("line 5\n"));
  assert.ok(!text.includes("  repo:"), "empty fields are omitted");
  assert.match(text, /### Satisfied checks\nnone\n$/);
});
