import assert from "node:assert/strict";
import { faultLines, reportSummary } from "../../src/contract/report.ts";
import type { ReportItem, VerifyReport } from "../../src/contract/types.ts";

function report(items: ReportItem[]): VerifyReport {
  const failures = items.filter((i) => i.status === "fail").map((i) => i.id);
  const faults = items.filter((i) => i.status === "fault").map((i) => i.id);
  const status = faults.length ? "fault" : failures.length ? "fail" : "pass";
  return {
    schema: "prompt_runner.verify_report/v1",
    prompt_id: "03",
    run_id: null,
    source: "manual",
    attempt: null,
    verified_at: "2026-11-30T12:00:00.000Z",
    status,
    pass: status === "pass",
    counts: { items: items.length, passed: 0, failed: failures.length, faulted: faults.length },
    items,
    failures,
    faults,
    amendments: [],
    contract_digest: "sha256:x",
  };
}

const missing: ReportItem = {
  id: "files_exist#2",
  clause: "files_exist",
  kind: "file_exists",
  repo: "app",
  path: "hello.meta.txt",
  status: "fail",
  pass: false,
  fault: null,
  details: "missing",
};
const ok: ReportItem = {
  ...missing,
  id: "files_exist#1",
  path: "hello.txt",
  status: "pass",
  pass: true,
  details: "ok",
};
const cmdFault: ReportItem = {
  id: "commands#1",
  clause: "commands",
  kind: "command",
  repo: "app",
  command: "bin/check_doc.sh",
  cwd: "/home/ada/src/app",
  exit_code: 127,
  status: "fault",
  pass: false,
  fault: "verifier_fault",
  details: "command not found\nbash: bin/check_doc.sh: No such file",
};
const gitFault: ReportItem = {
  id: "changed_paths_only@app",
  clause: "changed_paths_only",
  kind: "changed_paths_only",
  repo: "app",
  status: "fault",
  pass: false,
  fault: "verifier_fault",
  details: "git status failed: fatal: bad",
};

Deno.test("reportSummary() lists each non-passing item with the first line of its details", () => {
  assert.equal(reportSummary(report([ok, missing])), "verification failed: file_exists hello.meta.txt: missing");
  assert.equal(
    reportSummary(report([missing, cmdFault])),
    "verifier fault: file_exists hello.meta.txt: missing; command bin/check_doc.sh: command not found",
  );
  assert.equal(reportSummary(report([ok])), "verification passed");
});

Deno.test("faultLines() formats command and other faults as in docs/reference/contract.md §8", () => {
  assert.deepEqual(faultLines(report([ok, cmdFault, gitFault])), [
    'verifier_fault exit=127 (command not found) cwd=/home/ada/src/app command="bin/check_doc.sh"',
    "verifier_fault changed_paths_only app: git status failed: fatal: bad",
  ]);
  const noExit: ReportItem = {
    ...cmdFault,
    exit_code: null,
    cwd: "",
    fault: "verifier_timeout",
    details: "timed out after 5 ms",
  };
  assert.deepEqual(faultLines(report([noExit])), [
    'verifier_timeout exit=- (timed out after 5 ms) cwd=? command="bin/check_doc.sh"',
  ]);
});

Deno.test("reportSummary() and faultLines() skip the output-truncated marker to show the headline", () => {
  const truncated: ReportItem = {
    ...cmdFault,
    fault: "verifier_timeout",
    exit_code: null,
    details: "[output truncated: 12 earlier bytes dropped]\ntimed out after 5 ms\ntail",
  };
  assert.equal(reportSummary(report([truncated])), "verifier fault: command bin/check_doc.sh: timed out after 5 ms");
  assert.deepEqual(faultLines(report([truncated])), [
    'verifier_timeout exit=- (timed out after 5 ms) cwd=/home/ada/src/app command="bin/check_doc.sh"',
  ]);
});
