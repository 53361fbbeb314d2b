/**
 * Event segments and retention as a user meets them (docs/reference/control-plane.md §5.2, §5.5): `run` with a
 * small `--events-segment-size` writes sealed segments; `control events` and `replay` read the run across them;
 * the next run with `--keep-runs 0` prunes the earlier run's archive and says so; bad values are usage errors.
 */
import assert from "node:assert/strict";
import { runCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { setupExample } from "../../examples/setup.ts";

Deno.test("run seals segments; control events and replay read across them; --keep-runs prunes the next time", async () => {
  await using dir = await tempDir();
  const pkt = await setupExample("recovery", dir.path);
  const first = await runCli(["run", pkt, "--no-commit", "--events-segment-size", "4K"]);
  assert.equal(first.code, 0, first.stderr);
  const archive = `${pkt}/.prompt_runner/control/events`;
  const sealed = [...Deno.readDirSync(archive)].map((e) => e.name).filter((n) => /\.\d{6}\.jsonl$/.test(n)).sort();
  assert.ok(sealed.length >= 3, `sealed ${sealed.join(", ")}`);
  for (const name of sealed) assert.ok(Deno.statSync(`${archive}/${name}`).size <= 4096, `${name} within the bound`);

  const ev = await runCli(["control", "events", pkt, "--no-follow", "--json"]);
  assert.equal(ev.code, 0, ev.stderr);
  const envs = ev.stdout.trimEnd().split("\n").map((l) => JSON.parse(l) as { seq: number; type: string });
  assert.deepEqual(envs.map((e) => e.seq), envs.map((_, i) => i + 1), "every seq once, in order");
  assert.equal(envs.at(-1)?.type, "run_finished");
  const from = envs.length - 3;
  const tail = await runCli(["control", "events", pkt, "--no-follow", "--json", "--from", String(from)]);
  assert.deepEqual(tail.stdout.trimEnd().split("\n").map((l) => JSON.parse(l).seq), [
    from,
    from + 1,
    from + 2,
    from + 3,
  ]);

  const replay = await runCli(["replay", pkt]);
  assert.equal(replay.code, 0, replay.stderr);
  for (const id of ["01", "05", "09"]) assert.match(replay.stdout, new RegExp(`✓ Prompt ${id} completed`));
  assert.match(replay.stdout, /\nRun \S+ completed\n$/);
  const json = await runCli(["replay", pkt, "--json"]);
  const doc = JSON.parse(json.stdout) as { output: string; events_files: string[]; prompts: string[]; events: number };
  assert.equal(doc.output, replay.stdout, "the streamed --json output is the text output");
  assert.equal(doc.events_files.length, sealed.length + 1);
  assert.equal(doc.prompts.length, 9);
  assert.ok(doc.events > 0);

  const second = await runCli(["run", pkt, "03", "--no-commit", "--new-run", "--allow-dirty", "--keep-runs", "0"]);
  assert.equal(second.code, 0, second.stderr);
  assert.match(second.stdout + second.stderr, /pruned the event archives of 1 earlier run /);
  assert.deepEqual([...Deno.readDirSync(archive)].filter((e) => !e.name.startsWith(".")), [], "the first run is gone");
  const log = await Deno.readTextFile(`${pkt}/.prompt_runner/control/log.jsonl`);
  assert.match(log, /"command":"retention"/);
});

Deno.test("bad segment and retention values are usage errors naming the flag or variable", async () => {
  await using dir = await tempDir();
  const pkt = await setupExample("recovery", dir.path);
  const flag = await runCli(["run", pkt, "--events-segment-size", "12 parsecs"]);
  assert.equal(flag.code, 2);
  assert.match(flag.stderr, /--events-segment-size takes a size of at least 4K .* got "12 parsecs"/);
  const small = await runCli(["run", pkt, "--events-segment-size", "100"]);
  assert.equal(small.code, 2);
  const env = await runCli(["run", pkt], { env: { PROMPT_RUNNER_KEEP_RUNS: "-1" } });
  assert.equal(env.code, 2);
  assert.match(env.stderr, /the environment variable PROMPT_RUNNER_KEEP_RUNS takes a whole number of runs/);
  const start = await runCli(["start", pkt, "--keep-archives-size", "lots"]);
  assert.equal(start.code, 2);
  assert.match(start.stderr, /--keep-archives-size takes a size/);
});
