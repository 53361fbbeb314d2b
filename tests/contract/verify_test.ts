import assert from "node:assert/strict";
import { tempDir, writeFiles } from "../support/fs.ts";
import { ctxFor } from "./_helpers.ts";
import { verifyContract } from "../../src/contract/verify.ts";
import { canonicalJson, sha256Digest } from "../../src/contract/canonical.ts";
import type { AmendmentRecord, Contract } from "../../src/contract/types.ts";

Deno.test("verifyContract() builds the docs/reference/contract.md §7 report with ordered items, counts, failures and faults", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, { "hello.txt": "hello\n" });
  const contract: Contract = {
    commands: [{ exec: "definitely-not-a-real-tool-x9", timeout_ms: 1000 }],
    contains: [{ path: "hello.txt", text: "hello" }],
    files_exist: ["hello.txt", "hello.meta.txt"],
  };
  const amendment: AmendmentRecord = {
    id: "am-1",
    at: "2026-11-30T12:10:03.201Z",
    prompt: "01",
    author: "ada",
    reason: "r",
    phase: "pre_verify",
    direction: "add",
    clause: "files_exist",
    operation: "add",
    entries: ["hello.meta.txt"],
    run_id: null,
    persisted: false,
    prompt_file: "prompts/01_x.prompt.md",
  };
  const report = await verifyContract(contract, ctxFor(dir.path, { runId: "R1", source: "attempt", attempt: 2 }), [
    amendment,
  ]);
  assert.equal(report.schema, "prompt_runner.verify_report/v1");
  assert.equal(report.prompt_id, "01");
  assert.equal(report.run_id, "R1");
  assert.equal(report.source, "attempt");
  assert.equal(report.attempt, 2);
  assert.deepEqual(report.items.map((i) => i.id), ["files_exist#1", "files_exist#2", "contains#1", "commands#1"]);
  assert.deepEqual(report.counts, { items: 4, passed: 2, failed: 1, faulted: 1 });
  assert.deepEqual(report.failures, ["files_exist#2"]);
  assert.deepEqual(report.faults, ["commands#1"]);
  assert.equal(report.status, "fault");
  assert.equal(report.pass, false);
  assert.deepEqual(report.amendments, [amendment]);
  assert.match(report.verified_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.equal(report.contract_digest, await sha256Digest(contract));
});

Deno.test("verifyContract() passes an empty contract with zero items and skips unknown clauses", async () => {
  await using dir = await tempDir();
  const empty = await verifyContract({}, ctxFor(dir.path), []);
  assert.equal(empty.status, "pass");
  assert.equal(empty.pass, true);
  assert.deepEqual(empty.counts, { items: 0, passed: 0, failed: 0, faulted: 0 });
  const unknown = await verifyContract({ file_exist: ["x"] }, ctxFor(dir.path), []);
  assert.equal(unknown.items.length, 0);
  assert.equal(unknown.status, "pass");
});

Deno.test("verifyContract() status is fail when items fail and none fault", async () => {
  await using dir = await tempDir();
  const report = await verifyContract({ files_exist: ["a"], files_absent: ["b"] }, ctxFor(dir.path), []);
  assert.equal(report.status, "fail");
  assert.deepEqual(report.counts, { items: 2, passed: 1, failed: 1, faulted: 0 });
});

Deno.test("sha256Digest() hashes sorted-key canonical JSON", async () => {
  assert.equal(canonicalJson({ b: [{ d: 1, c: 2 }], a: "x" }), '{"a":"x","b":[{"c":2,"d":1}]}');
  assert.equal(await sha256Digest({ b: 1, a: 2 }), await sha256Digest({ a: 2, b: 1 }));
  assert.match(await sha256Digest({}), /^sha256:[0-9a-f]{64}$/);
  // The digest of the canonical text itself, computed or remembered alike.
  const text = canonicalJson({ z: [1, { y: "é", x: null }] });
  const hex = Array.from(
    new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
  for (let i = 0; i < 3; i++) assert.equal(await sha256Digest({ z: [1, { x: null, y: "é" }] }), `sha256:${hex}`);
  for (let i = 0; i < 300; i++) await sha256Digest({ n: i }); // past the memo's bound: emptied, still right
  assert.equal(await sha256Digest({ z: [1, { x: null, y: "é" }] }), `sha256:${hex}`);
  assert.equal(
    await sha256Digest({}),
    "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a",
  );
});
