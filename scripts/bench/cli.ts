/**
 * Cold start of every read-only command, from the source (`deno run main.ts`) and from the one-file bundle (built
 * here exactly as `deno task bundle` builds it), each as a ratio to `deno run` of an empty script with the same
 * permission flags, measured alternately in the same run (target ≤ 2.5×, docs/bench.md). The packet has really run
 * first (a simulated `run --no-commit`), so the commands read a completed run; every timed command must exit 0 and
 * print what it should.
 */
import { findCommand } from "../../src/cli/registry.ts";
import { denoFlagsFor, type Permission } from "../../src/cli/frame.ts";
import { bundleTaskArgs } from "../bundle_args.ts";
import { check, jsonObjectOf, median, round, runChecked, sized } from "./_harness.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const MAIN = `${ROOT}main.ts`;
const PROMPTS = 20;
const GIT_ENV = {
  GIT_AUTHOR_NAME: "Bench",
  GIT_AUTHOR_EMAIL: "bench@example.invalid",
  GIT_COMMITTER_NAME: "Bench",
  GIT_COMMITTER_EMAIL: "bench@example.invalid",
};

async function makePacket(dir: string): Promise<void> {
  await Deno.mkdir(`${dir}/prompts`, { recursive: true });
  await Deno.mkdir(`${dir}/app`);
  await runChecked("git", ["init", "-q", "-b", "main"], { cwd: `${dir}/app` });
  await runChecked("git", ["commit", "-q", "--allow-empty", "-m", "init"], { cwd: `${dir}/app`, env: GIT_ENV });
  await Deno.writeTextFile(
    `${dir}/prompt_runner_packet.md`,
    "---\nname: bench\nprovider: simulated\nmodel: simulated-demo\nrepos:\n  app: {path: app, default: true}\n---\n",
  );
  for (let i = 1; i <= PROMPTS; i++) {
    const id = String(i).padStart(2, "0");
    await Deno.writeTextFile(
      `${dir}/prompts/${id}_step.prompt.md`,
      `---\nid: "${id}"\nphase: 1\nverify:\n  files_exist: [f${id}.txt]\n  contains: [{path: f${id}.txt, text: "step ${id}"}]\n` +
        `simulate:\n  attempts:\n    - writes: [{path: f${id}.txt, text: "step ${id}"}]\n---\n# Step ${id}\n\nDo step ${id}.\n`,
    );
  }
}

type Expect = (stdout: string) => string | null;

const json = (test: (doc: Record<string, unknown>) => string | null): Expect => (stdout) => {
  const doc = jsonObjectOf(stdout);
  return typeof doc === "string" ? doc : test(doc);
};
const includes = (...needles: string[]): Expect => (stdout) => {
  const missing = needles.filter((n) => !stdout.includes(n));
  return missing.length ? `missing ${missing.map((m) => JSON.stringify(m)).join(", ")}` : null;
};
const promptsCompleted = (doc: Record<string, unknown>): string | null => {
  const prompts = doc.prompts as { status?: unknown }[] | undefined;
  if (!Array.isArray(prompts) || prompts.length !== PROMPTS) return `expected ${PROMPTS} prompts`;
  const open = prompts.filter((p) => p.status !== "completed").length;
  return open ? `${open} prompts are not completed` : null;
};

/** One timed command: its figure key, argv after the program, and what its output must show. */
interface Case {
  key: string;
  /** The registered command whose permission set the run gets (none: top-level help and version). */
  command: string[] | null;
  args: (dir: string) => string[];
  expect: Expect;
}

/** The read-only commands: they write nothing, so repeating them measures the same work every time. */
const CASES: Case[] = [
  { key: "help", command: null, args: () => ["--help"], expect: includes("Commands:", "control status") },
  { key: "version", command: null, args: () => ["--version"], expect: includes("prompt_runner ") },
  { key: "help_plan", command: null, args: () => ["help", "plan"], expect: includes("Usage: prompt_runner plan") },
  {
    key: "plan",
    command: ["plan"],
    args: (d) => ["plan", d],
    expect: includes(`${PROMPTS} in packet, ${PROMPTS} selected`),
  },
  { key: "plan_json", command: ["plan"], args: (d) => ["plan", d, "--json"], expect: json(() => null) },
  { key: "list_json", command: ["list"], args: (d) => ["list", d, "--json"], expect: json(promptsCompleted) },
  {
    key: "status_json",
    command: ["status"],
    args: (d) => ["status", d, "--json"],
    expect: json((doc) => JSON.stringify(doc).includes('"completed"') ? null : "no completed status"),
  },
  {
    key: "control_status_json",
    command: ["control", "status"],
    args: (d) => ["control", "status", d, "--json"],
    expect: json((doc) =>
      doc.status !== "completed"
        ? `status ${JSON.stringify(doc.status)}, expected "completed"`
        : doc.completed_count === PROMPTS
        ? null
        : `completed_count ${doc.completed_count}, expected ${PROMPTS}`
    ),
  },
  {
    key: "control_events",
    command: ["control", "events"],
    args: (d) => ["control", "events", d],
    expect: includes("run_opened", "-- run completed --"),
  },
  { key: "control_log", command: ["control", "log"], args: (d) => ["control", "log", d], expect: () => null },
  {
    key: "control_contract",
    command: ["control", "contract"],
    args: (d) => ["control", "contract", d, "01"],
    expect: includes("files_exist"),
  },
  {
    key: "replay",
    command: ["replay"],
    args: (d) => ["replay", d],
    expect: includes(`Prompt ${PROMPTS}: Step ${PROMPTS}`),
  },
  {
    key: "packet_lint",
    command: ["packet", "lint"],
    args: (d) => ["packet", "lint", d],
    expect: includes("0 errors"),
  },
  {
    key: "workspace_list_json",
    command: ["workspace", "list"],
    args: () => ["workspace", "list", "--json"],
    expect: json((doc) => Array.isArray(doc.workspaces) ? null : "no workspaces array"),
  },
];

/** The read-only commands this case times (figure keys), for docs and tests. */
export const COLD_START_KEYS: readonly string[] = CASES.map((c) => c.key);

function permsOf(c: Case): Permission[] {
  return c.command ? findCommand(c.command)!.entry.permissions : ["read", "env"];
}

/** One timed run: wall milliseconds, and the child's CPU time (user + system) when the system reports it. */
interface Sample {
  ms: number;
  cpu: number | null;
}

const TICK_MS = 10; // USER_HZ is 100 on Linux

/**
 * CPU time (ms) of this process's waited-for children so far (`cutime` + `cstime` of its /proc stat), or null off
 * Linux. Read by `cat` because Deno lets a process read /proc only with every permission. Sampled around each run:
 * CPU time is what cold start costs, and unlike wall time it does not grow with the machine's load; its 10 ms ticks
 * are why the CPU ratios are ratios of totals over every repeat, not of medians.
 */
async function childCpuMs(): Promise<number | null> {
  try {
    const out = await new Deno.Command("cat", { args: [`/proc/${Deno.pid}/stat`], stdout: "piped", stderr: "null" })
      .output();
    const stat = new TextDecoder().decode(out.stdout);
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const cutime = Number(fields[13]), cstime = Number(fields[14]);
    return out.code === 0 && Number.isFinite(cutime) && Number.isFinite(cstime) ? (cutime + cstime) * TICK_MS : null;
  } catch {
    return null;
  }
}

function cpuTotal(xs: readonly Sample[]): number | null {
  let total = 0;
  for (const x of xs) {
    if (x.cpu === null) return null;
    total += x.cpu;
  }
  return total;
}

/** Run the cold-start benchmark. */
export async function bench(): Promise<Record<string, number | string>> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "pr-bench-cli-" }));
  try {
    await makePacket(dir);
    const deno = Deno.execPath();
    const env = { NO_COLOR: "1", XDG_DATA_HOME: `${dir}/xdg`, ...GIT_ENV };
    const runFlags = denoFlagsFor(findCommand(["run"])!.entry.permissions);
    await runChecked(deno, ["run", "--quiet", ...runFlags, MAIN, "run", dir, "--no-commit"], { cwd: dir, env });
    const bundle = `${dir}/prompt_runner.js`;
    await runChecked(deno, await bundleTaskArgs(bundle), { cwd: ROOT });
    const bundleBytes = (await Deno.stat(bundle)).size;
    await Deno.writeTextFile(`${dir}/empty.ts`, "");

    const timed = async (args: string[], expect: Expect): Promise<Sample> => {
      const cpu0 = await childCpuMs();
      const { ms } = await runChecked(deno, args, { cwd: dir, env, expect: (o) => expect(o) });
      const cpu1 = await childCpuMs();
      return { ms, cpu: cpu0 === null || cpu1 === null ? null : cpu1 - cpu0 };
    };
    const runners = CASES.map((c) => {
      const flags = denoFlagsFor(permsOf(c));
      return {
        c,
        empty: () => timed(["run", "--quiet", ...flags, `${dir}/empty.ts`], (o) => o ? o : null),
        source: () => timed(["run", "--quiet", ...flags, MAIN, ...c.args(dir)], c.expect),
        bundle: () => timed(["run", "--quiet", "--no-config", ...flags, bundle, ...c.args(dir)], c.expect),
      };
    });
    // Warm the module and compile caches once.
    for (const r of runners) await r.empty(), await r.source(), await r.bundle();

    const repeats = sized(21, 5);
    const samples = runners.map(() => ({ empty: [] as Sample[], source: [] as Sample[], bundle: [] as Sample[] }));
    for (let i = 0; i < repeats; i++) {
      for (const [j, r] of runners.entries()) {
        samples[j]!.empty.push(await r.empty());
        samples[j]!.source.push(await r.source());
        samples[j]!.bundle.push(await r.bundle());
      }
    }
    const out: Record<string, number | string> = { repeats, prompts: PROMPTS, bundle_kb: round(bundleBytes / 1024, 1) };
    const ms = (xs: Sample[]) => median(xs.map((x) => x.ms));
    const allEmpty = ms(samples.flatMap((s) => s.empty));
    check(allEmpty > 0, "the empty run took no time");
    out.empty_deno_run_ms = round(allEmpty, 1);
    let worstSource = 0, worstBundle = 0;
    for (const [j, r] of runners.entries()) {
      const s = samples[j]!;
      const e = ms(s.empty), src = ms(s.source), bun = ms(s.bundle);
      out[`${r.c.key}_source_ratio`] = round(src / e);
      out[`${r.c.key}_bundle_ratio`] = round(bun / e);
      out[`${r.c.key}_source_ms`] = round(src, 1);
      out[`${r.c.key}_bundle_ms`] = round(bun, 1);
      const cpuE = cpuTotal(s.empty), cpuS = cpuTotal(s.source), cpuB = cpuTotal(s.bundle);
      if (cpuE !== null && cpuS !== null && cpuB !== null && cpuE > 0) {
        out[`${r.c.key}_source_cpu_ratio`] = round(cpuS / cpuE);
        out[`${r.c.key}_bundle_cpu_ratio`] = round(cpuB / cpuE);
      }
      worstSource = Math.max(worstSource, src / e);
      worstBundle = Math.max(worstBundle, bun / e);
    }
    out.worst_source_ratio = round(worstSource);
    out.worst_bundle_ratio = round(worstBundle);
    out.target_ratio = 2.5;
    return out;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
