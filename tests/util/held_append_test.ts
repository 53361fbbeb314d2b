/**
 * HeldAppender: one open serves many appends while the path names the held file; a removed, replaced or renamed file
 * is opened again at the path, and a link planted there is refused, never written through. A run holds its appended
 * files (journal, progress.log, verification history) the same way, one handle per path, closed with the run.
 */
import assert from "node:assert/strict";
import { appendHeldLine, closeHeldAppends, HeldAppender, openHeldAppends } from "../../src/util/held_append.ts";
import { StoreIntegrityError } from "../../src/util/safe_fs.ts";
import { tempDir } from "../support/fs.ts";

Deno.test("HeldAppender keeps one handle while the path names its file, reopens after a change, refuses a link", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/state.pending.jsonl`;
  const a = new HeldAppender(path);
  try {
    for (let i = 0; i < 5; i++) a.appendSync(`{"n":${i}}`);
    assert.equal(a.opens, 1, "five appends, one open");
    assert.equal(await Deno.readTextFile(path), [0, 1, 2, 3, 4].map((i) => `{"n":${i}}\n`).join(""));
    // Emptied in place (the state rewrite truncates it): the same file, appends continue at its end.
    await Deno.truncate(path, 0);
    a.appendSync("t");
    assert.equal(a.opens, 1);
    assert.equal(await Deno.readTextFile(path), "t\n");
    // Renamed away: the next line goes to a new file at the path, not into the old one.
    await Deno.rename(path, `${dir.path}/old.jsonl`);
    a.appendSync("after rename");
    assert.equal(a.opens, 2);
    assert.equal(await Deno.readTextFile(path), "after rename\n");
    assert.equal(await Deno.readTextFile(`${dir.path}/old.jsonl`), "t\n");
    // Replaced by another file: appended to the file now at the path.
    await Deno.writeTextFile(`${dir.path}/other`, "other\n");
    await Deno.rename(`${dir.path}/other`, path);
    a.appendSync("x");
    assert.equal(a.opens, 3);
    assert.equal(await Deno.readTextFile(path), "other\nx\n");
    // A link planted at the path: refused, and its target untouched.
    await Deno.remove(path);
    await Deno.writeTextFile(`${dir.path}/target`, "");
    await Deno.symlink(`${dir.path}/target`, path);
    assert.throws(() => a.appendSync("never"), StoreIntegrityError);
    assert.equal(await Deno.readTextFile(`${dir.path}/target`), "");
  } finally {
    a.close();
  }
});

Deno.test("held appends: a run's scope keeps one handle per path, fsyncs on request, checks the path, closes all", async () => {
  await using dir = await tempDir();
  const journal = `${dir.path}/journal.jsonl`;
  const progress = `${dir.path}/progress.log`;
  await Deno.writeTextFile(progress, "");
  const held = openHeldAppends();
  const fsyncs: string[] = [];
  const sync = Deno.FsFile.prototype.sync;
  Deno.FsFile.prototype.sync = function (this: Deno.FsFile) {
    fsyncs.push("sync");
    return sync.call(this);
  };
  try {
    for (let i = 0; i < 4; i++) {
      await appendHeldLine(journal, `j${i}`, { fsync: true });
      await appendHeldLine(progress, `p${i}`);
    }
    assert.equal(held.opens, 2, "eight appends to two paths, two opens");
    assert.equal(fsyncs.length, 4, "only the appends that asked were fsynced");
    assert.equal(await Deno.readTextFile(journal), "j0\nj1\nj2\nj3\n");
    // Replaced under the run (renamed over): the next line goes to the file now at the path.
    await Deno.writeTextFile(`${dir.path}/new`, "new\n");
    await Deno.rename(`${dir.path}/new`, progress);
    await appendHeldLine(progress, "after");
    assert.equal(await Deno.readTextFile(progress), "new\nafter\n");
    assert.equal(held.opens, 3);
    // A link planted at the path is refused, its target untouched.
    await Deno.remove(journal);
    await Deno.writeTextFile(`${dir.path}/target`, "");
    await Deno.symlink(`${dir.path}/target`, journal);
    await assert.rejects(() => appendHeldLine(journal, "never", { fsync: true }), StoreIntegrityError);
    assert.equal(await Deno.readTextFile(`${dir.path}/target`), "");
  } finally {
    Deno.FsFile.prototype.sync = sync;
    closeHeldAppends(held);
  }
  // Closed: nothing stays open (the test's resource check), and appends open and close as before.
  await appendHeldLine(progress, "outside");
  assert.equal(held.opens, 0, "the scope holds nothing after closing");
  assert.equal(await Deno.readTextFile(progress), "new\nafter\noutside\n");
});
