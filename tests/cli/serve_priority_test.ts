/**
 * `control serve --nice` (src/cli/serve/priority.ts): the server lowers its own priority below the runs it serves,
 * by default to nice 10, never raises one it was started with, and says what is in force. Black-box: the command
 * spawned with exactly its permissions; the nice value read from the process table, not from the server's word.
 */
import assert from "node:assert/strict";
import { tempDir } from "../support/fs.ts";
import { writeDemoPacket } from "../control/_harness.ts";
import { cliCommandOptions, runCli } from "../support/cli.ts";
import { DEFAULT_NICE, parseNice } from "../../src/cli/serve/priority.ts";
import { startServe } from "./_serve_support.ts";

/** The nice value of a process's main thread, from `/proc/<pid>/stat` (read by `cat`: Deno reads `/proc` only with -A). */
async function niceOf(pid: number): Promise<number> {
  const out = await new Deno.Command("cat", { args: [`/proc/${pid}/stat`], stdout: "piped" }).output();
  const fields = new TextDecoder().decode(out.stdout).split(") ")[1]!.split(" ");
  // Fields after the command name start at field 3 (state); the nice value is field 19.
  return Number(fields[19 - 3]);
}

Deno.test("parseNice: 0 to 19, the default when absent, nothing else", () => {
  assert.equal(parseNice(undefined), DEFAULT_NICE);
  assert.equal(parseNice("0"), 0);
  assert.equal(parseNice("19"), 19);
  assert.equal(parseNice(" 7 "), 7);
  for (const bad of ["20", "-1", "x", "1.5", "", "100", "1e1"]) assert.equal(parseNice(bad), null, bad);
});

Deno.test("control serve: runs at nice 10 unless told, reports the value in force, and --nice 0 keeps its priority", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  const own = await niceOf(Deno.pid);
  const byDefault = await startServe([dir]);
  try {
    const nice = await niceOf(byDefault.child.pid);
    assert.equal(nice, Math.max(DEFAULT_NICE, own));
    assert.equal(byDefault.nice, nice);
  } finally {
    assert.equal((await byDefault.stop()).code, 0);
  }
  const kept = await startServe([dir, "--nice", "0"]);
  try {
    assert.equal(await niceOf(kept.child.pid), own);
    assert.equal(kept.nice, own);
  } finally {
    assert.equal((await kept.stop()).code, 0);
  }
});

Deno.test("control serve: a server started at a lower priority than --nice asks keeps it (never raised)", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  const opts = cliCommandOptions(["control", "serve", dir, "--nice", "5", "--json"]);
  const child = new Deno.Command("nice", { ...opts, args: ["-n", "15", Deno.execPath(), ...opts.args!] }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  try {
    let buf = "";
    while (!buf.includes("\n")) {
      const r = await reader.read();
      if (r.done) break;
      buf += r.value;
    }
    const line = JSON.parse(buf.slice(0, buf.indexOf("\n"))) as { nice: number };
    assert.equal(line.nice, Math.max(15, await niceOf(Deno.pid)));
    assert.equal(await niceOf(child.pid), line.nice);
  } finally {
    child.kill("SIGTERM");
    await reader.cancel();
    await child.stderr.cancel();
    await child.status;
  }
});

Deno.test("control serve: --nice out of range is refused by name, before anything is served", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  for (const bad of ["20", "-3", "low"]) {
    const r = await runCli(["control", "serve", dir, "--nice", bad]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /--nice does not take/);
    assert.equal(r.stdout, "");
  }
});
