/**
 * Ctrl-C exits 130 (docs/exit_codes.md). A terminal's Ctrl-C sends SIGINT to the whole foreground process group, so
 * each command here runs in a process group of its own (`setsid`) and the signal goes to that group: `run` (with
 * everything it spawned), and the followers `status --watch`, `control events --follow`, `control log --follow` and
 * `watch` against the live run. The interrupted run's records must agree with each other afterwards.
 */
import assert from "node:assert/strict";
import { cliCommandOptions, runCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { waitFor } from "../support/wait.ts";
import { history, makePacket, promptFile, readPrompts, readSnapshot } from "../run/support.ts";

/** A session that stays live far longer than the test (it is interrupted). */
const SLOW = "verify:\n  files_exist: [slow.txt]\nsimulate:\n  attempts:\n    - delay_ms: 500\n      messages: [" +
  Array.from({ length: 120 }, (_, i) => `m${i}`).join(", ") + "]\n      writes: [{path: slow.txt}]";

function hasSetsid(): boolean {
  try {
    return new Deno.Command("setsid", { args: ["--version"], stdout: "null", stderr: "null" }).outputSync().success;
  } catch {
    return false;
  }
}

/** A CLI process leading its own process group, with its stdout collected as it arrives. */
interface GroupChild {
  child: Deno.ChildProcess;
  stdout: () => string;
  done: Promise<{ code: number; stdout: string; stderr: string }>;
}

function spawnInGroup(args: string[]): GroupChild {
  const opts = cliCommandOptions(args);
  // setsid does not fork when its caller is not a group leader: the CLI keeps setsid's pid, which is its group id.
  const child = new Deno.Command("setsid", { ...opts, args: [Deno.execPath(), ...opts.args!] }).spawn();
  let out = "";
  const dec = new TextDecoder();
  const reading = (async () => {
    for await (const chunk of child.stdout) out += dec.decode(chunk, { stream: true });
  })();
  const err = new Response(child.stderr).text();
  const done = (async () => {
    const status = await child.status;
    await reading;
    return { code: status.code, stdout: out, stderr: await err };
  })();
  return { child, stdout: () => out, done };
}

/** Ctrl-C: SIGINT to the process group. */
function ctrlC(g: GroupChild): void {
  Deno.kill(-g.child.pid, "SIGINT");
}

Deno.test({
  name: "Ctrl-C exits 130 from run and from every follower, and the interrupted run's records agree",
  ignore: !hasSetsid(),
  fn: async () => {
    await using dir = await tempDir();
    const pkt = await makePacket(dir.path, { "01_a.prompt.md": promptFile("1", SLOW) });
    const run = spawnInGroup(["run", pkt]);
    await waitFor(async () => (await readSnapshot(pkt))?.session_live === true, {
      timeoutMs: 60_000,
      what: "the session to be live",
    });
    // An audit entry, so that `control log --follow` has something to print before it is interrupted.
    assert.equal((await runCli(["control", "view", pkt, "--log-mode", "verbose"])).code, 0);

    const followers = {
      "status --watch": spawnInGroup(["status", pkt, "--watch"]),
      "control events --follow": spawnInGroup(["control", "events", pkt, "--follow"]),
      "control log --follow": spawnInGroup(["control", "log", pkt, "--follow"]),
      "watch": spawnInGroup(["watch", pkt, "--every", "1s"]),
    };
    for (const [name, g] of Object.entries(followers)) {
      await waitFor(() => g.stdout().trim() !== "", { timeoutMs: 60_000, what: `${name} to print` });
    }
    for (const g of Object.values(followers)) ctrlC(g);
    for (const [name, g] of Object.entries(followers)) {
      const r = await g.done;
      assert.equal(r.code, 130, `${name} exits 130 on Ctrl-C:\n${r.stderr}`);
    }
    assert.ok((await readSnapshot(pkt))?.session_live, "the followers' Ctrl-C did not reach the run");

    ctrlC(run);
    const r = await run.done;
    assert.equal(r.code, 130, `run exits 130 on Ctrl-C:\n${r.stderr}`);
    assert.match(r.stderr, /error: run failed: interrupted\n$/);
    const snap = await readSnapshot(pkt);
    assert.equal(snap?.status, "failed");
    assert.equal(snap?.reason, "interrupted");
    assert.equal(snap?.session_live, false);
    const prompts = await readPrompts(pkt);
    assert.deepEqual(history(prompts["01"]), ["run:interrupted"]);
    const current = JSON.parse(await Deno.readTextFile(`${pkt}/.prompt_runner/runs/current.json`));
    const record = JSON.parse(await Deno.readTextFile(`${pkt}/.prompt_runner/runs/${current.run_id}/run.json`));
    assert.equal(record.state, "failed");
    assert.equal(current.run_id, snap?.run_id);
    await assert.rejects(() => Deno.stat(`${pkt}/.prompt_runner/run.pid`), "the lease is released");
    const progress = await Deno.readTextFile(`${pkt}/.prompt_runner/progress.log`).catch(() => "");
    assert.doesNotMatch(progress, /^01:completed/m, "nothing claims the interrupted prompt completed");
    // And the one quiet report says the same.
    const status = await runCli(["status", pkt, "--json"]);
    assert.equal(status.code, 0, status.stderr);
  },
});
