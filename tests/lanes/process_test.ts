import assert from "node:assert/strict";
import { idleTimeoutFor, ProviderProcess } from "../../src/lanes/process.ts";
import { isSameProcessAlive, readProcStat } from "../../src/util/proc_tree.ts";
import { LaunchError } from "../../src/lanes/types.ts";
import { tempDir } from "../support/fs.ts";

function spawnBash(script: string, cwd: string, extra: Partial<Parameters<typeof ProviderProcess.spawn>[0]> = {}) {
  return ProviderProcess.spawn({
    command: "bash",
    args: ["-c", script],
    cwd,
    env: {},
    sessionTimeoutMs: 60_000,
    idleTimeoutMs: 60_000,
    ...extra,
  });
}

async function collect(p: ProviderProcess): Promise<string[]> {
  const out: string[] = [];
  for await (const line of p.lines()) out.push(line);
  return out;
}

/** Read lines with next() (a for-await break would close the generator) until one matches. */
async function readUntil(it: AsyncGenerator<string>, stop: (line: string) => boolean): Promise<string[]> {
  const seen: string[] = [];
  while (true) {
    const r = await it.next();
    if (r.done) return seen;
    seen.push(r.value);
    if (stop(r.value)) return seen;
  }
}

function alive(pid: number): boolean {
  const st = readProcStat(pid);
  return st !== null && st.state !== "Z";
}

Deno.test("idleTimeoutFor() is max(120000, timeout + 30000)", () => {
  assert.equal(idleTimeoutFor(1000), 120_000);
  assert.equal(idleTimeoutFor(600_000), 630_000);
});

Deno.test("ProviderProcess splits stdout into lines across chunks and reports the exit code", async () => {
  await using dir = await tempDir();
  const p = spawnBash(`printf 'a\\nb'; sleep 0.05; printf 'c\\r\\n\\nlast'; exit 3`, dir.path);
  const lines = await collect(p);
  const exit = await p.wait();
  assert.deepEqual(lines, ["a", "bc", "", "last"]);
  assert.equal(exit.code, 3);
  assert.equal(exit.reason, "exit");
  assert.equal(exit.interrupted, false);
});

Deno.test("ProviderProcess delivers a burst of many lines in order", async () => {
  await using dir = await tempDir();
  const p = spawnBash(`seq 1 20000`, dir.path);
  const lines = await collect(p);
  await p.wait();
  assert.equal(lines.length, 20000);
  assert.ok(lines.every((l, i) => l === String(i + 1)));
});

Deno.test("ProviderProcess runs in its own process group with stdin closed, cwd and added env", async () => {
  await using dir = await tempDir();
  const p = spawnBash(`echo "$PR_X"; pwd; ps -o pgid= -p $$ | tr -d ' '; cat; echo "stdin-eof"`, dir.path, {
    env: { PR_X: "added" },
  });
  const lines = await collect(p);
  await p.wait();
  assert.equal(lines[0], "added");
  assert.equal(lines[1], dir.path);
  assert.equal(lines[2], String(p.identity.pid));
  assert.equal(p.identity.pgid, p.identity.pid);
  assert.equal(lines[3], "stdin-eof");
});

Deno.test("ProviderProcess keeps only the last 64 KiB of stderr", async () => {
  await using dir = await tempDir();
  // 100 KiB of 'x' then a marker.
  const p = spawnBash(`head -c 102400 /dev/zero | tr '\\0' x >&2; printf 'END-MARK' >&2`, dir.path);
  await collect(p);
  await p.wait();
  const all = p.stderrTail(1 << 20);
  assert.equal(all.length, 64 * 1024);
  assert.ok(all.endsWith("xEND-MARK"));
  assert.equal(p.stderrTail(8), "END-MARK");
});

Deno.test("ProviderProcess ends a line over 8 MiB as line_too_long and kills the process", async () => {
  await using dir = await tempDir();
  const p = spawnBash(`echo first; head -c 9000000 /dev/zero | tr '\\0' a; echo; echo never; sleep 30`, dir.path);
  const lines = await collect(p);
  const exit = await p.wait();
  assert.deepEqual(lines, ["first"]);
  assert.equal(exit.reason, "line_too_long");
  assert.equal(alive(p.identity.pid), false);
});

Deno.test("ProviderProcess accepts a line of exactly the limit", async () => {
  await using dir = await tempDir();
  const p = spawnBash(`head -c 1000 /dev/zero | tr '\\0' a; echo; echo ok`, dir.path, { maxLineBytes: 1000 });
  const lines = await collect(p);
  const exit = await p.wait();
  assert.equal(lines.length, 2);
  assert.equal(lines[0]!.length, 1000);
  assert.equal(exit.reason, "exit");
});

Deno.test("ProviderProcess ends a silent process with idle_timeout", async () => {
  await using dir = await tempDir();
  const p = spawnBash(`echo hello; exec sleep 30`, dir.path, { idleTimeoutMs: 300, killAfterTermMs: 500 });
  const started = Date.now();
  const lines = await collect(p);
  const exit = await p.wait();
  assert.deepEqual(lines, ["hello"]);
  assert.equal(exit.reason, "idle_timeout");
  assert.equal(exit.signal, "SIGTERM");
  assert.equal(exit.interrupted, false);
  assert.ok(Date.now() - started < 20_000);
});

Deno.test("ProviderProcess resets the idle timer on every line but still enforces the session timeout", async () => {
  await using dir = await tempDir();
  const p = spawnBash(`while true; do echo tick; sleep 0.1; done`, dir.path, {
    idleTimeoutMs: 400,
    sessionTimeoutMs: 1200,
    killAfterTermMs: 500,
  });
  const lines = await collect(p);
  const exit = await p.wait();
  assert.equal(exit.reason, "session_timeout");
  assert.ok(lines.length >= 5, `expected ticks past the idle bound, got ${lines.length}`);
});

Deno.test("interrupt() escalates past an ignored SIGINT and leaves no process behind, setsid children included", async () => {
  await using dir = await tempDir();
  const script = [
    `trap '' INT`,
    `sleep 300 & echo "child $!"`,
    `setsid sleep 301 & echo "escaped $!"`,
    `bash -c 'trap "" INT TERM; sleep 302 & echo "stubborn $!"; wait' &`,
    `wait`,
  ].join("\n");
  const p = spawnBash(script, dir.path, { killAfterTermMs: 400 });
  const it = p.lines();
  const pids: number[] = [];
  await readUntil(it, (line) => {
    const m = /^(child|escaped|stubborn) (\d+)$/.exec(line);
    if (m) pids.push(Number(m[2]));
    return pids.length === 3;
  });
  assert.equal(pids.length, 3);
  for (const pid of pids) assert.ok(alive(pid), `pid ${pid} should be running before the interrupt`);
  await p.interrupt(200);
  await readUntil(it, () => false);
  const exit = await p.wait();
  assert.equal(exit.interrupted, true);
  assert.equal(exit.signal, "SIGTERM");
  for (const pid of [p.identity.pid, ...pids]) assert.equal(alive(pid), false, `pid ${pid} survived`);
});

Deno.test("interrupt() stops at SIGINT when the provider exits on it", async () => {
  await using dir = await tempDir();
  const p = spawnBash(`trap 'echo got-int; exit 0' INT; echo ready; while true; do sleep 0.05; done`, dir.path);
  const it = p.lines();
  const lines = await readUntil(it, (l) => l === "ready");
  await p.interrupt(5000);
  lines.push(...await readUntil(it, () => false));
  const exit = await p.wait();
  assert.deepEqual(lines, ["ready", "got-int"]);
  assert.equal(exit.code, 0);
  assert.equal(exit.interrupted, true);
});

Deno.test("kill() kills the group immediately", async () => {
  await using dir = await tempDir();
  const p = spawnBash(`trap '' INT TERM; sleep 300 & echo "child $!"; wait`, dir.path);
  const first = await readUntil(p.lines(), () => true);
  const child = Number(first[0]!.split(" ")[1]);
  const rec = { pid: child, startTicks: readProcStat(child)!.startTicks };
  p.kill();
  const exit = await p.wait();
  assert.equal(exit.signal, "SIGKILL");
  assert.equal(isSameProcessAlive(rec), false);
});

Deno.test("a provider that exits on its own has its leftover group members killed", async () => {
  await using dir = await tempDir();
  const p = spawnBash(`sleep 300 >/dev/null 2>&1 & echo "child $!"; exit 0`, dir.path);
  const lines = await collect(p);
  const exit = await p.wait();
  const child = Number(lines[0]!.split(" ")[1]);
  assert.equal(exit.code, 0);
  assert.equal(alive(child), false);
});

Deno.test("ProviderProcess.spawn() throws LaunchError for a missing executable or cwd", async () => {
  await using dir = await tempDir();
  assert.throws(
    () =>
      ProviderProcess.spawn({
        command: `${dir.path}/no-such-cli`,
        args: [],
        cwd: dir.path,
        env: {},
        sessionTimeoutMs: 1000,
        idleTimeoutMs: 1000,
      }),
    (e: unknown) => e instanceof LaunchError && /no-such-cli" was not found/.test(e.message),
  );
  assert.throws(
    () => spawnBash("true", `${dir.path}/missing-dir`),
    (e: unknown) => e instanceof LaunchError && /working directory/.test(e.message),
  );
});
