import assert from "node:assert/strict";
import { runHelper } from "../../src/util/helper.ts";
import { pidsWithEnv } from "../../src/util/proc_tree.ts";
import { tempDir } from "../support/fs.ts";
import { waitFor } from "../support/wait.ts";

/**
 * No process carrying `marker` is left: the group was sent SIGKILL, which cannot be ignored, but on a loaded machine a
 * killed process can still be listed for a moment after the helper's own exit was reaped.
 */
async function noneLeft(marker: string, what: string): Promise<void> {
  await waitFor(async () => (await pidsWithEnv("HELPER_MARKER", marker)).length === 0, { what, timeoutMs: 5_000 });
}

async function script(dir: string, body: string): Promise<string> {
  const path = `${dir}/helper.sh`;
  await Deno.writeTextFile(path, `#!/bin/sh\n${body}\n`);
  await Deno.chmod(path, 0o755);
  return path;
}

Deno.test("runHelper: a helper that ignores SIGTERM is killed at deadline + grace, with its whole group", async () => {
  await using dir = await tempDir();
  const marker = crypto.randomUUID();
  const exe = await script(dir.path, `trap '' TERM; sleep 30 & trap '' TERM; echo started; wait`);
  const t0 = Date.now();
  const r = await runHelper(exe, { timeoutMs: 300, killGraceMs: 300, env: { HELPER_MARKER: marker } });
  const took = Date.now() - t0;
  assert.equal(r.timedOut, true);
  assert.equal(r.success, false);
  assert.equal(r.signal, "SIGKILL");
  assert.match(new TextDecoder().decode(r.stdout), /started/);
  assert.ok(took < 3000, `returned after ${took} ms`);
  await noneLeft(marker, "no process of the helper to survive");
});

Deno.test("runHelper: a helper that exits but leaves a child holding stdout returns and the child is killed", async () => {
  await using dir = await tempDir();
  const marker = crypto.randomUUID();
  const exe = await script(dir.path, `echo v1.2.3; sleep 30 & exit 0`);
  const t0 = Date.now();
  const r = await runHelper(exe, { timeoutMs: 20_000, env: { HELPER_MARKER: marker } });
  const took = Date.now() - t0;
  assert.equal(r.timedOut, false);
  assert.equal(r.success, true);
  assert.equal(new TextDecoder().decode(r.stdout).trim(), "v1.2.3");
  assert.ok(took < 5000, `returned after ${took} ms`);
  await noneLeft(marker, "the leftover child to be gone");
});

Deno.test("runHelper: a missing executable throws NotFound (callers keep their launch errors)", async () => {
  await using dir = await tempDir();
  await assert.rejects(() => runHelper(`${dir.path}/nope`), Deno.errors.NotFound);
});

Deno.test("runHelper viaSetsid: the helper leads its own session and process group, as a detached spawn does", async () => {
  const ids = "read pid comm state ppid pgrp sid rest < /proc/$$/stat; echo $pid $pgrp $sid";
  for (const viaSetsid of [true, false]) {
    const r = await runHelper("sh", { args: ["-c", ids], viaSetsid });
    assert.equal(r.success, true);
    const [pid, pgrp, sid] = new TextDecoder().decode(r.stdout).trim().split(" ");
    assert.ok(pid && pid === pgrp && pid === sid, `viaSetsid ${viaSetsid}: pid ${pid}, pgrp ${pgrp}, sid ${sid}`);
    assert.notEqual(pgrp, String(Deno.pid));
  }
});

Deno.test("runHelper viaSetsid: deadline and leftover children are handled for the whole group", async () => {
  await using dir = await tempDir();
  const marker = crypto.randomUUID();
  const exe = await script(dir.path, `trap '' TERM; sleep 30 & echo started; wait`);
  const r = await runHelper(exe, { timeoutMs: 300, killGraceMs: 300, env: { HELPER_MARKER: marker }, viaSetsid: true });
  assert.equal(r.timedOut, true);
  assert.equal(r.signal, "SIGKILL");
  await noneLeft(marker, "no process of the helper to survive");
  const left = await script(dir.path, `echo v1; sleep 30 & exit 0`);
  const ok = await runHelper(left, { timeoutMs: 20_000, env: { HELPER_MARKER: marker }, viaSetsid: true });
  assert.equal(new TextDecoder().decode(ok.stdout).trim(), "v1");
  await noneLeft(marker, "the leftover child to be gone");
});

const HAS_SETSID = ["/usr/bin/setsid", "/bin/setsid"].some((p) => {
  try {
    return Deno.statSync(p).isFile;
  } catch {
    return false;
  }
});

Deno.test({
  name: "runHelper viaSetsid: a helper killed by a terminal signal is started again, detached",
  ignore: !HAS_SETSID,
}, async () => {
  await using dir = await tempDir();
  const once = `${dir.path}/once`;
  // The first start dies of SIGINT, as one caught by Ctrl-C before setsid() ran would; the second one runs.
  const exe = await script(dir.path, `if [ ! -e ${once} ]; then : > ${once}; kill -INT $$; sleep 5; fi; echo ran`);
  const r = await runHelper(exe, { viaSetsid: true });
  assert.equal(r.success, true);
  assert.equal(new TextDecoder().decode(r.stdout).trim(), "ran");
});
