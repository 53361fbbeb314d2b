/**
 * `deno task chaos [N] [--jobs J] [--seed S] [--keep]`: the crash-recovery sweep (docs/crash_recovery.md). Each of N
 * trials builds a five-prompt simulated packet, starts `run`, SIGKILLs it at a random instant (sometimes the first
 * resume too), resumes with plain `run` or `run --remaining` (alternating), and checks the real outcome: one commit
 * per prompt with its own files and trailer, file contents written once, progress.log, state.json and `status --json`
 * agreeing with git, nothing dirty, exit 0. Prints `N/N recovered`, or the first divergence of every failure.
 */
import { runCli, spawnCli } from "../tests/support/cli.ts";
import { checkRecovered, makeCrashPacket } from "../tests/support/crash_packet.ts";

const PROMPTS = 5;
const STEP_MS = 15;

interface Args {
  n: number;
  jobs: number;
  seed: number;
  keep: boolean;
}

function parseArgs(argv: string[]): Args {
  const out: Args = { n: 20, jobs: 2, seed: Date.now() % 2 ** 31, keep: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const next = () => Number(argv[++i]);
    if (a === "--jobs") out.jobs = Math.max(1, next());
    else if (a === "--seed") out.seed = next();
    else if (a === "--keep") out.keep = true;
    else if (/^\d+$/.test(a)) out.n = Number(a);
    else throw new Error(`chaos: unknown argument ${a} (usage: chaos [N] [--jobs J] [--seed S] [--keep])`);
  }
  return out;
}

/** mulberry32: a small seeded PRNG so a failing sweep can be replayed with `--seed`. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Start `args`, SIGKILL it after `ms` unless it ended first; returns whether it was killed. */
async function killAfter(args: string[], ms: number): Promise<boolean> {
  const child = spawnCli(args);
  let killed = false;
  const timer = setTimeout(() => {
    try {
      child.kill("SIGKILL");
      killed = true;
    } catch { /* already gone */ }
  }, ms);
  const out = await child.output();
  clearTimeout(timer);
  return killed && out.signal === "SIGKILL";
}

interface Trial {
  index: number;
  mode: "run" | "run --remaining";
  killMs: number;
  secondKillMs: number | null;
}

async function runTrial(t: Trial, keep: boolean): Promise<string | null> {
  const root = await Deno.makeTempDir({ prefix: "prompt-runner-chaos-" });
  let failure: string | null = null;
  try {
    const plain = t.mode === "run";
    const pkt = await makeCrashPacket(root, { prompts: PROMPTS, stepMs: STEP_MS, append: !plain });
    const resume = plain ? ["run", pkt] : ["run", pkt, "--remaining"];
    await killAfter(["run", pkt], t.killMs);
    if (t.secondKillMs !== null) await killAfter(resume, t.secondKillMs);
    const final = await runCli(resume);
    if (final.code !== 0) failure = `exit code: final ${t.mode} exited ${final.code}: ${final.stderr.trim()}`;
    failure ??= await checkRecovered(pkt, PROMPTS, { allowNoChanges: plain });
    if (failure && keep) failure += ` (kept ${root})`;
    return failure;
  } finally {
    if (!(failure && keep)) await Deno.remove(root, { recursive: true }).catch(() => {});
  }
}

/** Run the sweep; returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  const random = prng(args.seed);
  // Calibrate: how long one uninterrupted run takes here, so kill instants cover start-up to the final close.
  const calib = await Deno.makeTempDir({ prefix: "prompt-runner-chaos-" });
  const pkt = await makeCrashPacket(calib, { prompts: PROMPTS, stepMs: STEP_MS, append: true });
  const started = performance.now();
  const ok = await runCli(["run", pkt]);
  const span = Math.round(performance.now() - started);
  await Deno.remove(calib, { recursive: true }).catch(() => {});
  if (ok.code !== 0) {
    console.error(`chaos: the uninterrupted calibration run failed (exit ${ok.code}):\n${ok.stderr}`);
    return 1;
  }
  console.log(`chaos: ${args.n} trials, seed ${args.seed}, jobs ${args.jobs}, one run takes ~${span} ms`);
  const trials: Trial[] = Array.from({ length: args.n }, (_, index) => ({
    index,
    mode: index % 2 === 0 ? "run --remaining" : "run",
    killMs: Math.round(random() * span * 1.05),
    secondKillMs: random() < 0.25 ? Math.round(random() * span) : null,
  }));
  const failures: string[] = [];
  let next = 0;
  let done = 0;
  const worker = async () => {
    for (;;) {
      const t = trials[next++];
      if (!t) return;
      const failure = await runTrial(t, args.keep);
      done++;
      if (failure) {
        const second = t.secondKillMs === null ? "" : `, resume killed at ${t.secondKillMs} ms`;
        const line = `trial ${t.index + 1} (${t.mode}, killed at ${t.killMs} ms${second}): ${failure}`;
        failures.push(line);
        console.log(`FAIL ${line}`);
      }
      if (done % 10 === 0) console.log(`chaos: ${done}/${args.n} done, ${failures.length} failed`);
    }
  };
  await Promise.all(Array.from({ length: args.jobs }, worker));
  console.log(`${args.n - failures.length}/${args.n} recovered`);
  return failures.length === 0 ? 0 : 1;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
