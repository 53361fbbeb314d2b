/**
 * One status vocabulary (docs/status.md) across `status`, `control status`, `list` and `watch`, black-box over the
 * shipped demo packet: three prompts, the first two report 1200/85 and 2400/140 tokens, the third fails once on
 * provider capacity and passes on its retry.
 */
import assert from "node:assert/strict";
import { setupExample } from "../../examples/setup.ts";
import { parseJsonOut, runCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";

async function demoRun(root: string): Promise<string> {
  const packet = await setupExample("demo", root);
  const r = await runCli(["run", packet]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  return packet;
}

Deno.test("after a run, status and control status report the same tokens, tools and attempts", async () => {
  await using dir = await tempDir();
  const packet = await demoRun(dir.path);
  const label = packet.slice(packet.lastIndexOf("/") + 1);

  const cs = await runCli(["control", "status", packet]);
  assert.equal(cs.code, 0, cs.stderr);
  // The last attempt (03's retry) reported no tokens; the run's total is every attempt's.
  assert.match(cs.stdout, /\n {2}tokens {4}0 in \/ 0 out this attempt · 3600 in \/ 225 out this run\n/);
  assert.match(cs.stdout, /\n {2}attempt {3}2 \(retry\), stream initial\n/);
  assert.match(cs.stdout, /\n {2}tools {5}1 this attempt\n/);
  assert.ok(cs.stdout.startsWith(`\n  ${label}  `), cs.stdout);
  const snap = parseJsonOut(await runCli(["control", "status", packet, "--json"]));
  assert.deepEqual([snap.run_input_tokens, snap.run_output_tokens], [3600, 225]);

  const st = await runCli(["status", packet]);
  assert.equal(st.code, 0, st.stderr);
  const lines = st.stdout.trimEnd().split("\n");
  assert.equal(lines[0], `  ${label} — COMPLETED · healthy`);
  assert.ok(lines.includes("  progress   3/3 prompts complete"), st.stdout);
  assert.ok(lines.includes("  attempt    2 (retry)"), st.stdout);
  assert.ok(lines.includes("  tokens     0 in / 0 out this attempt · 3600 in / 225 out this run"), st.stdout);
  assert.ok(lines.some((l) => /^ {2}activity .* · 1 tool this attempt · \d+ events this run$/.test(l)), st.stdout);
  assert.ok(!/\b1 tools\b/.test(st.stdout), st.stdout);
  // The attempt timeline: one line per prompt, attempts joined by arrows.
  const at = lines.findIndex((l) => l.startsWith("  attempts   "));
  assert.ok(at > 0, st.stdout);
  assert.match(lines[at]!, /^ {2}attempts {3}01 {2}run ✓ [\d.]+m?s$/);
  assert.match(lines[at + 1]!, /^ {13}02 {2}run ✓ [\d.]+m?s$/);
  assert.match(lines[at + 2]!, /^ {13}03 {2}run ✗ provider_capacity [\d.]+m?s → retry ✓ [\d.]+m?s$/);
  const j = parseJsonOut(await runCli(["status", packet, "--json"]));
  const timeline = j.timeline as { prompt_id: string; attempts: { mode: string; status: string }[] }[];
  assert.deepEqual(
    timeline.map((t) => [t.prompt_id, t.attempts.map((a) => `${a.mode}:${a.status}`)]),
    [["01", ["run:completed"]], ["02", ["run:completed"]], ["03", ["run:failed", "retry:completed"]]],
  );
  assert.equal(j.attention, null);
  assert.equal(j.target, label);
});

Deno.test("watch until the run ends exits 0 on a completed run with --require-running; an explicit --for does not", async () => {
  await using dir = await tempDir();
  const packet = await demoRun(dir.path);
  const untilEnd = await runCli(["watch", packet, "--require-running", "--json"]);
  assert.equal(untilEnd.code, 0, untilEnd.stdout + untilEnd.stderr);
  const sample = JSON.parse(untilEnd.stdout.trim().split("\n").at(-1)!);
  assert.deepEqual([sample.state, sample.violation], ["completed", null]);

  const bounded = await runCli(["watch", packet, "--require-running", "--for", "1s", "--json"]);
  assert.equal(bounded.code, 1, bounded.stdout + bounded.stderr);
  assert.equal(JSON.parse(bounded.stdout.trim().split("\n").at(-1)!).violation, "not_running");
  assert.match(bounded.stderr, /watch violation not_running/);

  const once = await runCli(["watch", packet, "--require-running", "--once"]);
  assert.equal(once.code, 1, once.stdout + once.stderr);
});
