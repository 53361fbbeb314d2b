import assert from "node:assert/strict";
import { tempDir, writeFiles } from "../support/fs.ts";
import { oneItem } from "./_helpers.ts";

Deno.test("source_absent over a repo holding the store root never reads the store (steers, transcripts, logs)", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, {
    "src/main.ts": "export const ok = 1;\n",
    // What a steer and a session leave in a packet-local store root inside the repo (docs/audit.md).
    "packet/.prompt_runner/interventions/01.jsonl": '{"text":"never write XYZZY anywhere"}\n',
    "packet/.prompt_runner/control/log.jsonl": '{"params":{"text":"never write XYZZY anywhere"}}\n',
    "packet/.prompt_runner/logs/prompt-01.log": "assistant: I removed XYZZY\n",
  });
  const item = await oneItem(dir.path, { source_absent: { path: ".", patterns: ["XYZZY"] } });
  assert.equal(item.status, "pass", JSON.stringify(item.findings));
  assert.equal(item.files_checked, 1);
});

Deno.test("source_absent still scans the store root when the entry names a path inside it", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, { "packet/.prompt_runner/notes/a.txt": "XYZZY\n" });
  const item = await oneItem(dir.path, { source_absent: { path: "packet/.prompt_runner/notes", patterns: ["XYZZY"] } });
  assert.equal(item.status, "fail");
});
