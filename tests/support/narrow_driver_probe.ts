/**
 * Spawned by tests under a narrow `--allow-run=<list>`: drives a fake CLI through the shared process driver into its
 * session timeout, and a verification command into its deadline, then prints what happened as JSON.
 * Usage: narrow_driver_probe <fake cli> <scratch dir>
 */
import { ProviderProcess } from "../../src/lanes/process.ts";
import { readProcStat } from "../../src/util/proc_tree.ts";
import { runBounded } from "../../src/contract/bounded_process.ts";

const [cli, dir] = Deno.args;
if (!cli || !dir) {
  console.log(JSON.stringify({ error: "usage: narrow_driver_probe <fake cli> <scratch dir>" }));
  Deno.exit(2);
}

const proc = ProviderProcess.spawn({
  command: cli,
  args: [],
  cwd: dir,
  env: {},
  sessionTimeoutMs: 500,
  idleTimeoutMs: 60_000,
  killAfterTermMs: 500,
  scanIntervalMs: 100,
});
for await (const _ of proc.lines()) { /* drain */ }
const exit = await proc.wait();
const grandchild = Number((await Deno.readTextFile(`${dir}/grandchild.pid`)).trim());
const gc = readProcStat(grandchild);

const started = performance.now();
const bounded = await runBounded({ argv: ["sleep", "30"], cwd: dir, env: {}, timeoutMs: 300, killGraceMs: 300 });

console.log(JSON.stringify({
  reason: exit.reason,
  start_ticks_known: proc.identity.start_ticks !== null,
  grandchild_alive: gc !== null && gc.state !== "Z",
  bounded_outcome: bounded.outcome,
  bounded_ms: Math.round(performance.now() - started),
}));
