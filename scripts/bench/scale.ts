/**
 * Per-prompt cost against packet size (docs/bench.md, `scale`): generated packets of N trivial simulated prompts
 * (each writes one file; contract `files_exist` + `contains`) run with the real CLI, `run --no-commit`, in a
 * subprocess. Every run must exit 0 with every prompt completed in progress.log.
 *
 * - flatness: a big run's per-prompt times from progress.log timestamps (consecutive completion instants, ms
 *   resolution, taken over windows of 10 prompts), the median of its first and of its last decile, and their ratio;
 *   {@link REPEATS} big runs, each on a packet of its own, and the median of their ratios (target ≤ 1.25): one run's
 *   ratio moves by ±0.3 with the machine (docs/bench.md, "Seventeenth pass");
 * - overhead: (t(101) − t(1)) / 100, each t the median wall time of ≥ 5 runs, the two sizes alternated; "without
 *   git" (≤ 5 ms) subtracts the one git query a prompt makes (its baseline `git status`, through a helper shell as the
 *   runner does), timed in this process on the same repo;
 * - memory: the big runs' highest peak RSS (`VmHWM` of /proc/<pid>/status, sampled every 250 ms until it exits;
 *   ≤ 200 MB);
 *   and the same packet run again as a CI job would run it — `--report junit=… --report summary=… --report json=…`
 *   under `GITHUB_ACTIONS=true` with a step-summary file — whose reports must hold every prompt (≤ 200 MB too);
 * - the I/O floor: what a prompt's required durable writes alone cost on the same file system (three fsynced appends —
 *   events.jsonl, journal, progress.log; docs/bench.md "Per-prompt cost"),
 *   median of 5 passes of 101 prompts' worth, so the overhead can be read against what no change may remove;
 * - the reading side: `replay`, `status --json`, `list --json` and `plan --json` over the 101-prompt run and the big
 *   run (median of 5 each, every output checked to show every prompt), and their cost per further prompt (no target:
 *   a read of the big run should cost about what the prompts it shows make it).
 */
import { denoFlagsFor } from "../../src/cli/frame.ts";
import { findCommand } from "../../src/cli/registry.ts";
import { parseProgress, parseProgressLine } from "../../src/store/progress.ts";
import { BenchFailure, check, jsonObjectOf, median, round, runChecked, sized } from "./_harness.ts";
import { writeScalePacket } from "./_scale_packet.ts";
import { HelperShell } from "../../src/util/helper_shell.ts";
import { BRANCH_STATUS_ARGS, GIT_ENV } from "../../src/contract/git.ts";
import { RUNNER_V8_FLAGS } from "../../src/run/detach.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const BIG = sized(10_000, 600); // --quick: 600, the fewest whose deciles hold the 5 windows a median needs
const REPEATS = 5;
const SAMPLE_MS = 250;

/** Timings of one checked run. */
interface ScaleRun {
  ms: number;
  peakRssKb: number;
  /** Completion instants (ms since epoch) in progress.log order. */
  doneAt: number[];
}

/**
 * `VmHWM` (peak RSS, kB) of a live process, or null once it has exited. Read by `cat`: Deno reads `/proc` only with
 * `--allow-all`, and the bench runs with named permissions.
 */
async function vmHwmKb(pid: number): Promise<number | null> {
  const out = await new Deno.Command("cat", { args: [`/proc/${pid}/status`], stdout: "piped", stderr: "null" })
    .output();
  const m = /VmHWM:\s+(\d+) kB/.exec(new TextDecoder().decode(out.stdout));
  return m ? Number(m[1]) : null;
}

/** The reports of a CI run: the files `--report` names and the step summary, under `dir/ci/`. */
function ciFiles(dir: string) {
  return {
    junit: `${dir}/ci/junit.xml`,
    summary: `${dir}/ci/summary.md`,
    json: `${dir}/ci/summary.json`,
    step: `${dir}/ci/step_summary.md`,
  };
}

/**
 * `run <dir> --no-commit` launched as the product launches a runner (`runnerCommand()`: its permissions and
 * {@link RUNNER_V8_FLAGS}); checks exit 0 and every prompt completed. `ci`: with the three reports, under GitHub
 * Actions (its environment variables), the reports checked to hold every prompt.
 */
async function runPacketOnce(dir: string, count: number, ci = false): Promise<ScaleRun> {
  await Deno.remove(`${dir}/.prompt_runner`, { recursive: true }).catch(() => {});
  await Deno.remove(`${dir}/app/out`, { recursive: true }).catch(() => {});
  await Deno.remove(`${dir}/ci`, { recursive: true }).catch(() => {});
  const flags = denoFlagsFor(findCommand(["run"])!.entry.permissions);
  const files = ciFiles(dir);
  const reports = ci ? ["--report", `junit=${files.junit}`, "--report", `summary=${files.summary}`] : [];
  if (ci) reports.push("--report", `json=${files.json}`);
  if (ci) await Deno.mkdir(`${dir}/ci`, { recursive: true });
  const ciEnv = ci ? { GITHUB_ACTIONS: "true", GITHUB_STEP_SUMMARY: files.step, GITHUB_WORKSPACE: dir } : {};
  const t0 = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", ...RUNNER_V8_FLAGS, ...flags, MAIN, "run", dir, "--no-commit", ...reports],
    cwd: dir,
    env: { NO_COLOR: "1", ...ciEnv },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  // VmHWM only grows: the last sample before the exit is the peak, up to the growth of the final interval.
  let peak = 0;
  let running = true;
  const sampling = (async () => {
    while (running) {
      peak = Math.max(peak, await vmHwmKb(child.pid) ?? 0);
      await new Promise((r) => setTimeout(r, SAMPLE_MS));
    }
  })();
  const out = await child.output();
  const ms = performance.now() - t0;
  running = false;
  await sampling;
  if (out.code !== 0) {
    throw new BenchFailure(
      `run of ${count} prompts exited ${out.code}: ${new TextDecoder().decode(out.stderr).slice(-600)}`,
    );
  }
  const path = `${dir}/.prompt_runner/progress.log`;
  const text = await Deno.readTextFile(path);
  const progress = parseProgress(text, path);
  const done = [...progress.values()].filter((r) => r.status === "completed").length;
  check(progress.size === count && done === count, `${done} of ${count} prompts completed in progress.log`);
  const doneAt = text.trim().split("\n").map((l) => Date.parse(parseProgressLine(l)?.at ?? ""));
  check(doneAt.every(Number.isFinite), "a progress.log timestamp did not parse");
  if (ci) await checkReports(files, count);
  return { ms, peakRssKb: peak, doneAt };
}

/** The CI run's reports hold every prompt, completed; the step summary was appended. */
async function checkReports(files: ReturnType<typeof ciFiles>, count: number): Promise<void> {
  const doc = JSON.parse(await Deno.readTextFile(files.json)) as { prompts?: { status?: string }[] };
  const completed = (doc.prompts ?? []).filter((p) => p.status === "completed").length;
  check(completed === count, `the json report has ${completed} of ${count} prompts completed`);
  const xml = await Deno.readTextFile(files.junit);
  check(
    xml.includes(`<testsuites name="prompt_runner" tests="${count}" failures="0" errors="0" skipped="0"`),
    "junit totals",
  );
  check(xml.split("<testcase ").length - 1 === count, `the junit report has not ${count} testcases`);
  check(xml.trimEnd().endsWith("</testsuites>"), "the junit report is not closed");
  const md = await Deno.readTextFile(files.summary);
  check(md.split("\n").filter((l) => l.includes("| ✅ completed |")).length === count, "summary rows");
  const step = await Deno.readTextFile(files.step);
  check(step.startsWith("## prompt_runner: ") && step.includes("✅ completed"), "the step summary was not appended");
}

/** Back-to-back git status timings after all the timed runs (the second figure; see {@link gitStatusMs}). */
const GIT_BACK_TO_BACK = 11;

/**
 * `count` timings (ms) of the baseline's `git status` in `repo`, through a helper shell as the runner runs it (the
 * shell already started). The figure subtracted is one timing before each timed run, on a repo as a 101-prompt run
 * leaves it: a single `git status` after other work, as a run makes one every few ms among its own work, and in the
 * same minutes as the runs. A second figure times 11 back to back after all the runs (the method before the
 * sixteenth pass): git's best case, warm, so its figure without git is the higher of the two (docs/bench.md).
 */
async function gitStatusMs(shell: HelperShell, repo: string, count: number): Promise<number[]> {
  const args = ["-C", repo, ...BRANCH_STATUS_ARGS];
  const env = { ...GIT_ENV };
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    const r = await shell.run({ command: "git", args, env, timeoutMs: 60_000 });
    const ms = performance.now() - t0;
    check(r !== null && r.success, `git status in ${repo} failed`);
    check(new TextDecoder().decode(r!.stdout).includes("# branch.oid "), "git status printed no branch.oid");
    times.push(ms);
  }
  return times;
}

/**
 * Per-prompt ms of the writes the crash-safety rules require of a trivial prompt, done as the runner does them in
 * `dir`: three line appends each followed by an fsync (`events.jsonl` at the boundary, the journal, `progress.log`).
 * The snapshot is a view written about once per coalescing window, not per prompt (docs/reference/control-plane.md
 * §4.4), so none of its writes is part of the floor.
 */
function ioFloorMs(dir: string): number {
  const line = new TextEncoder().encode(
    `${JSON.stringify({ seq: 1, type: "prompt_finished", pad: "x".repeat(200) })}\n`,
  );
  const files = ["events.jsonl", "journal.jsonl", "progress.log"].map((n) =>
    Deno.openSync(`${dir}/${n}`, { create: true, append: true })
  );
  const passes: number[] = [];
  try {
    for (let pass = 0; pass < REPEATS; pass++) {
      const t0 = performance.now();
      for (let p = 0; p < 101; p++) {
        for (const f of files) {
          f.writeSync(line);
          f.syncSync();
        }
      }
      passes.push((performance.now() - t0) / 101);
    }
  } finally {
    for (const f of files) f.close();
  }
  check(Deno.statSync(`${dir}/progress.log`).size === line.length * 101 * REPEATS, "the I/O floor's appends were lost");
  return median(passes);
}

/** Median µs of creating one small new file in `dir` (a new directory), over `count` files left in place. */
function createProbeUs(dir: string, count = 40): number {
  Deno.mkdirSync(dir, { recursive: true });
  const bytes = new Uint8Array(16);
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    Deno.writeFileSync(`${dir}/f${i}`, bytes, { createNew: true });
    times.push((performance.now() - t0) * 1000);
  }
  return median(times);
}

/** Prompts per window of {@link decileMedian}: completion instants have ms resolution, a prompt takes a few ms. */
const WINDOW = 10;

/**
 * Median per-prompt ms of the prompts `from`..`to` (0-based, exclusive end) of a run's completion instants, taken
 * over consecutive windows of {@link WINDOW} prompts (each window's span / its prompt count). A single prompt's gap is
 * a whole number of ms for a prompt of 3–6 ms, so its median moved by a whole ms (±25%) from run to run; a window's
 * mean has 0.1 ms resolution, and the median over windows still ignores an outlier (a GC pause) as before.
 */
function decileMedian(doneAt: number[], from: number, to: number): number {
  const perPrompt: number[] = [];
  for (let i = Math.max(1, from); i + WINDOW <= to; i += WINDOW) {
    perPrompt.push((doneAt[i + WINDOW - 1]! - doneAt[i - 1]!) / WINDOW);
  }
  return median(perPrompt);
}

/** A read-only command over a finished run, and what its output must show for a run of `count` completed prompts. */
interface ReadCase {
  key: string;
  args: (dir: string) => string[];
  expect: (stdout: string, count: number) => string | null;
}

const jsonDoc = (stdout: string): Record<string, unknown> => {
  const doc = jsonObjectOf(stdout);
  if (typeof doc === "string") throw new BenchFailure(`output is not a JSON object: ${doc}`);
  return doc;
};

/** The reading side at scale: each command reads (and shows) every prompt of the run. */
const READ_CASES: ReadCase[] = [
  {
    key: "replay",
    args: (d) => ["replay", d],
    expect: (out, n) => {
      const headers = out.match(/Prompt \d+: Step /g)?.length ?? 0;
      return headers === n ? null : `${headers} prompt headers, expected ${n}`;
    },
  },
  {
    key: "status_json",
    args: (d) => ["status", d, "--json"],
    expect: (out, n) => {
      const done = (jsonDoc(out).progress as { completed?: number } | undefined)?.completed;
      return done === n ? null : `progress.completed ${done}, expected ${n}`;
    },
  },
  {
    key: "list_json",
    args: (d) => ["list", d, "--json"],
    expect: (out, n) => {
      const prompts = jsonDoc(out).prompts as { status?: string }[] | undefined;
      const done = prompts?.filter((p) => p.status === "completed").length ?? 0;
      return done === n ? null : `${done} completed prompts listed, expected ${n}`;
    },
  },
  {
    key: "plan_json",
    args: (d) => ["plan", d, "--json"],
    expect: (out, n) => {
      const selected = jsonDoc(out).selected as unknown[] | undefined;
      return selected?.length === n ? null : `${selected?.length} selected, expected ${n}`;
    },
  },
];

/** Median ms (of {@link REPEATS}) of each read-only command over the finished run in `dir` of `count` prompts, checked. */
async function readSideMs(dir: string, count: number): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const c of READ_CASES) {
    const path = c.key === "replay" ? ["replay"] : [c.key.replace(/_json$/, "")];
    const flags = denoFlagsFor(findCommand(path)!.entry.permissions);
    const times: number[] = [];
    for (let i = 0; i < REPEATS; i++) {
      const run = await runChecked(Deno.execPath(), ["run", "--quiet", ...flags, MAIN, ...c.args(dir)], {
        cwd: dir,
        env: { NO_COLOR: "1" },
        expect: (stdout) => c.expect(stdout, count),
      });
      times.push(run.ms);
    }
    out[c.key] = median(times);
  }
  return out;
}

/** Run the benchmark; numbers carry their units in the key names. */
export async function bench(): Promise<Record<string, number | string>> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "pr-bench-scale-" }));
  try {
    // Every timed run gets a packet of its own, written before the first: nothing is deleted from here until the case
    // ends, so no run pays for the files an earlier one left behind (docs/bench.md "Per-prompt cost").
    await writeScalePacket(`${root}/warm`, 1);
    await writeScalePacket(`${root}/git-probe`, 1);
    await Deno.mkdir(`${root}/git-probe/app/out`);
    for (let p = 1; p <= 101; p++) await Deno.writeTextFile(`${root}/git-probe/app/out/${p}.txt`, `step ${p}`);
    for (let i = 0; i < REPEATS; i++) {
      await writeScalePacket(`${root}/one-${i}`, 1);
      await writeScalePacket(`${root}/hundred-${i}`, 101);
    }
    await runPacketOnce(`${root}/warm`, 1); // warm the module cache
    // What creating a file costs on this disk as the timed runs begin (a trivial prompt creates three): on ext4
    // without a journal each create walks past every inode its block group freed in the last 60–360 s, so after the
    // tests or an earlier case it is ~0.4 ms instead of ~30 µs (docs/bench.md "Per-prompt cost").
    const createUs = createProbeUs(`${root}/probe`);
    const t1: number[] = [], t101: number[] = [], git: number[] = [];
    let gitWarm: number[];
    // The repo git is timed on: a generated one as a 101-prompt run leaves it (101 git-ignored outputs), written before
    // the first timed run like the packets.
    const repo = `${root}/git-probe/app`;
    const shell = new HelperShell();
    try {
      await gitStatusMs(shell, repo, 1); // starts the shell: not a sample
      for (let i = 0; i < REPEATS; i++) {
        git.push(...await gitStatusMs(shell, repo, 1));
        t1.push((await runPacketOnce(`${root}/one-${i}`, 1)).ms);
        git.push(...await gitStatusMs(shell, repo, 1));
        t101.push((await runPacketOnce(`${root}/hundred-${i}`, 101)).ms);
      }
      gitWarm = await gitStatusMs(shell, repo, GIT_BACK_TO_BACK);
    } finally {
      await shell.close();
    }
    const overhead = (median(t101) - median(t1)) / 100;
    const gitMs = median(git);
    const gitWarmMs = median(gitWarm);
    await Deno.mkdir(`${root}/io_floor`);
    const floorMs = ioFloorMs(`${root}/io_floor`);
    // Every big run on a packet of its own, none removed before the last has run: removing a run's ~3 files per prompt
    // would make the next run's first creates walk past them (docs/bench.md "Per-prompt cost") and flatter its ratio.
    const bigs: ScaleRun[] = [];
    for (let i = 0; i < REPEATS; i++) await writeScalePacket(`${root}/big-${i}`, BIG);
    for (let i = 0; i < REPEATS; i++) {
      const run = await runPacketOnce(`${root}/big-${i}`, BIG);
      check(run.peakRssKb > 0, "no VmHWM sample of a big run was read");
      bigs.push(run);
    }
    const withReports = await runPacketOnce(`${root}/big-0`, BIG, true);
    check(withReports.peakRssKb > 0, "no VmHWM sample of the big CI run was read");
    // The reading side: the same commands over the 101-prompt run and over the big one (the CI run, now current).
    const readSmall = await readSideMs(`${root}/hundred-0`, 101);
    const readBig = await readSideMs(`${root}/big-0`, BIG);
    const reads: Record<string, number> = {};
    for (const c of READ_CASES) {
      reads[`read_${c.key}_101_prompts_ms`] = round(readSmall[c.key]!, 0);
      reads[`read_${c.key}_big_ms`] = round(readBig[c.key]!, 0);
      reads[`read_${c.key}_big_us_per_prompt`] = round((readBig[c.key]! - readSmall[c.key]!) / (BIG - 101) * 1000, 0);
    }
    const decile = Math.floor(BIG / 10);
    const firsts = bigs.map((b) => decileMedian(b.doneAt, 0, decile));
    const lasts = bigs.map((b) => decileMedian(b.doneAt, BIG - decile, BIG));
    check(firsts.every((f) => f > 0), "a first decile's median per-prompt time is 0 ms (timestamps too coarse)");
    const ratios = firsts.map((f, i) => lasts[i]! / f);
    return {
      repeats: REPEATS,
      run_1_prompt_median_ms: round(median(t1), 1),
      run_101_prompts_median_ms: round(median(t101), 1),
      file_create_at_start_us: round(createUs, 1),
      runner_overhead_per_prompt_ms: round(overhead, 2),
      baseline_git_status_median_ms: round(gitMs, 2),
      runner_overhead_without_git_per_prompt_ms: round(overhead - gitMs, 2),
      baseline_git_status_back_to_back_median_ms: round(gitWarmMs, 2),
      runner_overhead_without_warm_git_per_prompt_ms: round(overhead - gitWarmMs, 2),
      target_overhead_without_git_per_prompt_ms: 5,
      required_io_floor_per_prompt_ms: round(floorMs, 2),
      big_prompts: BIG,
      big_runs: REPEATS,
      big_run_total_median_ms: round(median(bigs.map((b) => b.ms)), 0),
      big_first_decile_median_ms_per_prompt: round(median(firsts), 1),
      big_last_decile_median_ms_per_prompt: round(median(lasts), 1),
      big_last_vs_first_decile_ratio: round(median(ratios)),
      big_decile_ratios_in_run_order: ratios.map((r) => round(r)).join(" "),
      target_decile_ratio: 1.25,
      big_peak_rss_mb: round(Math.max(...bigs.map((b) => b.peakRssKb)) / 1024, 1),
      big_with_reports_peak_rss_mb: round(withReports.peakRssKb / 1024, 1),
      big_with_reports_run_total_ms: round(withReports.ms, 0),
      target_peak_rss_mb: 200,
      ...reads,
    };
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}
