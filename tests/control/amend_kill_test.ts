/**
 * `control amend` killed between its writes (src/control/amend_intent.ts, docs/failpoints.md `control.amend_*`): the
 * contract never changes without a record, a record never stays without its audit entry, and a command that changed
 * nothing is on the record as rejected. The next `control amend` (or `control relax`, or a run) settles what the
 * stopped one left, once, and says so.
 */
import assert from "node:assert/strict";
import { runCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { lines, writeDemoPacket } from "./_harness.ts";
import { storePaths, storeRootForPacket } from "../../src/store/paths.ts";
import { createScratchRepo } from "../../examples/setup.ts";

const ADD = ["--add-file", "NOTES.md", "--reason", "scope fix", "--author", "ada"];

async function amendments(dir: string): Promise<Record<string, unknown>[]> {
  try {
    return await lines(storePaths(storeRootForPacket(dir)).amendmentsFile("01"));
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return [];
    throw e;
  }
}

async function logOf(dir: string): Promise<Record<string, unknown>[]> {
  try {
    return await lines(storePaths(storeRootForPacket(dir)).log);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return [];
    throw e;
  }
}

async function intents(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(storePaths(storeRootForPacket(dir)).amendments)) {
    if (e.name.endsWith(".intent.json")) out.push(e.name);
  }
  return out;
}

const CASES: { point: string; persist: boolean; recorded: boolean; outcome: string; inFile: boolean }[] = [
  { point: "control.amend_after_intent", persist: true, recorded: false, outcome: "rejected", inFile: false },
  { point: "control.amend_after_intent", persist: false, recorded: false, outcome: "rejected", inFile: false },
  { point: "control.amend_after_write_back", persist: true, recorded: true, outcome: "applied", inFile: true },
  { point: "control.amend_after_record", persist: true, recorded: true, outcome: "applied", inFile: true },
  { point: "control.amend_after_record", persist: false, recorded: true, outcome: "applied", inFile: false },
];

for (const c of CASES) {
  for (const settler of ["amend", "run"] as const) {
    const what = `${c.point}${c.persist ? " --persist" : ""}, settled by the next ${settler}`;
    Deno.test(`control amend killed at ${what}: on the record once, as ${c.outcome}`, async () => {
      await using tmp = await tempDir();
      const dir = await writeDemoPacket(tmp.path);
      await Deno.remove(`${dir}/app`, { recursive: true });
      await createScratchRepo(`${dir}/app`); // a run needs its repo
      const file = `${dir}/prompts/01_first.prompt.md`;
      const args = ["control", "amend", dir, "01", ...ADD, ...(c.persist ? ["--persist"] : [])];
      const killed = await runCli(args, { env: { PROMPT_RUNNER_FAILPOINT: c.point } });
      assert.equal(killed.code, 137, killed.stderr);
      assert.match(killed.stderr, new RegExp(`failpoint ${c.point.replace(".", "\\.")} reached`));
      assert.equal((await intents(dir)).length, 1, "the stopped command's intent is left");
      assert.equal((await Deno.readTextFile(file)).includes("NOTES.md"), c.inFile);

      const next = settler === "amend"
        ? await runCli(["control", "amend", dir, "01", "--add-file", "OTHER.md", "--reason", "more"])
        : await runCli(["run", dir, "02"]);
      assert.equal(next.code, 0, next.stderr + next.stdout);
      assert.match(next.stderr, /recovered: amendment am-\S+ of prompt 01 /);
      assert.deepEqual(await intents(dir), [], "settled: no intent left");
      const records = (await amendments(dir)).filter((r) => JSON.stringify(r.entries) === '["NOTES.md"]');
      assert.equal(records.length, c.recorded ? 1 : 0);
      const id = c.recorded ? String(records[0]!.id) : null;
      const entries = (await logOf(dir)).filter((e) =>
        (e.params as { entries?: unknown }).entries?.toString() === "NOTES.md"
      );
      assert.deepEqual(entries.map((e) => e.outcome), [c.outcome], JSON.stringify(entries));
      assert.equal(entries[0]!.author, "ada");
      if (id) assert.equal(entries[0]!.key, `amendment:${id}`);
      if (c.outcome === "applied") {
        assert.match(String((entries[0]!.params as { recovered?: string }).recovered), /stopped/);
      } else assert.match(String(entries[0]!.reason), /stopped before the amendment was recorded/);
      // The file carries the amendment exactly when its record does (with --persist).
      assert.equal((await Deno.readTextFile(file)).includes("NOTES.md"), c.inFile);
      // Settled once: another command adds nothing more for it.
      await runCli(["control", "amend", dir, "01", "--add-file", "THIRD.md", "--reason", "again"]);
      const again = (await logOf(dir)).filter((e) =>
        (e.params as { entries?: unknown }).entries?.toString() === "NOTES.md"
      );
      assert.equal(again.length, 1);
    });
  }
}

Deno.test("an amendment whose command is still at work (its intent locked) is not settled by another", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  // A stopped command's intent, then held by a live process (this test) as a working command holds its own.
  const killed = await runCli(["control", "amend", dir, "01", ...ADD], {
    env: { PROMPT_RUNNER_FAILPOINT: "control.amend_after_intent" },
  });
  assert.equal(killed.code, 137, killed.stderr);
  const [name] = await intents(dir);
  const held = await Deno.open(`${storePaths(storeRootForPacket(dir)).amendments}/${name}`, {
    read: true,
    write: true,
  });
  try {
    assert.ok(await held.tryLock(true));
    const other = await runCli(["control", "amend", dir, "01", "--add-file", "OTHER.md", "--reason", "more"]);
    assert.equal(other.code, 0, other.stderr);
    assert.doesNotMatch(other.stderr, /recovered: amendment/);
    assert.deepEqual(await intents(dir), [name]);
  } finally {
    held.close();
  }
  const after = await runCli(["control", "amend", dir, "01", "--add-file", "THIRD.md", "--reason", "again"]);
  assert.match(after.stderr, /recovered: amendment am-\S+ of prompt 01 was not made/);
});
