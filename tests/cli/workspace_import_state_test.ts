/**
 * `workspace import-state`, black-box: a packet-local legacy run carried into a workspace and resumed there with
 * `--remaining`; the latest-completed-only policy; and every refusal writing nothing.
 */
import assert from "node:assert/strict";
import { parseJsonOut, runCli } from "../support/cli.ts";
import { git, tempDir } from "../support/fs.ts";
import { type WorkspaceFixture, workspaceFixture } from "../workspace/fixture.ts";

const step = (id: string, file: string) =>
  `---\nid: ${id}\ncommit: "feat: prompt ${id}"\nverify:\n  files_exist: [${file}]\nsimulate:\n  attempts:\n` +
  `    - {writes: [{path: ${file}, text: "${id}"}]}\n---\n# Prompt ${id}\n\nWrite ${file}.\n`;

const PROMPTS = {
  "packets/op/prompts/01_hello.prompt.md": step("01", "a.txt"),
  "packets/op/prompts/02_two.prompt.md": step("02", "b.txt"),
  "packets/op/prompts/03_three.prompt.md": step("03", "c.txt"),
};

async function sha256(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(hash, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The files under the workspace store root (for "nothing was written" checks), the audit log's directory aside. */
async function storeFiles(f: WorkspaceFixture): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string, rel: string) => {
    for await (const e of Deno.readDir(d)) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (r === "control") continue; // refusals are recorded there (tests/cli/workspace_import_refusals_test.ts)
      if (e.isDirectory) await walk(`${d}/${e.name}`, r);
      else out.push(r);
    }
  };
  await walk(f.store, "");
  return out.sort();
}

Deno.test("a packet-local legacy run is imported into a workspace and resumed there with --remaining", async () => {
  await using dir = await tempDir();
  const f = await workspaceFixture(dir.path, { files: PROMPTS });
  const legacyPacket = `${f.author}/packets/op`;
  const legacy = await runCli(["run", legacyPacket, "01", "02"], { env: f.env });
  assert.equal(legacy.code, 0, legacy.stdout + legacy.stderr);
  const source = `${legacyPacket}/.prompt_runner/progress.log`;
  const sourceBytes = await Deno.readFile(source);

  assert.equal((await runCli(["workspace", "prepare", f.manifest], { env: f.env })).code, 0);
  const headAfterPrepare = await git(f.clone, "rev-parse", "HEAD");

  const r = await runCli(["workspace", "import-state", "op-ws", "--json"], { env: f.env });
  assert.equal(r.code, 0, r.stderr);
  const receipt = parseJsonOut(r);
  assert.equal(receipt.schema, "prompt_runner.state_import/v1");
  assert.equal(receipt.source, source);
  assert.equal(receipt.source_sha256, await sha256(sourceBytes));
  assert.deepEqual((receipt.completed as { id: string }[]).map((c) => c.id), ["01", "02"]);
  const progress = await Deno.readFile(`${f.store}/progress.log`);
  assert.equal(receipt.result_sha256, await sha256(progress));
  assert.match(
    new TextDecoder().decode(progress),
    /^01:completed:[^\n]+:no_session\n02:completed:[^\n]+:no_session\n$/,
  );
  assert.deepEqual(JSON.parse(await Deno.readTextFile(String(receipt.receipt))), receipt, "the receipt is stored");
  assert.equal(await Deno.readTextFile(source), new TextDecoder().decode(sourceBytes), "the source is only read");

  // A second import is refused: the destination has progress now.
  const again = await runCli(["workspace", "import-state", "op-ws"], { env: f.env });
  assert.equal(again.code, 1, again.stderr);
  assert.match(again.stderr, /progress\.log already exists; import-state only fills an empty workspace runtime/);
  assert.deepEqual(await Deno.readFile(`${f.store}/progress.log`), progress);
  // An import interrupted between writing progress.log and renaming its receipt: the next call completes the receipt.
  await Deno.rename(String(receipt.receipt), `${receipt.receipt}.pending`);
  const settled = await runCli(["workspace", "import-state", "op-ws"], { env: f.env });
  assert.equal(settled.code, 1, settled.stderr);
  assert.ok(settled.stderr.includes(`imported before, receipt: ${receipt.receipt}`), settled.stderr);
  assert.deepEqual(JSON.parse(await Deno.readTextFile(String(receipt.receipt))), receipt);

  // Resume in the workspace: only 03 runs.
  const resume = await runCli(["run", "op-ws", "--remaining", "--json"], { env: f.env });
  assert.equal(resume.code, 0, resume.stdout + resume.stderr);
  const summary = JSON.parse(resume.stdout.trim().split("\n").at(-1)!);
  assert.deepEqual(
    (summary.prompts as { id: string; status: string }[]).map((p) => [p.id, p.status]),
    [["03", "completed"]],
  );
  const log = await git(f.clone, "log", "--format=%s", `${headAfterPrepare}..HEAD`);
  assert.deepEqual(log.split("\n"), ["feat: prompt 03"], "one new commit in the clone: prompt 03's");
  const lines = (await Deno.readTextFile(`${f.store}/progress.log`)).trim().split("\n");
  assert.deepEqual(lines.map((l) => l.split(":").slice(0, 2).join(":")), [
    "01:completed",
    "02:completed",
    "03:completed",
  ]);
});

Deno.test("import-state imports only each prompt's latest completed record", async () => {
  await using dir = await tempDir();
  const f = await workspaceFixture(dir.path, { files: PROMPTS });
  assert.equal((await runCli(["workspace", "prepare", f.manifest], { env: f.env })).code, 0);
  const legacy = `${dir.path}/legacy.log`;
  await Deno.writeTextFile(
    legacy,
    "01:failed:2026-08-10T01:00:00Z\n01:completed:2026-08-10T02:00:00Z:abc1234\n" +
      "02:completed:2026-08-10T03:00:00Z:no_commit\n02:failed:2026-08-10T04:00:00Z\n",
  );
  const r = await runCli(["workspace", "import-state", f.manifest, "--source", legacy, "--json"], { env: f.env });
  assert.equal(r.code, 0, r.stderr);
  const receipt = parseJsonOut(r);
  assert.equal(receipt.policy, "latest_completed_only");
  assert.deepEqual(receipt.completed, [{ id: "01", source_at: "2026-08-10T02:00:00Z", source_suffix: "abc1234" }]);
  assert.deepEqual(receipt.not_imported, [{ id: "02", status: "failed" }]);
  assert.equal(await Deno.readTextFile(`${f.store}/progress.log`), "01:completed:2026-08-10T02:00:00Z:no_session\n");
  const plan = await runCli(["plan", "op-ws", "--remaining", "--json"], { env: f.env });
  assert.equal(plan.code, 0, plan.stderr);
  assert.deepEqual(parseJsonOut(plan).selected, ["02", "03"], "failed and unrecorded prompts still run");
});

Deno.test("import-state refuses unknown ids, malformed or empty sources, a held lease, and a packet target", async () => {
  await using dir = await tempDir();
  const f = await workspaceFixture(dir.path, { files: PROMPTS });
  assert.equal((await runCli(["workspace", "prepare", f.manifest], { env: f.env })).code, 0);
  const before = await storeFiles(f);
  const refuse = async (text: string, code: number, message: RegExp) => {
    const src = `${dir.path}/src-${crypto.randomUUID()}.log`;
    await Deno.writeTextFile(src, text);
    const r = await runCli(["workspace", "import-state", "op-ws", "--source", src], { env: f.env });
    assert.equal(r.code, code, r.stderr);
    assert.match(r.stderr, message);
    assert.ok(r.stderr.includes(src), `the error names the file: ${r.stderr}`);
    assert.deepEqual(await storeFiles(f), before, "a refusal writes nothing");
  };
  await refuse(
    "01:completed:2026-08-10T02:00:00Z\n99:completed:2026-08-10T02:00:00Z\n",
    4,
    /prompt id\(s\) 99 are not prompts of the packet/,
  );
  await refuse(
    "01:completed:2026-08-10T02:00:00Z\nnot a progress line\n",
    1,
    /line 2 is malformed: "not a progress line" has 1 field\(s\); expected <id>:<completed\|failed>:<ISO timestamp>/,
  );
  await refuse("01:failed:2026-08-10T02:00:00Z\n", 1, /has no completed prompt to import/);

  const missing = await runCli(["workspace", "import-state", "op-ws"], { env: f.env });
  assert.equal(missing.code, 4, missing.stderr);
  assert.match(missing.stderr, new RegExp(`legacy progress file not found: ${f.author}/packets/op/\\.prompt_runner/`));

  // A live runner holds the lease: this process holds run.lock and names itself in run.pid.
  const holdLease = async (storeRoot: string): Promise<Deno.FsFile> => {
    await Deno.mkdir(storeRoot, { recursive: true });
    await Deno.writeTextFile(
      `${storeRoot}/run.pid`,
      JSON.stringify({ pid: Deno.pid, hostname: Deno.hostname(), run_id: "20261201T120000Z-ABCDEF" }),
    );
    const lock = await Deno.open(`${storeRoot}/run.lock`, { read: true, write: true, create: true });
    await lock.lock(true);
    return lock;
  };
  const src = `${dir.path}/ok.log`;
  await Deno.writeTextFile(src, "01:completed:2026-08-10T02:00:00Z\n");
  const workspaceRun = await holdLease(f.store);
  try {
    const held = await runCli(["workspace", "import-state", "op-ws", "--source", src], { env: f.env });
    assert.equal(held.code, 5, held.stderr);
    assert.match(held.stderr, /is active \(pid \d+\); import-state refused/);
    assert.equal(await Deno.stat(`${f.store}/progress.log`).then(() => true, () => false), false);
    // The refusal is on the workspace's record.
    const logged = await Deno.readTextFile(`${f.store}/control/log.jsonl`);
    assert.match(logged, /"command":"import_state".*is active \(pid \d+\); import-state refused/);
  } finally {
    workspaceRun.close();
  }
  await Deno.remove(`${f.store}/run.pid`);
  // The legacy run is still writing its progress.
  const legacyStore = `${f.author}/packets/op/.prompt_runner`;
  const legacyRun = await holdLease(legacyStore);
  try {
    await Deno.writeTextFile(`${legacyStore}/progress.log`, "01:completed:2026-08-10T02:00:00Z\n");
    const held = await runCli(["workspace", "import-state", "op-ws"], { env: f.env });
    assert.equal(held.code, 5, held.stderr);
    assert.match(held.stderr, /the legacy run writing .* is still active/);
    assert.equal(await Deno.stat(`${f.store}/progress.log`).then(() => true, () => false), false);
  } finally {
    legacyRun.close();
  }

  const packet = await runCli(["workspace", "import-state", `${f.author}/packets/op`], { env: f.env });
  assert.equal(packet.code, 2, packet.stderr);
  assert.match(packet.stderr, /is a packet, not a workspace/);
});

Deno.test("import-state MANIFEST PACKET (the sdk guide's form) is import-state MANIFEST --packet PACKET", async () => {
  await using dir = await tempDir();
  const f = await workspaceFixture(dir.path, { files: PROMPTS });
  const legacy = await runCli(["run", `${f.author}/packets/op`, "01"], { env: f.env });
  assert.equal(legacy.code, 0, legacy.stdout + legacy.stderr);
  assert.equal((await runCli(["workspace", "prepare", f.manifest], { env: f.env })).code, 0);
  // From the author's checkout, as the guide runs it: the packet path is relative to the current directory.
  const r = await runCli(["workspace", "import-state", f.manifest, "packets/op", "--json"], {
    env: f.env,
    cwd: f.author,
  });
  assert.equal(r.code, 0, r.stderr);
  const receipt = parseJsonOut(r);
  assert.equal(receipt.source, `${f.author}/packets/op/.prompt_runner/progress.log`);
  assert.deepEqual((receipt.completed as { id: string }[]).map((c) => c.id), ["01"]);
  const three = await runCli(["workspace", "import-state", f.manifest, "packets/op", "extra"], {
    env: f.env,
    cwd: f.author,
  });
  assert.equal(three.code, 2, three.stderr);
});
