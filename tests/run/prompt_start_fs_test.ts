/**
 * A prompt's start makes no repeated blocking file-system call (issue #13, docs/bench.md `scale`): its baseline takes
 * each path's realpath once, and an attempt's new log is created by its create-new open alone — no `lstat` of the
 * name first, and no `mkdir` of the store's directories already there. Counted, not timed.
 */
import assert from "node:assert/strict";
import { git, initRepo, tempDir } from "../support/fs.ts";
import { captureBaseline } from "../../src/run/dirty.ts";
import { createAttemptLog } from "../../src/run/attempt.ts";
import { loadPacket } from "../../src/packet/load.ts";

/** Run `fn` counting the synchronous realpaths and lstats it makes. */
async function counted<T>(
  fn: () => T | Promise<T>,
): Promise<{ value: T; realpath: number; lstat: number; mkdir: number }> {
  const calls = { realpath: 0, lstat: 0, mkdir: 0 };
  const realPathSync = Deno.realPathSync;
  const lstatSync = Deno.lstatSync;
  const mkdirSync = Deno.mkdirSync;
  Deno.realPathSync = (p) => (calls.realpath++, realPathSync(p));
  Deno.lstatSync = (p) => (calls.lstat++, lstatSync(p));
  Deno.mkdirSync = (p, o) => (calls.mkdir++, mkdirSync(p, o));
  try {
    return { value: await fn(), ...calls };
  } finally {
    Deno.realPathSync = realPathSync;
    Deno.lstatSync = lstatSync;
    Deno.mkdirSync = mkdirSync;
  }
}

Deno.test("captureBaseline: one realpath for the repo and one for the store root, store paths still left out", async () => {
  await using dir = await tempDir();
  const app = `${dir.path}/app`;
  await initRepo(app, { "README.md": "# r\n" });
  await Deno.writeTextFile(`${app}/mine.txt`, "the user's\n");
  const store = `${app}/.prompt_runner`;
  await Deno.mkdir(`${store}/logs`, { recursive: true });
  await Deno.writeTextFile(`${store}/logs/x.log`, "log\n");
  await Deno.mkdir(`${dir.path}/pkt/prompts`, { recursive: true });
  await Deno.writeTextFile(
    `${dir.path}/pkt/prompt_runner_packet.md`,
    `---\nname: t\nprovider: simulated\nmodel: simulated-demo\nrepos:\n  app: {path: ${app}, default: true}\n---\n`,
  );
  await Deno.writeTextFile(`${dir.path}/pkt/prompts/01_a.prompt.md`, `---\nid: "01"\n---\n# A\n\nDo it.\n`);
  const packet = await loadPacket(`${dir.path}/pkt`);
  const r = await counted(() => captureBaseline(packet, packet.prompts[0]!, store));
  assert.equal(r.realpath, 2, `realpaths: ${r.realpath}`);
  assert.deepEqual(r.value[0]!.dirty, ["mine.txt"], "the store's files are never the user's work");
  assert.equal(r.value[0]!.head, await git(app, "rev-parse", "HEAD"));
});

Deno.test("createAttemptLog: the create-new open is the name check; a taken name (a link too) is never opened", async () => {
  await using dir = await tempDir();
  const store = `${dir.path}/.prompt_runner`;
  const first = await counted(() => createAttemptLog(store, "01", "20261202T000000Z"));
  first.value.file.close();
  assert.equal(first.mkdir, 2, "the store root and logs/ made on the first attempt");
  assert.equal((await Deno.stat(`${store}/logs`)).mode! & 0o777, 0o700);
  assert.equal(first.value.rel, "logs/prompt-01-20261202T000000Z");
  assert.equal(first.value.events, `${store}/logs/prompt-01-20261202T000000Z.events.jsonl`);
  assert.equal((await Deno.stat(first.value.log)).mode! & 0o777, 0o600);
  // Same stamp again: `-2`; a link at `-3`'s name is left alone (its target is never created nor written).
  await Deno.writeTextFile(`${dir.path}/target`, "keep\n");
  await Deno.symlink(`${dir.path}/target`, `${store}/logs/prompt-01-20261202T000000Z-3.log`);
  const second = await counted(() => createAttemptLog(store, "01", "20261202T000000Z"));
  second.value.file.close();
  assert.equal(second.value.rel, "logs/prompt-01-20261202T000000Z-2");
  const third = createAttemptLog(store, "01", "20261202T000000Z");
  third.file.close();
  assert.equal(third.rel, "logs/prompt-01-20261202T000000Z-4");
  assert.equal(await Deno.readTextFile(`${dir.path}/target`), "keep\n");
  // The store root and logs/ are checked (one lstat each, no mkdir: they are there), the new file once against its
  // handle; nothing else.
  assert.equal(second.lstat, 3, `lstats: ${second.lstat}`);
  assert.equal(second.mkdir, 0, `mkdirs: ${second.mkdir}`);
  assert.equal(second.realpath, 0);
});
