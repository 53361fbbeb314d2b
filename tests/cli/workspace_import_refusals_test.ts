/**
 * `workspace import-state` refusals, black-box: each one names the file, the field and what was expected, and each
 * one is on the workspace's record (`control log`, command `import_state`, outcome `rejected`) — also before the
 * workspace ever ran. Hostile sources (a FIFO, a directory, a swapped file, a digest that is not the one checked) are
 * refused without hanging and without writing progress.
 */
import assert from "node:assert/strict";
import { parseJsonOut, runCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { workspaceFixture } from "../workspace/fixture.ts";
import { loadPacket } from "../../src/packet/load.ts";
import { importSeam, importState } from "../../src/workspace/import_state.ts";

const exists = (p: string) => Deno.lstat(p).then(() => true, () => false);

async function sha256(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(hash, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The message of a CLI error (the first stderr line, after `error: `). */
function message(stderr: string): string {
  return stderr.split("\n")[0]!.replace(/^error: /, "");
}

Deno.test("every refused import-state names the file, the field and what was expected, and is on the workspace's record", async () => {
  await using dir = await tempDir();
  const f = await workspaceFixture(dir.path);
  assert.equal((await runCli(["workspace", "prepare", f.manifest], { env: f.env })).code, 0);
  const refusals: string[] = [];
  const refuse = async (args: string[], code: number, pattern: RegExp) => {
    const r = await runCli(["workspace", "import-state", "op-ws", ...args], { env: f.env });
    assert.equal(r.code, code, r.stderr);
    assert.match(r.stderr, pattern);
    assert.equal(await exists(`${f.store}/progress.log`), false, "a refusal writes no progress");
    refusals.push(message(r.stderr));
  };
  const source = async (name: string, text: string) => {
    await Deno.writeTextFile(`${dir.path}/${name}`, text);
    return `${dir.path}/${name}`;
  };
  const status = await source("status.log", "01:done:2026-08-10T02:00:00Z\n");
  await refuse(
    ["--source", status],
    1,
    /status\.log line 1 is malformed: field status is "done"; expected completed or failed/,
  );
  const id = await source("id.log", "one:completed:2026-08-10T02:00:00Z\n");
  await refuse(["--source", id], 1, /id\.log line 1 is malformed: field prompt id is "one"; expected digits/);
  const time = await source("time.log", "01:completed:yesterday\n");
  await refuse(
    ["--source", time],
    1,
    /time\.log line 1 is malformed: field timestamp is "yesterday"; expected an ISO 8601/,
  );
  const empty = await source("empty.log", "\n\n");
  await refuse(["--source", empty], 1, /empty\.log is empty; expected at least one <id>:<completed\|failed>/);
  const other = await source("other.log", "01:completed:2026-08-10T02:00:00Z\n99:completed:2026-08-10T02:00:00Z\n");
  await refuse(
    ["--source", other],
    4,
    /other\.log: prompt id\(s\) 99 are not prompts of the packet .*; expected one of 01/,
  );
  // Not a regular file: refused before it is opened (a FIFO would wait for a writer forever).
  const fifo = `${dir.path}/fifo.log`;
  assert.equal((await new Deno.Command("mkfifo", { args: [fifo] }).output()).code, 0);
  await refuse(["--source", fifo], 1, /fifo\.log: --source is a FIFO; expected a regular progress\.log file/);
  await refuse(["--source", dir.path], 1, /: --source is a directory; expected a regular progress\.log file/);
  // The digest the person checked is not the file's.
  const good = await source("good.log", "01:completed:2026-08-10T02:00:00Z\n");
  const digest = await sha256(await Deno.readFile(good));
  await refuse(
    ["--source", good, "--expect-sha256", "0".repeat(64)],
    1,
    new RegExp(`good\\.log: sha256 is ${digest}; expected ${"0".repeat(64)} \\(--expect-sha256\\)`),
  );

  // The matching digest imports; then the destination has progress and a second import is refused.
  const ok = await runCli(["workspace", "import-state", "op-ws", "--source", good, "--expect-sha256", digest], {
    env: f.env,
  });
  assert.equal(ok.code, 0, ok.stderr);
  const again = await runCli(["workspace", "import-state", "op-ws", "--source", good], { env: f.env });
  assert.equal(again.code, 1, again.stderr);
  assert.match(again.stderr, /progress\.log already exists; .* \(expected no progress\.log\)/);
  refusals.push(message(again.stderr));

  const log = await runCli(["control", "log", "op-ws", "--json"], { env: f.env });
  assert.equal(log.code, 0, log.stderr);
  const entries = log.stdout.trimEnd().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.deepEqual(
    entries.map((e) => [e.command, e.outcome, e.reason]),
    refusals.map((r) => ["import_state", "rejected", r]),
  );
  assert.deepEqual((entries[0]!.params as { source: string }).source, status);
  assert.equal((entries[7]!.params as { expect_sha256: string }).expect_sha256, "0".repeat(64));
  const human = await runCli(["control", "log", "op-ws"], { env: f.env });
  assert.match(human.stdout, /rejected {2}import_state \{"workspace":"op-ws","source":"[^"]*status\.log"\}/);
});

Deno.test("import-state refuses a source swapped after it was validated, writing nothing", async () => {
  await using dir = await tempDir();
  const f = await workspaceFixture(dir.path);
  assert.equal((await runCli(["workspace", "prepare", f.manifest], { env: f.env })).code, 0);
  const source = `${dir.path}/legacy.log`;
  await Deno.writeTextFile(source, "01:completed:2026-08-10T02:00:00Z\n");
  const packet = await loadPacket(`${f.clone}/packets/op`);
  importSeam.afterValidate = async () => {
    // A forged file put in place between the check and the write (written whole, then renamed over).
    await Deno.writeTextFile(`${source}.new`, "01:completed:2026-08-11T02:00:00Z\n");
    await Deno.rename(`${source}.new`, source);
  };
  try {
    await assert.rejects(
      importState({ workspace: "op-ws", manifest: f.manifest, packet, storeRoot: f.store, source }),
      (e: Error & { code?: string }) =>
        e.code === "import_digest_mismatch" &&
        /legacy\.log changed while it was imported: sha256 is now/.test(e.message),
    );
  } finally {
    importSeam.afterValidate = null;
  }
  assert.equal(await exists(`${f.store}/progress.log`), false);
  assert.deepEqual(await Array.fromAsync(Deno.readDir(`${f.store}/imports`)).catch(() => []), []);
});

Deno.test("import-state --expect-sha256 takes 64 hex digits only (usage error, exit 2)", async () => {
  await using dir = await tempDir();
  const f = await workspaceFixture(dir.path);
  assert.equal((await runCli(["workspace", "prepare", f.manifest], { env: f.env })).code, 0);
  const r = await runCli(["workspace", "import-state", "op-ws", "--expect-sha256", "abc", "--json"], { env: f.env });
  assert.equal(r.code, 2, r.stderr);
  assert.equal((parseJsonOut(r).error as { code: string }).code, "invalid_value");
});
