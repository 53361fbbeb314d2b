/**
 * On a real pseudo-terminal (`script`), replayed on the terminal model of tests/support/vt.ts (docs/status.md): `run`
 * draws the live status line while the demo packet runs and it is gone from the final screen, which holds the stream
 * and the runner's lines intact; `NO_COLOR` and `--no-status-line` turn it off; `status --watch` redraws one report
 * in place, and off a terminal appends a report only when something changed.
 */
import assert from "node:assert/strict";
import { setupExample } from "../../examples/setup.ts";
import { childEnv, MAIN, permissionFlags, ROOT, runCli, spawnCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { Vt } from "../support/vt.ts";
import { redrawFrom, rowsOf } from "../../src/cli/status.ts";
import { RUN_ID, startLivePlane, writeDemoPacket } from "../control/_harness.ts";
import { storePaths, storeRootForPacket } from "../../src/store/paths.ts";
import { TextFollower, waitFor, within } from "../support/wait.ts";

const COLUMNS = 100;

/** A POSIX shell word. */
function word(s: string): string {
  return `'${s.replaceAll("'", "'\\''")}'`;
}

/** Spawn the CLI on a pseudo-terminal of {@link COLUMNS} columns; its stdout is what the terminal received. */
function spawnOnTty(args: string[], env: Record<string, string>): Deno.ChildProcess {
  const cli = [Deno.execPath(), "run", "--quiet", "--no-prompt", ...permissionFlags(args), MAIN, ...args];
  const line = `stty cols ${COLUMNS} rows 40; exec ${cli.map(word).join(" ")}`;
  return new Deno.Command("script", {
    args: ["-qfec", line, "/dev/null"],
    cwd: ROOT,
    clearEnv: true,
    env: childEnv({ TERM: "xterm-256color", ...env }),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

/** Run the CLI on a pseudo-terminal to its end. */
async function onTty(args: string[], env: Record<string, string>): Promise<{ code: number; raw: string }> {
  const out = await spawnOnTty(args, env).output();
  return { code: out.code, raw: new TextDecoder().decode(out.stdout) };
}

const STATUS = /prompt \d\/3 0\d · attempt \d \((run|retry)\) · \S+/;

Deno.test("run on a terminal draws the status line below the stream and leaves only the stream", async () => {
  await using dir = await tempDir();
  const packet = await setupExample("demo", dir.path);
  const r = await onTty(["run", packet], { NO_COLOR: "" });
  assert.equal(r.code, 0, r.raw);
  assert.match(r.raw, STATUS);
  assert.match(r.raw, /prompt 3\/3 03 · attempt 2 \(retry\)/);
  const vt = new Vt(COLUMNS);
  vt.write(r.raw);
  const screen = vt.lines();
  assert.ok(!screen.some((l) => /· last event|no events yet/.test(l)), screen.join("\n"));
  for (const id of ["01", "02", "03"]) assert.ok(screen.includes(`✓ Prompt ${id} completed`), screen.join("\n"));
  assert.ok(screen.some((l) => /^Retrying prompt 03 after provider_capacity/.test(l)), screen.join("\n"));
  assert.ok(screen.some((l) => /^ {2}Prompt 02: Write the guide {2}· attempt 1 \(run\)$/.test(l)), screen.join("\n"));
});

Deno.test("NO_COLOR and --no-status-line turn the status line off on a terminal", async () => {
  await using dir = await tempDir();
  const packet = await setupExample("demo", dir.path);
  const plain = await onTty(["run", packet, "03", "--new-run"], { NO_COLOR: "1" });
  assert.equal(plain.code, 0, plain.raw);
  assert.ok(!STATUS.test(plain.raw), plain.raw);
  assert.match(plain.raw, /✓ Prompt 03 completed/);
  const off = await onTty(["run", packet, "03", "--new-run", "--no-status-line"], { NO_COLOR: "" });
  assert.equal(off.code, 0, off.raw);
  assert.ok(!STATUS.test(off.raw), off.raw);
  assert.match(off.raw, /✓ Prompt 03 completed/);
});

/** A run record of the harness's run, so the rollup has a selection. */
async function runRecord(dir: string, runId: string): Promise<void> {
  const p = storePaths(storeRootForPacket(dir));
  await Deno.mkdir(p.runDir(runId), { recursive: true });
  const now = new Date().toISOString();
  const record = {
    schema: "prompt_runner.run/v1",
    run_id: runId,
    state: "running",
    packet_fingerprint: "x",
    selection: { ids: ["01", "02"], selectors: {} },
    created_at: now,
    updated_at: now,
    resumed_at: [],
    reason: null,
  };
  await Deno.writeTextFile(`${p.runDir(runId)}/run.json`, JSON.stringify(record));
  await Deno.writeTextFile(p.currentRun, JSON.stringify({ run_id: runId, path: `runs/${runId}/run.json` }));
}

// deno-lint-ignore no-control-regex
const REDRAW = /\x1b\[\d+A\r\x1b\[J/g;

Deno.test("status --watch on a terminal redraws one report in place until the run ends", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  await runRecord(dir, RUN_ID);
  const live = await startLivePlane(dir);
  const child = spawnOnTty(["status", dir, "--watch", "--interval", "100ms"], { NO_COLOR: "" });
  const out = new TextFollower(child.stdout);
  // Redrawn on every poll while the run goes on (its clocks move), not only on a change.
  await out.until((t) => (t.match(REDRAW) ?? []).length >= 3);
  await live.stop();
  const raw = await out.rest();
  assert.equal((await child.status).code, 0, raw);
  assert.ok((raw.match(REDRAW) ?? []).length >= 3, raw);
  const vt = new Vt(COLUMNS);
  vt.write(raw);
  const screen = vt.lines();
  const headers = screen.filter((l) => / — [A-Z ]+ · /.test(l));
  assert.deepEqual(headers, ["  demo — COMPLETED · healthy"], screen.join("\n"));
});

Deno.test("status --watch off a terminal appends a report only when something changed, without escapes", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  await runRecord(dir, RUN_ID);
  const live = await startLivePlane(dir);
  const child = spawnCli(["status", dir, "--watch", "--interval", "50ms"]);
  const out = new TextFollower(child.stdout);
  await out.until((t) => t.includes("RUNNING"));
  await runCli(["control", "view", dir, "--diff", "full", "--wait"]);
  await live.stop();
  const text = await out.rest();
  assert.equal((await child.status).code, 0, text);
  assert.ok(!text.includes("\x1b"), text);
  const reports = text.trimEnd().split("\n\n");
  assert.ok(reports.length >= 2 && reports.length < 20, `${reports.length} reports:\n${text}`);
  assert.match(reports[0]!, /^ {2}demo — RUNNING · healthy\n/);
  assert.match(reports.at(-1)!, /^ {2}demo — COMPLETED · healthy\n/);
  // Each report differs from the one before in more than its clocks.
  const clockless = (r: string) => r.replace(/[\d.]+m?s this prompt · updated \d+s ago/, "");
  for (let i = 1; i < reports.length; i++) assert.notEqual(clockless(reports[i]!), clockless(reports[i - 1]!), text);
});

Deno.test("status --watch waits for a completed run's runner to release its lease instead of ending on 'needs attention'", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  await runRecord(dir, RUN_ID);
  // A runner that closes the run and then holds its lease (its exit sweep is slow) until told to release it.
  const live = await startLivePlane(dir, RUN_ID, "completed", true);
  const child = spawnCli(["status", dir, "--watch", "--interval", "50ms"]);
  const output = child.output();
  const stopped = live.stop();
  const snapshot = storePaths(storeRootForPacket(dir)).snapshot;
  await waitFor(async () => JSON.parse(await Deno.readTextFile(snapshot)).status === "completed", {
    what: "the run closed",
  });
  // Longer than a one-shot status gives a release (1 s): the watch must still be waiting, not reporting.
  const early = await within(child.status, 3000, null);
  live.child.kill("SIGUSR1");
  await stopped;
  const out = await output;
  const text = new TextDecoder().decode(out.stdout);
  assert.equal(early, null, `status --watch ended while the runner was still releasing its lease:\n${text}`);
  assert.equal(out.code, 0, text);
  const reports = text.trimEnd().split("\n\n");
  assert.match(reports.at(-1)!, /^ {2}demo — COMPLETED · healthy\n/, text);
  assert.ok(!text.includes("needs attention"), text);
});

Deno.test("rowsOf() counts wrapped rows of a report; redrawFrom() moves up over them, or clears a screen too small", () => {
  assert.equal(rowsOf("a\nb\n", 80), 2);
  assert.equal(rowsOf(`${"x".repeat(81)}\n\x1b[2mdim\x1b[0m\n`, 80), 3);
  assert.equal(rowsOf("\n", 80), 1);
  assert.equal(redrawFrom(0, 24), "");
  assert.equal(redrawFrom(5, 24), "\x1b[5A\r\x1b[J");
  assert.equal(redrawFrom(30, 24), "\x1b[H\x1b[2J");
});
