/** The run's helper shell (src/util/helper_shell.ts): framing, exit codes, stderr, env, deadlines, close. */
import assert from "node:assert/strict";
import { HelperShell } from "../../src/util/helper_shell.ts";
import { spawnTotals } from "../../src/util/read_meter.ts";
import { tempDir } from "../support/fs.ts";
import { waitFor } from "../support/wait.ts";

const text = (b: Uint8Array) => new TextDecoder().decode(b);

Deno.test("HelperShell serves commands in order from one shell: output with NULs, exit codes, stderr, env", async () => {
  const shell = new HelperShell();
  try {
    const before = spawnTotals("helper_shell");
    const ok = await shell.run({ command: "printf", args: ["a\\0b\\0%s", "it's"], timeoutMs: 10_000 });
    assert.deepEqual([ok?.success, ok?.code, text(ok!.stdout), text(ok!.stderr)], [true, 0, "a\0b\0it's", ""]);
    const bad = await shell.run({ command: "sh", args: ["-c", "echo out; echo oops >&2; exit 3"], timeoutMs: 10_000 });
    assert.deepEqual([bad?.success, bad?.code, text(bad!.stdout), text(bad!.stderr)], [false, 3, "out\n", "oops\n"]);
    // Output that imitates a frame with another token is plain output.
    const forged = await shell.run({ command: "printf", args: ["\\0deadbeef 0\\n\\0deadbeef\\n"], timeoutMs: 10_000 });
    assert.equal(text(forged!.stdout), "\0deadbeef 0\n\0deadbeef\n");
    const env = await shell.run({ command: "sh", args: ["-c", "echo $PR_X"], env: { PR_X: "x y" }, timeoutMs: 10_000 });
    assert.equal(text(env!.stdout), "x y\n");
    const after = await shell.run({ command: "sh", args: ["-c", "echo ${PR_X:-unset}"], timeoutMs: 10_000 });
    assert.equal(text(after!.stdout), "unset\n", "a command's env does not stay in the shell");
    const many = await Promise.all(
      [1, 2, 3].map((n) => shell.run({ command: "echo", args: [String(n)], timeoutMs: 10_000 })),
    );
    assert.deepEqual(many.map((r) => text(r!.stdout)), ["1\n", "2\n", "3\n"]);
    assert.equal(shell.starts, 1);
    assert.equal(spawnTotals("helper_shell") - before, 1, "one shell for every command");
  } finally {
    await shell.close();
  }
});

Deno.test("HelperShell: a command past its deadline takes the shell down; the next request starts a new one", async () => {
  const shell = new HelperShell();
  try {
    const late = await shell.run({ command: "sleep", args: ["30"], timeoutMs: 200 });
    assert.equal(late?.timedOut, true);
    assert.equal(late?.success, false);
    const next = await shell.run({ command: "echo", args: ["again"], timeoutMs: 10_000 });
    assert.equal(text(next!.stdout), "again\n");
    assert.equal(shell.starts, 2);
  } finally {
    await shell.close();
  }
});

Deno.test("HelperShell: a repeated request is sent as a short call, with the same answer", async () => {
  const shell = new HelperShell();
  try {
    // Words a function body must keep literal: braces, semicolons, quotes, a dollar sign, the stderr file's name.
    const req = { command: "printf", args: ["%s|", "a } b; c", "it's", '"$E"', "$(echo no)"], timeoutMs: 10_000 };
    const sent: number[] = [];
    const outs: string[] = [];
    for (let i = 0; i < 3; i++) {
      const before = shell.sentBytes;
      const r = await shell.run(req);
      sent.push(shell.sentBytes - before);
      assert.equal(r?.success, true);
      outs.push(text(r!.stdout));
    }
    assert.deepEqual(outs, Array(3).fill(`a } b; c|it's|"$E"|$(echo no)|`));
    assert.ok(sent[0]! > 60, `the first request is sent whole (${sent[0]} bytes)`);
    assert.ok(sent[1]! < 10 && sent[2]! < 10, `a repeat is sent as a call (${sent.slice(1)} bytes)`);
    // Its exit code and stderr are the command's own, as for any request.
    const fail = { command: "sh", args: ["-c", "echo err >&2; exit 4"], timeoutMs: 10_000 };
    for (let i = 0; i < 2; i++) {
      const r = await shell.run(fail);
      assert.equal(r?.code, 4);
      assert.equal(text(r!.stderr), "err\n");
    }
    // Past the most it keeps as functions, requests still run (sent as written).
    for (let i = 0; i < 70; i++) {
      const r = await shell.run({ command: "echo", args: [`n${i}`], timeoutMs: 10_000 });
      assert.equal(text(r!.stdout), `n${i}\n`);
    }
    const last = shell.sentBytes;
    assert.equal(text((await shell.run({ command: "echo", args: ["n69"], timeoutMs: 10_000 }))!.stdout), "n69\n");
    assert.ok(shell.sentBytes - last > 10, "a request past the limit is not named");
  } finally {
    await shell.close();
  }
});

Deno.test("HelperShell: a new shell (after a deadline) knows no names: a request the old one knew is sent whole", async () => {
  const shell = new HelperShell();
  try {
    const req = { command: "echo", args: ["known"], timeoutMs: 10_000 };
    assert.equal(text((await shell.run(req))!.stdout), "known\n");
    assert.equal(text((await shell.run(req))!.stdout), "known\n");
    assert.equal((await shell.run({ command: "sleep", args: ["30"], timeoutMs: 200 }))?.timedOut, true);
    const again = await shell.run(req);
    assert.equal(again?.success, true, `served by the new shell: ${text(again!.stderr)}`);
    assert.equal(text(again!.stdout), "known\n");
    assert.equal(shell.starts, 2);
  } finally {
    await shell.close();
  }
});

Deno.test("HelperShell: requests it cannot frame are refused up front; a closed shell serves nothing", async () => {
  assert.equal(HelperShell.accepts({ command: "git", args: ["a\nb"], timeoutMs: 1 }), false);
  assert.equal(HelperShell.accepts({ command: "git", args: ["a b", "it's"], timeoutMs: 1 }), true);
  assert.equal(HelperShell.accepts({ command: "git", args: [], env: { "A;B": "x" }, timeoutMs: 1 }), false);
  const shell = new HelperShell();
  assert.equal(text((await shell.run({ command: "echo", args: ["x"], timeoutMs: 10_000 }))!.stdout), "x\n");
  await shell.close();
  assert.equal(await shell.run({ command: "echo", args: ["x"], timeoutMs: 10_000 }), null);
});

Deno.test("HelperShell: a large answer arrives whole; a deadline is kept even when a child outside the group holds the pipe", async () => {
  const shell = new HelperShell();
  try {
    const big = await shell.run({ command: "head", args: ["-c", "3000000", "/dev/zero"], timeoutMs: 30_000 });
    assert.equal(big?.stdout.length, 3_000_000);
    assert.ok(big!.stdout.every((b) => b === 0), "NUL bytes are output, not frames");
    await using dir = await tempDir();
    const pidFile = `${dir.path}/pid`;
    // The child leaves the shell's group (setsid) and keeps stdout open for a minute: the answer cannot wait for it.
    const hold = `setsid sh -c 'echo $$ > ${pidFile}; exec sleep 60' & sleep 60`;
    const t0 = Date.now();
    const late = await shell.run({ command: "sh", args: ["-c", hold], timeoutMs: 300 });
    assert.equal(late?.timedOut, true);
    assert.ok(Date.now() - t0 < 30_000, `answered after ${Date.now() - t0} ms, not when the holder let go`);
    const pidOf = async () => Number((await Deno.readTextFile(pidFile).catch(() => "")).trim());
    await waitFor(async () => (await pidOf()) > 0, { what: "the holder's pid file" });
    const holder = await pidOf();
    if (holder > 0) Deno.kill(holder, "SIGKILL");
    const next = await shell.run({ command: "echo", args: ["ok"], timeoutMs: 10_000 });
    assert.equal(text(next!.stdout), "ok\n");
  } finally {
    await shell.close();
  }
});
