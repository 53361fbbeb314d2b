/**
 * Verifier benchmark: 200 prompts × 10 clauses (eight file clauses, `changed_paths_only` and `repos_clean`)
 * verified in-process against one scratch git repo, the way `prompt_runner verify` does it (one git memo shared
 * across prompts). Target: total < 1000 ms. Measured in the same run: a file-only baseline (git clauses swapped
 * for two more file clauses) and the same set with a fresh git memo per prompt (as inside a run).
 */
import { verifyContract } from "../../src/contract/verify.ts";
import type { Contract, VerifyContext } from "../../src/contract/types.ts";
import { GitCache } from "../../src/contract/git.ts";

const PROMPTS = 200;

async function git(cwd: string, ...args: string[]): Promise<void> {
  const out = await new Deno.Command("git", {
    args,
    cwd,
    env: {
      GIT_AUTHOR_NAME: "B",
      GIT_AUTHOR_EMAIL: "b@example.invalid",
      GIT_COMMITTER_NAME: "B",
      GIT_COMMITTER_EMAIL: "b@example.invalid",
    },
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
}

async function setup(root: string): Promise<void> {
  await git(root, "init", "-q", "-b", "main");
  await git(root, "config", "commit.gpgsign", "false");
  for (let i = 0; i < PROMPTS; i++) {
    await Deno.mkdir(`${root}/docs`, { recursive: true });
    await Deno.mkdir(`${root}/lib/f${i}`, { recursive: true });
    await Deno.writeTextFile(`${root}/docs/p${i}.md`, `# Prompt ${i}\n\n## Usage\nRun step ${i}.\n`);
    await Deno.writeTextFile(`${root}/lib/f${i}/m.ts`, `export const m${i} = ${i};\n`);
    await Deno.writeTextFile(`${root}/lib/f${i}/c.yml`, `name: m${i}\nitems: [1, 2]\n`);
    await Deno.writeTextFile(`${root}/lib/f${i}/c.json`, JSON.stringify({ name: `m${i}`, items: [{ id: 1 }] }));
  }
  await git(root, "add", "-A");
  await git(root, "commit", "-q", "-m", "bench");
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

async function run(root: string, withGit: boolean, shareGit: boolean): Promise<{ ms: number; items: number }> {
  const started = performance.now();
  const shared = new GitCache();
  let items = 0;
  for (let i = 0; i < PROMPTS; i++) {
    const ctx: VerifyContext = {
      promptId: String(i).padStart(2, "0"),
      runId: null,
      packetDir: root,
      storeRoot: `${root}/.prompt_runner`,
      repos: { app: root, packet: root },
      defaultScope: root,
      source: "manual",
      attempt: null,
      ...(shareGit ? { gitCache: shared } : {}),
    };
    const report = await verifyContract(contractFor(i, withGit), ctx, []);
    if (report.status !== "pass") throw new Error(`prompt ${i} did not pass: ${JSON.stringify(report.failures)}`);
    items += report.counts.items;
  }
  return { ms: performance.now() - started, items };
}

/** Run the benchmark; numbers carry their units in the key names. */
export async function bench(): Promise<Record<string, number | string>> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "pr-bench-verify-" }));
  try {
    await setup(root);
    await run(root, false, true); // warm-up (module init, fs caches)
    await run(root, true, true);
    const baseline = await run(root, false, true);
    const full = await run(root, true, true);
    const perPrompt = await run(root, true, false);
    return {
      verify_prompts: PROMPTS,
      verify_items: full.items,
      verify_total_ms: Math.round(full.ms),
      verify_per_prompt_ms: Number((full.ms / PROMPTS).toFixed(2)),
      verify_file_only_baseline_ms: Math.round(baseline.ms),
      verify_git_vs_file_only_ratio: Number((full.ms / baseline.ms).toFixed(2)),
      verify_target_ms: 1000,
      verify_fresh_git_per_prompt_total_ms: Math.round(perPrompt.ms),
    };
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

if (import.meta.main) console.log(JSON.stringify(await bench(), null, 2));
