/**
 * The heartbeat (src/run/heartbeat.ts, docs/status.md): a line after each interval of silence, any output resetting
 * it; its interval from `--heartbeat`, `PROMPT_RUNNER_HEARTBEAT` or the default; and, black-box, a run whose provider
 * is silent for a while prints heartbeat lines on a stdout that is not a terminal — whole lines, never glued to the
 * stream.
 */
import assert from "node:assert/strict";
import { DEFAULT_HEARTBEAT_MS, Heartbeat, HEARTBEAT_ENV, heartbeatInterval } from "../../src/run/heartbeat.ts";
import { UsageError } from "../../src/errors.ts";
import { createScratchRepo } from "../../examples/setup.ts";
import { runCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { promptText, writePacket } from "../packet/_packet.ts";

Deno.test("Heartbeat writes a line after each interval of silence; output starts the silence over", () => {
  let now = 0;
  const lines: string[] = [];
  const beat = new Heartbeat({
    intervalMs: 1000,
    now: () => now,
    line: () => `beat at ${now}`,
    write: (l) => lines.push(l),
  });
  now = 999;
  assert.equal(beat.check(), false);
  now = 1000;
  assert.equal(beat.check(), true);
  now = 1500;
  beat.output(); // the stream wrote something
  now = 2400;
  assert.equal(beat.check(), false);
  now = 2500;
  assert.equal(beat.check(), true);
  assert.deepEqual(lines, ["beat at 1000", "beat at 2500"]);
  assert.equal(beat.beats, 2);
});

Deno.test("heartbeatInterval(): the flag beats the variable beats the default; off and 0 turn it off", () => {
  assert.equal(heartbeatInterval(undefined, undefined), DEFAULT_HEARTBEAT_MS);
  assert.equal(DEFAULT_HEARTBEAT_MS, 30_000);
  assert.equal(heartbeatInterval(undefined, "2m"), 120_000);
  assert.equal(heartbeatInterval(undefined, " "), DEFAULT_HEARTBEAT_MS);
  assert.equal(heartbeatInterval("500ms", "2m"), 500);
  assert.equal(heartbeatInterval("off", "2m"), null);
  assert.equal(heartbeatInterval(undefined, "0"), null);
  assert.throws(() => heartbeatInterval("soon", undefined), (e: Error) => {
    assert.ok(e instanceof UsageError);
    assert.match(e.message, /--heartbeat does not take "soon"/);
    return true;
  });
  assert.throws(() => heartbeatInterval(undefined, "-1s"), new RegExp(`${HEARTBEAT_ENV} does not take "-1s"`));
});

/** A one-prompt packet whose simulated session streams a word, then runs a tool silently for `silentMs`. */
async function silentPacket(root: string, silentMs: number): Promise<string> {
  const dir = `${root}/quiet`;
  await createScratchRepo(`${dir}/app`);
  await writePacket(dir, "name: quiet\nprovider: simulated\nrepos: {app: {path: ./app, default: true}}\n", {
    "01_slow.prompt.md": promptText(
      [
        "verify:",
        "  files_exist: [done.txt]",
        "simulate:",
        "  attempts:",
        "    - messages: [Thinking about it]",
        "      tools:",
        "        - name: Write",
        "          input: { file_path: done.txt }",
        "          output: ok",
        `          delay_ms: ${silentMs}`,
        "          writes: [{ path: done.txt, text: done }]",
        "",
      ].join("\n"),
      "# Slow\n\nWrite done.txt.\n",
    ),
  });
  return dir;
}

Deno.test("run: a silent provider gets heartbeat lines on a non-terminal stdout, whole lines between the stream's", async () => {
  await using t = await tempDir();
  const dir = await silentPacket(t.path, 3000);
  const r = await runCli(["run", dir, "--heartbeat", "200ms"]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const lines = r.stdout.split("\n");
  const beats = lines.filter((l) => l.includes("still running"));
  assert.ok(beats.every((b) => b.startsWith("· still running: prompt ")), r.stdout);
  // During the silent tool call (3 s, beats every 200 ms): where the run is and how long the silence has lasted.
  const session =
    /^· still running: prompt 1\/1 01 · attempt 1 \(run\) · session · [\d.]+m?s · Write running \d+s · last event \d+s ago · 1 tool$/;
  assert.ok(beats.filter((b) => session.test(b)).length >= 2, r.stdout);
  // Never glued to a stream line: every other line is as the stream wrote it, none contains a heartbeat.
  assert.ok(lines.every((l) => !l.includes("still running") || l.startsWith("· still running")), r.stdout);
  assert.ok(lines.includes("✓ Prompt 01 completed"), r.stdout);
  // The heartbeat is not part of the run's record: the attempt log does not have it.
  const logs = [...Deno.readDirSync(`${dir}/.prompt_runner/logs`)].filter((e) => e.name.endsWith(".log"));
  for (const e of logs) {
    assert.ok(!Deno.readTextFileSync(`${dir}/.prompt_runner/logs/${e.name}`).includes("still running"), e.name);
  }
});

Deno.test("run --heartbeat off (or the variable) prints none; a bad value is a usage error before anything runs", async () => {
  await using t = await tempDir();
  const dir = await silentPacket(t.path, 600);
  const off = await runCli(["run", dir, "--heartbeat", "off"], { env: { [HEARTBEAT_ENV]: "100ms" } });
  assert.equal(off.code, 0, off.stdout + off.stderr);
  assert.ok(!off.stdout.includes("still running"), off.stdout);
  const bad = await runCli(["run", dir, "--new-run"], { env: { [HEARTBEAT_ENV]: "often" } });
  assert.equal(bad.code, 2, bad.stdout + bad.stderr);
  assert.match(bad.stderr, new RegExp(`${HEARTBEAT_ENV} does not take "often"`));
});

Deno.test("run --json: the heartbeat goes to stderr and stdout stays JSON lines", async () => {
  await using t = await tempDir();
  const dir = await silentPacket(t.path, 1500);
  const r = await runCli(["run", dir, "--json", "--heartbeat", "200ms"]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  for (const line of r.stdout.trim().split("\n")) JSON.parse(line);
  assert.ok(!r.stdout.includes("still running"), r.stdout);
  assert.match(r.stderr, /^· still running: prompt 1\/1 01 · attempt 1 \(run\) · session · /m);
});
