/**
 * Verifier benchmark: 200 prompts × 10 clauses (eight file clauses, `changed_paths_only` and `repos_clean`) of a
 * generated packet whose repo is a scratch git repo. The headline is what a run does per prompt (src/run/
 * verify_step.ts `verifyNow`): the enforced contract read from the store, a fresh verify context (so a fresh git
 * memo), `verifyContract`, and the verification appended to the history — every prompt must pass. Measured in the
 * same run: the first-attempt vacuous probe a run makes before each prompt (src/run/vacuous.ts), the
 * `prompt_runner verify` path (one git memo shared across prompts), and a file-only baseline (the git clauses
 * swapped for two more file clauses, shared memo).
 */
import { verifyContract } from "../../src/contract/verify.ts";
import type { Contract, VerifyContext } from "../../src/contract/types.ts";
import { GitCache } from "../../src/contract/git.ts";
import { enforcedContract } from "../../src/contract/enforced.ts";
import { verifyContextFor } from "../../src/contract/context.ts";
import { appendVerification } from "../../src/contract/history.ts";
import { loadPacket } from "../../src/packet/load.ts";
import type { Packet } from "../../src/packet/types.ts";
import { vacuousReport } from "../../src/run/vacuous.ts";
import { check, median, repeat, round, runChecked, sized } from "./_harness.ts";

const PROMPTS = sized(200, 10);
const RUN_ID = "20261130T120000Z-BENCHV";
const GIT_ENV = {
  GIT_AUTHOR_NAME: "B",
  GIT_AUTHOR_EMAIL: "b@example.invalid",
  GIT_COMMITTER_NAME: "B",
  GIT_COMMITTER_EMAIL: "b@example.invalid",
};

async function git(cwd: string, ...args: string[]): Promise<void> {
  await runChecked("git", args, { cwd, env: GIT_ENV });
}

async function setup(root: string): Promise<void> {
  const app = `${root}/app`;
  await Deno.mkdir(`${app}/docs`, { recursive: true });
  await git(app, "init", "-q", "-b", "main");
  await git(app, "config", "commit.gpgsign", "false");
  for (let i = 0; i < PROMPTS; i++) {
    await Deno.mkdir(`${app}/lib/f${i}`, { recursive: true });
    await Deno.writeTextFile(`${app}/docs/p${i}.md`, `# Prompt ${i}\n\n## Usage\nRun step ${i}.\n`);
    await Deno.writeTextFile(`${app}/lib/f${i}/m.ts`, `export const m${i} = ${i};\n`);
    await Deno.writeTextFile(`${app}/lib/f${i}/c.yml`, `name: m${i}\nitems: [1, 2]\n`);
    await Deno.writeTextFile(`${app}/lib/f${i}/c.json`, JSON.stringify({ name: `m${i}`, items: [{ id: 1 }] }));
  }
  await git(app, "add", "-A");
  await git(app, "commit", "-q", "-m", "bench");
  const pkt = `${root}/packet`;
  await Deno.mkdir(`${pkt}/prompts`, { recursive: true });
  await Deno.writeTextFile(
    `${pkt}/prompt_runner_packet.md`,
    "---\nname: bench\nprovider: simulated\nmodel: simulated-demo\nrepos:\n  app: {path: ../app, default: true}\n---\n",
  );
  for (let i = 0; i < PROMPTS; i++) {
    const id = String(i).padStart(3, "0");
    await Deno.writeTextFile(
      `${pkt}/prompts/${id}_v.prompt.md`,
      `---\nid: "${id}"\nverify: ${JSON.stringify(contractFor(i, true))}\n---\n# Prompt ${id}\n`,
    );
  }
}

function contractFor(i: number, withGit: boolean): Contract {
  const c: Contract = {
    files_exist: [`lib/f${i}/m.ts`],
    files_absent: [`lib/f${i}/m.tmp`],
    contains: [{ path: `lib/f${i}/m.ts`, text: `m${i} = ${i}` }],
    matches: [{ path: `lib/f${i}/m.ts`, pattern: `export const m\\d+` }],
    doc: [{ path: `docs/p${i}.md`, requires_sections: ["## Usage"] }],
    yaml: [{ path: `lib/f${i}/c.yml`, root: "map" }],
    json: [{ path: `lib/f${i}/c.json`, required_paths: ["name"], array_items_require: { items: ["id"] } }],
    glob: [{ path: `lib/f${i}/*.ts`, min_matches: 1 }],
  };
  if (withGit) {
    c.changed_paths_only = [`lib/f${i}/m.ts`];
    c.repos_clean = ["app"];
  } else {
    c.files_exist = [...c.files_exist!, `docs/p${i}.md`];
    c.source_absent = [{ path: `lib/f${i}/m.ts`, patterns: ["console\\.log"] }];
  }
  return c;
}

/** As a run verifies each prompt (verifyNow minus the plane): returns ms and the items checked. */
async function asRun(packet: Packet, storeRoot: string): Promise<{ ms: number; items: number }> {
  const t0 = performance.now();
  let items = 0;
  for (const prompt of packet.prompts) {
    const { contract, amendments } = await enforcedContract(prompt, storeRoot);
    const vctx = verifyContextFor(packet, prompt, storeRoot, {
      runId: RUN_ID,
      source: "attempt",
      attempt: 1,
      env: { PROMPT_RUNNER_RUN_ID: RUN_ID, PROMPT_RUNNER_PROMPT_ID: prompt.id, PROMPT_RUNNER_PACKET_DIR: packet.dir },
    });
    const report = await verifyContract(contract, vctx, amendments);
    check(report.status === "pass", `prompt ${prompt.id} did not pass: ${JSON.stringify(report.failures)}`);
    await appendVerification(storeRoot, report);
    items += report.counts.items;
  }
  return { ms: performance.now() - t0, items };
}

/** The first-attempt vacuous probe of every prompt, as a run makes it before the prompt's session. */
async function probes(packet: Packet, storeRoot: string): Promise<number> {
  const t0 = performance.now();
  for (const prompt of packet.prompts) await vacuousReport(packet, prompt, storeRoot, { runId: RUN_ID, strict: false });
  return performance.now() - t0;
}

/** The `verify` command's path: one git memo shared across prompts. */
async function shared(app: string, withGit: boolean): Promise<{ ms: number; items: number }> {
  const t0 = performance.now();
  const memo = new GitCache();
  let items = 0;
  for (let i = 0; i < PROMPTS; i++) {
    const ctx: VerifyContext = {
      promptId: String(i).padStart(3, "0"),
      runId: null,
      packetDir: app,
      storeRoot: `${app}/.prompt_runner`,
      repos: { app, packet: app },
      defaultScope: app,
      source: "manual",
      attempt: null,
      gitCache: memo,
    };
    const report = await verifyContract(contractFor(i, withGit), ctx, []);
    check(report.status === "pass", `prompt ${i} did not pass: ${JSON.stringify(report.failures)}`);
    items += report.counts.items;
  }
  return { ms: performance.now() - t0, items };
}

/** Run the benchmark; numbers carry their units in the key names. */
export async function bench(): Promise<Record<string, number | string>> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "pr-bench-verify-" }));
  try {
    await setup(root);
    const app = `${root}/app`;
    const packet = await loadPacket(`${root}/packet`, { env: {} });
    check(packet.prompts.length === PROMPTS, `the packet loaded ${packet.prompts.length} of ${PROMPTS} prompts`);
    const storeRoot = `${root}/packet/.prompt_runner`;
    await asRun(packet, storeRoot); // warm-up (module init, fs caches)
    const runs = await repeat(5, () => asRun(packet, storeRoot));
    const probe = median(await repeat(5, () => probes(packet, storeRoot)));
    const sharedRuns = await repeat(5, () => shared(app, true));
    const fileOnly = median((await repeat(5, () => shared(app, false))).map((r) => r.ms));
    const run = median(runs.map((r) => r.ms));
    const sharedMs = median(sharedRuns.map((r) => r.ms));
    return {
      verify_prompts: PROMPTS,
      verify_items: runs[0]!.items,
      repeats: 5,
      verify_as_run_total_ms: Math.round(run),
      verify_as_run_per_prompt_ms: round(run / PROMPTS),
      verify_vacuous_probe_total_ms: Math.round(probe),
      verify_command_shared_git_memo_total_ms: Math.round(sharedMs),
      verify_file_only_baseline_ms: Math.round(fileOnly),
      verify_as_run_vs_file_only_ratio: round(run / fileOnly),
      verify_target_ms: 1000,
    };
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}
