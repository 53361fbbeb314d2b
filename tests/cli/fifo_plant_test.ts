/**
 * Issue #11 "zero hangs": FIFOs created and removed again in `control/requests/` faster than the runner lists them
 * (and other special files planted in the watched directories) must not keep a live `run` from ending by itself,
 * exiting with its normal code and releasing its lease.
 */
import assert from "node:assert/strict";
import { parseJsonOut, runCli, spawnCli } from "../support/cli.ts";
import { slowPacket as slowPacketOf, tempDir } from "../support/fs.ts";
import { waitFor, within } from "../support/wait.ts";

/** A simulated packet whose only prompt stays live for about `steps * 100` ms. */
function slowPacket(root: string, steps: number): Promise<string> {
  return slowPacketOf(root, steps, 100);
}

/** Whether a thread of process `pid` waits in a FIFO open (kernel wait channel `wait_for_partner`). */
async function blockedOnFifo(pid: number): Promise<boolean> {
  // Deno reads /proc only with all permissions; the test's own permissions allow running `sh`.
  const out = await new Deno.Command("sh", { args: ["-c", 'cat /proc/"$1"/task/*/wchan', "sh", String(pid)] })
    .output();
  return new TextDecoder().decode(out.stdout).includes("wait_for_partner");
}

/** Resolves with the child's status, or null when it has not exited within `ms`. */
function exitWithin(child: Deno.ChildProcess, ms: number): Promise<Deno.CommandStatus | null> {
  return within(child.status, ms, null);
}

Deno.test("FIFOs created and removed in requests/ before the runner lists them: the run ends, exits 0, drops its lease", async () => {
  await using dir = await tempDir();
  const packet = await slowPacket(dir.path, 100);
  const child = spawnCli(["run", packet], {});
  const requests = `${packet}/.prompt_runner/control/requests`;
  try {
    await waitFor(async () => {
      const s = await runCli(["control", "status", packet, "--json"]);
      return s.code === 0 && (parseJsonOut(s) as { session_live?: boolean }).session_live === true;
    }, { timeoutMs: 20_000, what: "a live session" });
    // A second process plants and removes FIFOs in tight loops while the run is live, until a runner thread is
    // caught stuck opening one (the worst case: nobody can ever write to that FIFO again).
    let hazard = false;
    for (let batch = 0; batch < 40 && !hazard; batch++) {
      const planted = await new Deno.Command("sh", {
        args: ["-c", 'i=0; while [ $i -lt 50 ]; do mkfifo "$1/p$2-$i" && rm -f "$1/p$2-$i"; i=$((i+1)); done', "sh"]
          .concat([requests, String(batch)]),
      }).output();
      assert.ok(planted.success, new TextDecoder().decode(planted.stderr));
      hazard = await blockedOnFifo(child.pid);
    }
    assert.ok(hazard, "a runner thread waits for a FIFO partner (the hazard is live)");
    const status = await exitWithin(child, 30_000);
    assert.ok(status !== null, "the runner ended by itself (no thread blocked on a vanished FIFO)");
    assert.equal(status.code, 0, "the run's normal exit code");
    const snap = parseJsonOut(await runCli(["control", "status", packet, "--json"]));
    assert.equal(snap.status, "completed");
    assert.equal((snap.lease as { state: string }).state, "down");
    const again = await runCli(["run", packet]);
    assert.equal(again.code, 0, `the next run is not refused: ${again.stderr}`);
  } finally {
    try {
      child.kill("SIGKILL");
    } catch { /* already gone */ }
    await child.status;
  }
});

/** Run `args` to completion within `ms`; null when it hung (then it is killed). */
async function runBounded(args: string[], ms: number): Promise<{ code: number; stderr: string } | null> {
  const child = spawnCli(args);
  const out = child.output();
  const status = await exitWithin(child, ms);
  if (status === null) {
    child.kill("SIGKILL");
    await out;
    return null;
  }
  const o = await out;
  return { code: o.code, stderr: new TextDecoder().decode(o.stderr) };
}

Deno.test("a FIFO planted at events.jsonl, log.jsonl or snapshot.json: no observer hangs; readers exit with an error naming the path", async () => {
  await using dir = await tempDir();
  const packet = await slowPacket(dir.path, 1);
  assert.equal((await runCli(["run", packet])).code, 0);
  const control = `${packet}/.prompt_runner/control`;
  for (
    const [file, args] of [
      ["events.jsonl", ["control", "events", packet]],
      ["events.jsonl", ["control", "events", packet, "--no-follow"]],
      ["log.jsonl", ["control", "log", packet, "--follow"]],
      ["log.jsonl", ["control", "log", packet]],
    ] as const
  ) {
    const path = `${control}/${file}`;
    await Deno.rename(path, `${path}.saved`);
    const made = await new Deno.Command("mkfifo", { args: [path] }).output();
    assert.ok(made.success);
    try {
      const r = await runBounded([...args], 20_000);
      assert.ok(r !== null, `${args.join(" ")} ended by itself facing a FIFO at ${file}`);
      assert.notEqual(r.code, 0, `${args.join(" ")}: ${r.stderr}`);
      assert.ok(r.stderr.includes(path), `${args.join(" ")} names ${path}: ${r.stderr}`);
    } finally {
      await Deno.remove(path);
      await Deno.rename(`${path}.saved`, path);
    }
  }
  // A FIFO at snapshot.json: every observer ends by itself; the one that must read it names it.
  const snap = `${control}/snapshot.json`;
  await Deno.rename(snap, `${snap}.saved`);
  assert.ok((await new Deno.Command("mkfifo", { args: [snap] }).output()).success);
  for (
    const args of [["watch", packet, "--once"], ["watch", packet, "--every", "100ms", "--for", "500ms"], [
      "status",
      packet,
    ]]
  ) {
    assert.ok((await runBounded(args, 20_000)) !== null, `${args.join(" ")} ended by itself facing a FIFO snapshot`);
  }
  const status = await runBounded(["control", "status", packet], 20_000);
  assert.ok(status !== null && status.code !== 0 && status.stderr.includes(snap), status?.stderr);
});
