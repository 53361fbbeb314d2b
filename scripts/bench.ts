/**
 * `deno task bench [--quick] [--save] [area…]` (docs/bench.md): runs every case `scripts/bench/<area>.ts` (or the
 * named ones), each in a fresh process, prints its figures and writes them to the untracked
 * `bench-results/tmp/latest.json`. A case whose command fails, or whose output is wrong, fails the bench (exit 1)
 * and records no figure. `--save` (a complete, non-quick run only) rewrites the committed `bench-results/latest.json`
 * whole. `--quick` shrinks sizes and repeats for a smoke run.
 */
import { BenchSkip } from "./bench/_harness.ts";
import { type AreaOutcome, type Figures, type ResultsDoc, runDoc, savedDoc } from "./bench/_results.ts";

const DENO_FLAGS = [
  "--quiet",
  "--v8-flags=--expose-gc",
  "--allow-read",
  "--allow-write",
  "--allow-run",
  "--allow-env",
  "--allow-sys",
  "--allow-net=127.0.0.1",
];

/** Child mode: run one area in this (fresh) process and write its outcome to `resultFile`. */
async function child(areaFile: string, resultFile: string): Promise<void> {
  let outcome: AreaOutcome;
  let code = 0;
  try {
    const mod = await import(new URL(`file://${areaFile}`).href) as { bench?: () => Promise<Figures> };
    if (typeof mod.bench !== "function") throw new Error(`${areaFile} exports no bench()`);
    outcome = { status: "ok", figures: await mod.bench() };
  } catch (e) {
    if (e instanceof BenchSkip) outcome = { status: "skipped", reason: e.message };
    else {
      outcome = { status: "failed", error: e instanceof Error ? e.message : String(e) };
      code = 1;
    }
  }
  await Deno.writeTextFile(resultFile, JSON.stringify(outcome));
  Deno.exit(code);
}

function usage(message: string): never {
  console.error(`error: ${message}\nusage: deno task bench [--quick] [--save] [area…]`);
  Deno.exit(2);
}

async function main(args: string[]): Promise<number> {
  let quick = false, save = false;
  let areasDir = new URL("./bench/", import.meta.url).pathname;
  let outDir = new URL("../bench-results/", import.meta.url).pathname;
  const wanted = new Set<string>();
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--quick") quick = true;
    else if (a === "--save") save = true;
    else if (a === "--areas-dir" || a === "--out") {
      const v = args[++i] ?? usage(`${a} needs a directory`);
      if (a === "--areas-dir") areasDir = v.endsWith("/") ? v : `${v}/`;
      else outDir = v.endsWith("/") ? v : `${v}/`;
    } else if (a.startsWith("-")) usage(`unknown option "${a}"`);
    else wanted.add(a);
  }
  if (save && quick) usage("--save records full runs only; drop --quick");
  if (save && wanted.size) usage("--save rewrites the committed results whole; run it without area names");
  const areas: string[] = [];
  for await (const e of Deno.readDir(areasDir)) {
    if (e.isFile && e.name.endsWith(".ts") && !e.name.startsWith("_")) areas.push(e.name.slice(0, -3));
  }
  for (const w of wanted) if (!areas.includes(w)) usage(`no benchmark area "${w}" (have: ${areas.sort().join(", ")})`);
  const selected = areas.filter((a) => wanted.size === 0 || wanted.has(a)).sort();
  const scratch = await Deno.makeTempDir({ prefix: "pr-bench-" });
  const outcomes: Record<string, AreaOutcome> = {};
  try {
    for (const area of selected) {
      console.log(`--- ${area}`);
      const t0 = performance.now();
      const resultFile = `${scratch}/${area}.json`;
      const status = await new Deno.Command(Deno.execPath(), {
        args: ["run", ...DENO_FLAGS, new URL(import.meta.url).pathname, "--child", `${areasDir}${area}.ts`, resultFile],
        env: quick ? { BENCH_QUICK: "1" } : {},
        stdin: "null",
        stdout: "inherit",
        stderr: "inherit",
      }).spawn().status;
      let outcome: AreaOutcome;
      try {
        outcome = JSON.parse(await Deno.readTextFile(resultFile)) as AreaOutcome;
      } catch {
        outcome = { status: "failed", error: `the case process exited ${status.code} without a result` };
      }
      if (!status.success && outcome.status !== "failed") {
        outcome = { status: "failed", error: `the case process exited ${status.code}` };
      }
      outcomes[area] = outcome;
      if (outcome.status === "ok") {
        for (const [k, v] of Object.entries(outcome.figures)) console.log(`  ${k.padEnd(52)} ${v}`);
      } else if (outcome.status === "skipped") console.log(`  SKIPPED: ${outcome.reason}`);
      else console.log(`  FAILED: ${outcome.error}`);
      console.log(`  (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
    }
  } finally {
    await Deno.remove(scratch, { recursive: true });
  }
  const at = new Date().toISOString();
  await Deno.mkdir(`${outDir}tmp`, { recursive: true });
  await Deno.writeTextFile(`${outDir}tmp/latest.json`, JSON.stringify(runDoc(at, outcomes, quick), null, 2) + "\n");
  console.log(`wrote ${outDir}tmp/latest.json`);
  const failed = Object.entries(outcomes).filter(([, o]) => o.status === "failed").map(([k]) => k);
  if (failed.length) {
    console.error(`bench FAILED: ${failed.join(", ")}${save ? " (nothing saved)" : ""}`);
    return 1;
  }
  if (save) {
    let previous: ResultsDoc | null = null;
    try {
      previous = JSON.parse(await Deno.readTextFile(`${outDir}latest.json`)) as ResultsDoc;
    } catch { /* first save */ }
    await Deno.writeTextFile(`${outDir}latest.json`, JSON.stringify(savedDoc(at, outcomes, previous), null, 2) + "\n");
    console.log(`saved ${outDir}latest.json`);
  }
  return 0;
}

if (import.meta.main) {
  if (Deno.args[0] === "--child") await child(Deno.args[1]!, Deno.args[2]!);
  else Deno.exit(await main(Deno.args));
}
