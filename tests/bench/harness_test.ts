/**
 * The benchmark harness (scripts/bench.ts, scripts/bench/_harness.ts, _results.ts): a case whose command fails or
 * prints the wrong thing fails the bench and records no figure; medians need enough samples; `--save` rewrites the
 * committed file whole, keeps a skipped area's earlier figures (marked), and saves nothing when a case failed.
 */
import assert from "node:assert/strict";
import {
  alternatedRatio,
  BenchFailure,
  check,
  median,
  MIN_REPEATS,
  pairedRatio,
  percentile,
  repeat,
  runChecked,
} from "../../scripts/bench/_harness.ts";
import { type ResultsDoc, runDoc, savedDoc } from "../../scripts/bench/_results.ts";

const BENCH = new URL("../../scripts/bench.ts", import.meta.url).pathname;
const HARNESS = new URL("../../scripts/bench/_harness.ts", import.meta.url).href;
const FLAGS = ["--allow-read", "--allow-write", "--allow-run", "--allow-env", "--allow-sys", "--allow-net=127.0.0.1"];

async function bench(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", ...FLAGS, BENCH, ...args],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

async function readDoc(path: string): Promise<ResultsDoc> {
  return JSON.parse(await Deno.readTextFile(path)) as ResultsDoc;
}

Deno.test("median() takes the middle of at least 5 samples and refuses fewer", () => {
  assert.equal(median([5, 1, 4, 2, 3]), 3);
  assert.equal(median([6, 1, 4, 2, 3, 5]), 3.5);
  assert.throws(() => median([1, 2, 3, 4]), BenchFailure);
  assert.throws(() => median([1, 2, 3, 4, NaN]), BenchFailure);
  assert.equal(median([7], 1), 7);
});

Deno.test("percentile() is the nearest-rank percentile", () => {
  const xs = Array.from({ length: 100 }, (_, i) => 100 - i); // 1..100 shuffled by order
  assert.equal(percentile(xs, 50), 50);
  assert.equal(percentile(xs, 99), 99);
  assert.equal(percentile(xs, 100), 100);
  assert.equal(percentile([3], 99), 3);
  assert.throws(() => percentile([], 50), BenchFailure);
});

Deno.test("repeat() runs at least MIN_REPEATS times, in order", async () => {
  const seen: number[] = [];
  const out = await repeat(MIN_REPEATS, (i) => (seen.push(i), i * 2));
  assert.deepEqual(seen, [0, 1, 2, 3, 4]);
  assert.deepEqual(out, [0, 2, 4, 6, 8]);
  await assert.rejects(() => repeat(3, () => 1), BenchFailure);
});

Deno.test("runChecked() fails on an unexpected exit code or output, naming the command", async () => {
  const deno = Deno.execPath();
  const ok = await runChecked(deno, ["eval", "console.log('fine')"], { expect: (o) => o === "fine\n" ? null : o });
  assert.equal(ok.stdout, "fine\n");
  assert.ok(ok.ms > 0);
  await assert.rejects(
    () => runChecked(deno, ["eval", "console.error('boom'); Deno.exit(4)"]),
    (e) => e instanceof BenchFailure && /exited 4, expected 0: boom/.test(e.message) && e.message.includes("eval"),
  );
  // A command that is expected to fail is fine when it does.
  assert.equal((await runChecked(deno, ["eval", "Deno.exit(3)"], { expectCode: 3 })).code, 3);
  await assert.rejects(
    () => runChecked(deno, ["eval", "console.log('{}')"], { expect: () => "no prompts listed" }),
    (e) => e instanceof BenchFailure && e.message.includes("unexpected output: no prompts listed"),
  );
  assert.throws(() => check(false, "why"), (e) => e instanceof BenchFailure && e.message === "why");
});

Deno.test("savedDoc() keeps a skipped area's earlier figures, marked, and refuses to save a failed run", () => {
  const previous: ResultsDoc = {
    at: "2026-11-30T00:00:00.000Z",
    deno: "2.9.6",
    cpus: 2,
    results: {
      old_area: { measured_at: "2026-11-30T00:00:00.000Z", x_ms: 1 },
      lane: { measured_at: "2026-11-30T00:00:00.000Z", lane_ms: 42 },
      good: { measured_at: "2026-11-30T00:00:00.000Z", y_ms: 9 },
    },
  };
  const at = "2026-12-01T00:00:00.000Z";
  const doc = savedDoc(at, {
    good: { status: "ok", figures: { y_ms: 3 } },
    lane: { status: "skipped", reason: "not installed" },
    never: { status: "skipped", reason: "not installed" },
  }, previous);
  assert.deepEqual(doc.results.good, { measured_at: at, y_ms: 3 });
  assert.equal(doc.results.lane!.lane_ms, 42);
  assert.equal(doc.results.lane!.measured_at, "2026-11-30T00:00:00.000Z");
  assert.match(String(doc.results.lane!.carried_over), /skipped at 2026-12-01.*not installed/);
  assert.deepEqual(doc.results.never, { measured_at: at, skipped: "not installed" });
  assert.equal("old_area" in doc.results, false, "the file is rewritten whole: areas no longer run are dropped");
  assert.throws(() => savedDoc(at, { good: { status: "failed", error: "x" } }, previous), /not saved: good failed/);
  assert.deepEqual(runDoc(at, { good: { status: "failed", error: "x" } }, true).results.good, {
    measured_at: at,
    failed: "x",
  });
});

Deno.test("a failing case fails the bench and records no figure; --save saves nothing then", async () => {
  const root = await Deno.makeTempDir({ prefix: "pr-bench-harness-" });
  try {
    const areas = `${root}/areas`, out = `${root}/out`;
    await Deno.mkdir(areas);
    await Deno.writeTextFile(
      `${areas}/good.ts`,
      `import { median } from "${HARNESS}";\nexport const bench = async () => ({ mid_ms: median([1, 2, 3, 4, 5]) });\n`,
    );
    await Deno.writeTextFile(
      `${areas}/bad.ts`,
      `import { runChecked } from "${HARNESS}";\nexport async function bench() {\n` +
        `  const r = await runChecked(Deno.execPath(), ["eval", "Deno.exit(4)"]);\n  return { never_ms: r.ms };\n}\n`,
    );
    await Deno.writeTextFile(
      `${areas}/gone.ts`,
      `import { BenchSkip } from "${HARNESS}";\nexport const bench = async () => { throw new BenchSkip("no tool"); };\n`,
    );
    await Deno.writeTextFile(`${areas}/_helper.ts`, `throw new Error("not a case");\n`);
    const r = await bench(["--areas-dir", areas, "--out", out]);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /--- bad\n {2}FAILED: `deno eval Deno.exit\(4\)` exited 4/);
    assert.match(r.stdout, /--- gone\n {2}SKIPPED: no tool/);
    assert.match(r.stdout, /mid_ms +3/);
    assert.match(r.stderr, /bench FAILED: bad/);
    const doc = await readDoc(`${out}/tmp/latest.json`);
    assert.deepEqual(Object.keys(doc.results), ["bad", "gone", "good"]);
    assert.equal("never_ms" in doc.results.bad!, false);
    assert.equal(doc.results.good!.mid_ms, 3);

    const saved = await bench(["--save", "--areas-dir", areas, "--out", out]);
    assert.equal(saved.code, 1);
    assert.match(saved.stderr, /nothing saved/);
    await assert.rejects(() => Deno.stat(`${out}/latest.json`), Deno.errors.NotFound);

    // Without the failing case, --save writes the committed file; the skipped area keeps its earlier figures.
    await Deno.remove(`${areas}/bad.ts`);
    await Deno.writeTextFile(
      `${out}/latest.json`,
      JSON.stringify({ at: "x", deno: "x", cpus: 2, results: { gone: { measured_at: "then", tool_ms: 7 } } }),
    );
    const ok = await bench(["--save", "--areas-dir", areas, "--out", out]);
    assert.equal(ok.code, 0, ok.stdout + ok.stderr);
    const committed = await readDoc(`${out}/latest.json`);
    assert.equal(committed.results.good!.mid_ms, 3);
    assert.equal(committed.results.gone!.tool_ms, 7);
    assert.match(String(committed.results.gone!.carried_over), /no tool/);

    const refused = await bench(["--save", "--quick", "--areas-dir", areas, "--out", out]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /--save records full runs only/);
    const partial = await bench(["--save", "good", "--areas-dir", areas, "--out", out]);
    assert.equal(partial.code, 2);
    assert.match(partial.stderr, /rewrites the committed results whole/);
    const unknown = await bench(["nope", "--areas-dir", areas, "--out", out]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /no benchmark area "nope"/);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("the quick bench runs a real case end to end (packet) and records checked figures", async () => {
  const out = await Deno.makeTempDir({ prefix: "pr-bench-quick-" });
  try {
    const r = await bench(["--quick", "packet", "--out", out]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const doc = await readDoc(`${out}/tmp/latest.json`);
    assert.equal(doc.quick, true);
    const figures = doc.results.packet!;
    assert.equal(figures.packet_load_prompts, 50);
    assert.ok(typeof figures.packet_load_big_median_ms === "number" && figures.packet_load_big_median_ms > 0);
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test("alternatedRatio: each loaded window against its two neighbours, the median; a drift without load gives 1", () => {
  // The rate drifts from 100 to 200 over the windows and nothing loads it: U L U L … U read as one series.
  const series = Array.from({ length: 11 }, (_, i) => 100 + 10 * i);
  const without = series.filter((_, i) => i % 2 === 0);
  const withLoad = series.filter((_, i) => i % 2 === 1);
  assert.equal(alternatedRatio(withLoad, without), 1);
  // A 10 % cost in every loaded window shows as 0.9, whatever the drift.
  assert.ok(Math.abs(alternatedRatio(withLoad.map((r) => r * 0.9), without) - 0.9) < 1e-9);
  // One disturbed window moves the median, not the figure.
  const disturbed = withLoad.map((r, k) => (k === 2 ? r * 0.3 : r * 0.95));
  assert.ok(Math.abs(alternatedRatio(disturbed, without) - 0.95) < 1e-9);
  assert.throws(() => alternatedRatio(withLoad, without.slice(1)), BenchFailure);
  assert.throws(() => alternatedRatio(withLoad.slice(0, 4), without.slice(0, 5)), BenchFailure, "five at least");
  assert.throws(() => alternatedRatio([0, ...withLoad.slice(1)], without), BenchFailure);
});

Deno.test("pairedRatio: each run with load against the same repeat's run without, the median; drift between repeats cancels", () => {
  // The machine slows from 700 to 1,000 ms over the repeats; the load costs 10 % in each.
  const without = [700, 760, 820, 880, 940, 1000, 1000];
  const withLoad = without.map((ms) => ms * 1.1);
  assert.ok(Math.abs(pairedRatio(withLoad, without) - 1.1) < 1e-9);
  // No load, only the drift: 1, whatever the order of the durations.
  assert.equal(pairedRatio(without, without), 1);
  // One disturbed repeat moves the median, not the figure.
  assert.ok(Math.abs(pairedRatio(withLoad.map((ms, r) => (r === 3 ? ms * 2 : ms)), without) - 1.1) < 1e-9);
  assert.throws(() => pairedRatio(withLoad, without.slice(1)), BenchFailure);
  assert.throws(() => pairedRatio(withLoad.slice(0, 4), without.slice(0, 4)), BenchFailure, "five at least");
  assert.throws(() => pairedRatio([0, ...withLoad.slice(1)], without), BenchFailure);
});
