/** The no-follow store helpers (src/util/safe_fs.ts): links, FIFOs and swaps refused by name; roots owned and 0700. */
import assert from "node:assert/strict";
import { tempDir } from "../support/fs.ts";
import { parseJsonLines, writeViaTemp } from "../../src/util/fs.ts";
import {
  appendStoreLine,
  appendStoreLineSync,
  atomicWriteStoreJson,
  ensureStoreDirSync,
  openStoreFileSync,
  secureStoreRootSync,
  setStoreWarningSink,
  StoreIntegrityError,
  verifyHandle,
} from "../../src/util/safe_fs.ts";
import { readStoreBytesOrNullSync, readStoreTextOrNull } from "../../src/util/safe_read.ts";

async function outside(root: string): Promise<string> {
  const dir = `${root}/outside`;
  await Deno.mkdir(dir);
  await Deno.writeTextFile(`${dir}/f`, "keep\n");
  const mk = await new Deno.Command("mkfifo", { args: [`${dir}/fifo`] }).output();
  assert.ok(mk.success);
  return dir;
}

function refusedNaming(path: string): (e: unknown) => boolean {
  return (e) => e instanceof StoreIntegrityError && e.path === path && e.message.includes(path);
}

Deno.test("appendStoreLine refuses a link to a file, a FIFO and a dangling link, and writes nothing through it", async () => {
  await using dir = await tempDir();
  const out = await outside(dir.path);
  const store = `${dir.path}/store`;
  await Deno.mkdir(store);
  for (const target of [`${out}/f`, `${out}/fifo`, `${out}/missing`, out]) {
    const path = `${store}/log.jsonl`;
    await Deno.remove(path).catch(() => {});
    await Deno.symlink(target, path);
    await assert.rejects(appendStoreLine(path, "x"), refusedNaming(path));
    assert.throws(() => appendStoreLineSync(path, "x"), refusedNaming(path));
  }
  assert.equal(await Deno.readTextFile(`${out}/f`), "keep\n");
  await assert.rejects(Deno.lstat(`${out}/missing`), Deno.errors.NotFound);
});

Deno.test("appendStoreLine creates a missing file 0600 and appends to a regular one", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/progress.log`;
  await appendStoreLine(path, "a");
  appendStoreLineSync(path, "b\n");
  assert.equal(await Deno.readTextFile(path), "a\nb\n");
  assert.equal((await Deno.lstat(path)).mode! & 0o777, 0o600);
});

Deno.test("a special file (FIFO) at a store name is refused without blocking, for reads and appends", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/state.json`;
  assert.ok((await new Deno.Command("mkfifo", { args: [path] }).output()).success);
  await assert.rejects(readStoreTextOrNull(path), refusedNaming(path));
  await assert.rejects(appendStoreLine(path, "x"), refusedNaming(path));
  await assert.rejects(atomicWriteStoreJson(path, {}), refusedNaming(path));
});

Deno.test("atomic writes: a link at the target is refused; a link at the temp name is never followed (createNew)", async () => {
  await using dir = await tempDir();
  const out = await outside(dir.path);
  const target = `${dir.path}/state.json`;
  await Deno.symlink(`${out}/f`, target);
  await assert.rejects(atomicWriteStoreJson(target, { a: 1 }), refusedNaming(target));
  await Deno.remove(target);
  const tmp = `${dir.path}/.state.json.tmp`;
  for (const link of [`${out}/f`, `${out}/missing`, `${out}/fifo`]) {
    await Deno.remove(tmp).catch(() => {});
    await Deno.symlink(link, tmp);
    await assert.rejects(writeViaTemp(tmp, target, "{}"), (e) => e instanceof Deno.errors.AlreadyExists);
    assert.ok(Deno.lstatSync(tmp).isSymlink, "what was at the temp name is not ours: left as it was");
    await assert.rejects(
      writeViaTemp(tmp, target, "{}", { fsync: true }),
      (e) => e instanceof Deno.errors.AlreadyExists,
    );
    assert.ok(Deno.lstatSync(tmp).isSymlink, "the same with an fsync");
  }
  assert.equal(await Deno.readTextFile(`${out}/f`), "keep\n");
  await assert.rejects(Deno.lstat(`${out}/missing`), Deno.errors.NotFound);
  await assert.rejects(Deno.lstat(target), Deno.errors.NotFound, "the target was not created from a followed temp");
});

Deno.test("verifyHandle: a path replaced after the open is refused (fstat and lstat inodes differ)", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/events.jsonl`;
  await Deno.writeTextFile(path, "");
  const file = openStoreFileSync(path);
  await Deno.rename(path, `${dir.path}/moved`);
  await Deno.writeTextFile(path, "");
  assert.throws(() => verifyHandle(path, file), refusedNaming(path));
});

Deno.test("ensureStoreDirSync refuses a link at any component under the root and creates nothing through it", async () => {
  await using dir = await tempDir();
  const out = await outside(dir.path);
  const root = `${dir.path}/store`;
  await Deno.mkdir(root, { mode: 0o700 });
  await Deno.symlink(out, `${root}/control`);
  assert.throws(() => ensureStoreDirSync(root, `${root}/control/requests`), refusedNaming(`${root}/control`));
  await assert.rejects(Deno.lstat(`${out}/requests`), Deno.errors.NotFound);
  await Deno.remove(`${root}/control`);
  ensureStoreDirSync(root, `${root}/control/requests`);
  assert.equal((await Deno.lstat(`${root}/control/requests`)).mode! & 0o777, 0o700);
});

Deno.test("secureStoreRootSync: a foreign owner or a link is refused; a looser mode is tightened with one warning", async () => {
  await using dir = await tempDir();
  const out = await outside(dir.path);
  const lines: string[] = [];
  const prev = setStoreWarningSink((l) => lines.push(l));
  try {
    const loose = `${dir.path}/loose`;
    await Deno.mkdir(loose);
    await Deno.chmod(loose, 0o775);
    secureStoreRootSync(loose);
    assert.equal((await Deno.lstat(loose)).mode! & 0o7777, 0o700);
    assert.equal(lines.length, 1);
    assert.match(lines[0]!, new RegExp(`store root ${loose} had mode 0775; tightened to 0700`));
    const link = `${dir.path}/link`;
    await Deno.chmod(out, 0o755);
    await Deno.symlink(out, link);
    assert.throws(() => secureStoreRootSync(link), refusedNaming(link));
    assert.equal((await Deno.lstat(out)).mode! & 0o7777, 0o755, "the link's target is not chmodded");
    if (Deno.uid() === 0) {
      const foreign = `${dir.path}/foreign`;
      await Deno.mkdir(foreign, { mode: 0o700 });
      await Deno.chown(foreign, 65534, 65534);
      assert.throws(
        () => secureStoreRootSync(foreign),
        (e) => refusedNaming(foreign)(e) && /uid 65534/.test(String(e)),
      );
    }
  } finally {
    setStoreWarningSink(prev);
  }
});

Deno.test("appendStoreLine checks, opens and writes synchronously (no worker-thread hop); only an fsync is awaited", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/records.jsonl`;
  const first = appendStoreLine(path, "one");
  assert.equal(Deno.readTextFileSync(path), "one\n", "written before the first await");
  await first;
  const synced = appendStoreLine(path, "two", { fsync: true });
  assert.equal(Deno.readTextFileSync(path), "one\ntwo\n");
  await synced;
});

Deno.test("openStoreFileSync fresh: a new file costs no failing lstat first; a link, FIFO or file already there gets the ordinary checks", async () => {
  await using dir = await tempDir();
  const out = await outside(dir.path);
  const lstatSync = Deno.lstatSync;
  let lstats = 0;
  Deno.lstatSync = (p) => (lstats++, lstatSync(p));
  let file: Deno.FsFile;
  try {
    file = openStoreFileSync(`${dir.path}/new.log`, { fresh: true });
  } finally {
    Deno.lstatSync = lstatSync;
  }
  file.writeSync(new TextEncoder().encode("one\n"));
  file.close();
  assert.equal(lstats, 1, "only the handle check's lstat");
  assert.equal((await Deno.lstat(`${dir.path}/new.log`)).mode! & 0o777, 0o600);
  // Already there: a regular file is appended to, a link or a FIFO is refused and nothing outside changes.
  const again = openStoreFileSync(`${dir.path}/new.log`, { fresh: true });
  again.writeSync(new TextEncoder().encode("two\n"));
  again.close();
  assert.equal(await Deno.readTextFile(`${dir.path}/new.log`), "one\ntwo\n");
  await Deno.symlink(`${out}/f`, `${dir.path}/link.log`);
  assert.throws(
    () => openStoreFileSync(`${dir.path}/link.log`, { fresh: true }),
    refusedNaming(`${dir.path}/link.log`),
  );
  await Deno.symlink(`${out}/fifo`, `${dir.path}/fifo.log`);
  assert.throws(
    () => openStoreFileSync(`${dir.path}/fifo.log`, { fresh: true }),
    refusedNaming(`${dir.path}/fifo.log`),
  );
  assert.equal(await Deno.readTextFile(`${out}/f`), "keep\n");
});

Deno.test("store reads return exactly each file's bytes at every size around the read buffer, never a shared view", async () => {
  await using dir = await tempDir();
  const sizes = [0, 1, 1200, 65535, 65536, 65537, 200_001];
  const want = sizes.map((n) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + n) % 251));
  sizes.forEach((n, i) => Deno.writeFileSync(`${dir.path}/f${n}`, want[i]!));
  // Every result is kept until all are read: a result that were a view of one reused buffer would be overwritten.
  const got = sizes.map((n) => readStoreBytesOrNullSync(`${dir.path}/f${n}`));
  const again = readStoreBytesOrNullSync(`${dir.path}/f1200`);
  got.forEach((g, i) => assert.deepEqual(g, want[i], `file of ${sizes[i]} bytes`));
  assert.deepEqual(again, want[2]);
  assert.equal(readStoreBytesOrNullSync(`${dir.path}/absent`), null);
});

Deno.test("secureStoreRootSync: a root already there costs an lstat, no mkdir; the user id is asked once", async () => {
  await using dir = await tempDir();
  const root = `${dir.path}/store`;
  secureStoreRootSync(root);
  assert.equal((await Deno.lstat(root)).mode! & 0o777, 0o700, "made when absent");
  const calls = { mkdir: 0, uid: 0 };
  const mkdirSync = Deno.mkdirSync;
  const uid = Deno.uid;
  Deno.mkdirSync = (p, o) => (calls.mkdir++, mkdirSync(p, o));
  Deno.uid = () => (calls.uid++, uid());
  try {
    for (let i = 0; i < 3; i++) secureStoreRootSync(root);
  } finally {
    Deno.mkdirSync = mkdirSync;
    Deno.uid = uid;
  }
  assert.deepEqual(calls, { mkdir: 0, uid: 0 });
});

Deno.test("appendStoreLine() after a torn last line starts a new line, so the appended record stays readable", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/amendments.jsonl`;
  // A crash mid-append left the last record without its end (and its newline).
  await Deno.writeTextFile(path, '{"id":"a","clause":"files_exist"}\n{"id":"b","cla');
  await appendStoreLine(path, JSON.stringify({ id: "c", clause: "commands" }), { fsync: true });
  appendStoreLineSync(path, JSON.stringify({ id: "d", clause: "doc" }));
  const ids = parseJsonLines<{ id: string }>(await Deno.readTextFile(path)).map((r) => r.id);
  assert.deepEqual(ids, ["a", "c", "d"]);
});
