import assert from "node:assert/strict";
import { tempDir } from "../support/fs.ts";
import { lines, PROMPT_01, writeDemoPacket } from "./_harness.ts";
import { amend, contract, ControlError, relax } from "../../src/control/mod.ts";
import { replaceVerifyBlock } from "../../src/control/persist.ts";
import { storePaths, storeRootForPacket } from "../../src/store/paths.ts";
import { exists } from "../../src/util/fs.ts";

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ControlError) return e.code;
    throw e;
  }
  return "ok";
}

async function verified(store: string, status: "pass" | "fail" | "fault") {
  await Deno.mkdir(store, { recursive: true });
  const rec = {
    at: new Date().toISOString(),
    run_id: null,
    prompt: "01",
    source: "manual",
    attempt: null,
    status,
    failures: [],
    contract_digest: "x",
  };
  await Deno.writeTextFile(`${store}/verifications.jsonl`, JSON.stringify(rec) + "\n", { append: true });
}

Deno.test("amend() records each timing class from the latest verification", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  const store = storeRootForPacket(dir);
  const a = await amend(dir, "1", { clause: "files_exist", entries: ["lib/a.ts"], reason: "scope fix", author: "ada" });
  assert.equal(a.phase, "pre_verify");
  assert.equal(a.prompt, "01");
  assert.equal(a.direction, "add");
  assert.equal(a.prompt_file, "prompts/01_first.prompt.md");
  assert.match(a.id, /^am-\d{8}T\d{6}\.\d{3}Z-[0-9a-f]{4}$/);
  await verified(store, "fail");
  assert.equal((await amend(dir, "01", { clause: "files_exist", entries: ["b"], reason: "r" })).phase, "post_failure");
  await verified(store, "fault");
  assert.equal((await relax(dir, "01", { clause: "contains", reason: "wrong", confirm: true })).phase, "post_failure");
  await verified(store, "pass");
  assert.equal((await amend(dir, "01", { clause: "files_exist", entries: ["c"], reason: "r" })).phase, "post_success");
  const p = storePaths(store);
  const recs = await lines(p.amendmentsFile("01"));
  assert.deepEqual(recs.map((r) => r.phase), ["pre_verify", "post_failure", "post_failure", "post_success"]);
  const log = await lines(p.log);
  assert.equal(log.length, 4);
  assert.equal(log[0]!.key, `amendment:${a.id}`);
  assert.equal(log[0]!.command, "amend");
  assert.equal(log[0]!.outcome, "applied");
  assert.equal(log[0]!.reason, "scope fix");
  assert.deepEqual(log[0]!.params, {
    clause: "files_exist",
    operation: "add",
    entries: ["lib/a.ts"],
    phase: "pre_verify",
    persisted: false,
    amendment_id: a.id,
  });
  assert.equal(log[2]!.command, "relax");
  // The enforced contract folds them; the packet file is untouched.
  const view = await contract(dir, "1");
  assert.deepEqual(view.enforced.files_exist, ["README.md", "lib/a.ts", "b", "c"]);
  assert.equal(view.enforced.contains, undefined);
  assert.deepEqual(view.diff.filter((d) => d.change !== "same").map((d) => `${d.change} ${d.clause}: ${d.entry}`), [
    'removed contains: path="docs/guide.md" text="## Usage"',
    "added files_exist: lib/a.ts",
    "added files_exist: b",
    "added files_exist: c",
  ]);
  assert.equal(await Deno.readTextFile(`${dir}/prompts/01_first.prompt.md`), PROMPT_01);
});

Deno.test("amend()/relax() validate in the docs/reference/control-plane.md §9.2 order, write no amendment on error, and log refusals", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  const store = storeRootForPacket(dir);
  assert.equal(await code(relax(dir, "99", { clause: "nope", reason: "", confirm: false })), "confirmation_required");
  assert.equal(await code(relax(dir, "99", { clause: "nope", reason: " ", confirm: true })), "reason_required");
  assert.equal(await code(amend(dir, "99", { clause: "nope", entries: [], reason: "" })), "reason_required");
  assert.equal(await code(amend(dir, "99", { clause: "nope", entries: [], reason: "r" })), "unknown_clause");
  assert.equal(await code(amend(dir, "99", { clause: "files_exist", entries: [], reason: "r" })), "prompt_not_found");
  assert.equal(await code(amend(dir, "1", { clause: "files_exist", entries: [], reason: "r" })), "no_entries");
  const bad = amend(dir, "1", { clause: "contains", entries: [{ path: "a" }, { nope: 1 }], reason: "r" });
  await assert.rejects(bad, (e: ControlError) => e.code === "invalid_entry" && e.details.index === 0);
  assert.equal(await code(amend(dir, "1", { clause: "files_exist", entries: ["ghost:x"], reason: "r" })), "ok");
  assert.equal(
    await code(amend(dir, "1", { clause: "files_exist", entries: [{ repo: "ghost", path: "x" }], reason: "r" })),
    "unknown_repo",
  );
  assert.equal(
    await code(amend(dir, "1", { clause: "files_exist", entries: ["../x"], reason: "r" })),
    "path_escapes_repo",
  );
  assert.equal(
    await code(amend(dir, "1", { clause: "files_exist", entries: [`${tmp.path}/x`], reason: "r" })),
    "path_escapes_repo",
  );
  await Deno.symlink(tmp.path, `${dir}/app/out`);
  assert.equal(
    await code(amend(dir, "1", { clause: "files_exist", entries: ["out/x"], reason: "r" })),
    "path_escapes_repo",
  );
  // Only the one valid call above wrote an amendment. Refusals before it had no plane to reach (no control
  // directory) and left nothing; the ones after it are on the record as `rejected`, with their reasons.
  assert.equal((await lines(storePaths(store).amendmentsFile("01"))).length, 1);
  const log = (await lines(storePaths(store).log)) as Record<string, unknown>[];
  assert.deepEqual(log.map((e) => [e.command, e.outcome, e.prompt_id]), [
    ["amend", "applied", "01"],
    ["amend", "rejected", "01"],
    ["amend", "rejected", "01"],
    ["amend", "rejected", "01"],
    ["amend", "rejected", "01"],
  ]);
  assert.equal(log[1]!.reason, 'entry 1 names repo "ghost", which the packet does not have');
  assert.deepEqual(log[1]!.params, {
    clause: "files_exist",
    entries: [{ repo: "ghost", path: "x" }],
    persist: false,
  });
  assert.equal(await exists(storePaths(store).amendmentsFile("99")), false);
});

Deno.test("amend({persist}) rewrites only the verify block, keeps every other byte, and the fold skips it", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  const file = `${dir}/prompts/01_first.prompt.md`;
  await Deno.chmod(file, 0o644);
  const r = await amend(dir, "1", { clause: "files_exist", entries: ["lib/new.ts"], reason: "r", persist: true });
  assert.equal(r.persisted, true);
  const text = await Deno.readTextFile(file);
  assert.equal(
    text,
    `---
id: 1
name: First
# a comment before verify
verify:
  files_exist:
    - README.md
    - lib/new.ts
  contains:
    - path: docs/guide.md
      text: "## Usage"

# a comment that belongs to commit
commit: "feat: first"
---
# First

Body text with verify: in it.
`,
  );
  assert.equal((await Deno.stat(file)).mode! & 0o777, 0o644);
  const view = await contract(dir, "1");
  assert.deepEqual(view.enforced.files_exist, ["README.md", "lib/new.ts"], "applied exactly once");
  // Persisted amendments stay visible: listed (with persisted: true), never folded twice.
  assert.deepEqual(view.amendments.map((a) => [a.id, a.persisted]), [[r.id, true]]);
  // Relax with persist drops the clause from the file.
  await relax(dir, "1", { clause: "contains", reason: "r", confirm: true, persist: true });
  assert.ok(!(await Deno.readTextFile(file)).includes("contains"));
  const after = await contract(dir, "1");
  assert.deepEqual(after.amendments.map((a) => [a.operation, a.persisted]), [["add", true], ["drop", true]]);
  assert.equal(after.enforced.contains, undefined);
  assert.ok((await Deno.readTextFile(file)).includes("# a comment that belongs to commit\ncommit:"));
});

Deno.test("replaceVerifyBlock() inserts a block before the closing --- when absent", () => {
  const out = replaceVerifyBlock("---\nid: 2\n---\nbody\n", { files_exist: ["a"] });
  assert.equal(out, "---\nid: 2\nverify:\n  files_exist:\n    - a\n---\nbody\n");
  assert.throws(() => replaceVerifyBlock("no front matter\n", {}), SyntaxError);
});

Deno.test("contract() reports prompt_not_found for an unknown id", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  assert.equal(await code(contract(dir, "7")), "prompt_not_found");
});

Deno.test("contract() addresses a run ref through the packet its store names, and refuses a store that names none", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  const store = storeRootForPacket(dir);
  await amend(dir, "1", { clause: "files_exist", entries: ["lib/a.ts"], reason: "scope fix" });
  // The store layout (store.json) is read only for this form of target.
  await Deno.writeTextFile(storePaths(store).storeJson, JSON.stringify({ kind: "packet", packet_dir: dir }));
  const view = await contract({ storeRoot: store, runId: "20260101T000000Z-ABCDEF" }, "1");
  assert.deepEqual(view.enforced.files_exist, ["README.md", "lib/a.ts"]);
  const bare = `${tmp.path}/bare-store`;
  await Deno.mkdir(bare);
  assert.equal(await code(contract({ storeRoot: bare, runId: "20260101T000000Z-ABCDEF" }, "1")), "target_not_found");
});

Deno.test("relax refuses a no-op: --remove of an entry not required (entry_not_required), --replace with no entries", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  const store = storeRootForPacket(dir);
  const opts = { reason: "r", confirm: true };
  assert.equal(
    await code(relax(dir, "01", { ...opts, clause: "files_exist", operation: "remove", entries: ["NOT_THERE.md"] })),
    "entry_not_required",
  );
  assert.equal(
    await code(relax(dir, "01", { ...opts, clause: "files_exist", operation: "replace", entries: [] })),
    "no_entries",
  );
  assert.equal(await exists(storePaths(store).amendmentsFile("01")), false, "nothing recorded");
  // Removing what is required still works, once.
  const r = await relax(dir, "01", { ...opts, clause: "files_exist", operation: "remove", entries: ["README.md"] });
  assert.equal(r.operation, "remove");
  assert.equal(
    await code(relax(dir, "01", { ...opts, clause: "files_exist", operation: "remove", entries: ["README.md"] })),
    "entry_not_required",
  );
});

Deno.test("replaceVerifyBlock() replaces the whole block when a column-0 comment sits inside it", () => {
  const text =
    "---\nid: 1\nverify:\n  files_exist: [a]\n# content check\n  contains: [{path: a, text: x}]\nname: n\n---\nbody\n";
  assert.equal(
    replaceVerifyBlock(text, { files_exist: ["a"] }),
    "---\nid: 1\nverify:\n  files_exist:\n    - a\nname: n\n---\nbody\n",
  );
  // A comment before the next top-level key stays where it is.
  assert.equal(
    replaceVerifyBlock("---\nverify:\n  files_exist: [a]\n# about name\nname: n\n---\n", { files_exist: ["b"] }),
    "---\nverify:\n  files_exist:\n    - b\n# about name\nname: n\n---\n",
  );
});

Deno.test("relax({persist}) never records a write-back the file does not show", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  const file = `${dir}/prompts/01_first.prompt.md`;
  const text = await Deno.readTextFile(file);
  // A layout the write-back cannot follow: the verify map written in flow style over two lines.
  const odd = text.replace(
    /verify:\n( {2}.*\n)+/,
    'verify: {files_exist: [README.md],\ncontains: [{path: docs/guide.md, text: "## Usage"}]}\n',
  );
  assert.notEqual(odd, text);
  await Deno.writeTextFile(file, odd);
  const r = relax(dir, "1", { clause: "contains", operation: "drop", reason: "r", confirm: true, persist: true });
  assert.equal(await code(r), "invalid_entry");
  assert.equal(await Deno.readTextFile(file), odd);
  assert.equal(await exists(storePaths(storeRootForPacket(dir)).amendmentsFile("01")), false);
});
