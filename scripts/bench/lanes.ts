/**
 * Lane throughput: the shared driver's line splitting against a plain read of the same stdout, the claude parser
 * against bare JSON.parse of the same lines, and the cost of one descendant scan of /proc.
 */
import { claudeProfile } from "../../src/lanes/claude.ts";
import { parseJsonObject } from "../../src/lanes/_json.ts";
import { ProviderProcess } from "../../src/lanes/process.ts";
import { descendantsOf, listProcesses } from "../../src/util/proc_tree.ts";
import type { SessionSpec } from "../../src/lanes/types.ts";

const LINES = 200_000;

async function driverMs(): Promise<number> {
  const t0 = performance.now();
  const p = ProviderProcess.spawn({
    command: "seq",
    args: ["1", String(LINES)],
    cwd: Deno.cwd(),
    env: {},
    sessionTimeoutMs: 600_000,
    idleTimeoutMs: 600_000,
  });
  let n = 0;
  for await (const _ of p.lines()) n++;
  await p.wait();
  if (n !== LINES) throw new Error(`driver saw ${n} lines`);
  return performance.now() - t0;
}

async function rawMs(): Promise<number> {
  const t0 = performance.now();
  const out = await new Deno.Command("seq", { args: ["1", String(LINES)], stdout: "piped", stderr: "null" }).output();
  const n = new TextDecoder().decode(out.stdout).split("\n").length - 1;
  if (n !== LINES) throw new Error(`raw saw ${n} lines`);
  return performance.now() - t0;
}

function claudeLines(): string[] {
  const path = new URL("../../tests/fixtures/lanes/claude/edit.jsonl", import.meta.url).pathname;
  const base = Deno.readTextFileSync(path).split("\n").filter((l) => l.trim() !== "");
  const out: string[] = [];
  while (out.length < 50_000) out.push(...base);
  return out;
}

/** Run the lane benchmarks. */
export async function bench(): Promise<Record<string, number | string>> {
  await driverMs(); // warm-up
  const driver = await driverMs();
  const raw = await rawMs();
  const lines = claudeLines();
  const spec = { prompt: "", options: { provider_opts: {} } } as unknown as SessionSpec;
  let t0 = performance.now();
  for (const l of lines) parseJsonObject(l);
  const jsonOnly = performance.now() - t0;
  const parser = claudeProfile.createParser({ spec, interruptReason: () => null });
  t0 = performance.now();
  let events = 0;
  for (const l of lines) events += parser.json(parseJsonObject(l)!).events.length;
  const parsed = performance.now() - t0;
  t0 = performance.now();
  for (let i = 0; i < 20; i++) descendantsOf(Deno.pid, null, listProcesses());
  const scan = (performance.now() - t0) / 20;
  return {
    driver_lines_per_s: Math.round(LINES / (driver / 1000)),
    driver_vs_raw_read_ratio: Number((driver / raw).toFixed(2)),
    claude_parse_lines_per_s: Math.round(lines.length / ((jsonOnly + parsed) / 1000)),
    claude_parse_vs_json_parse_ratio: Number(((jsonOnly + parsed) / jsonOnly).toFixed(2)),
    claude_events_per_line: Number((events / lines.length).toFixed(2)),
    proc_scan_ms: Number(scan.toFixed(2)),
  };
}

if (import.meta.main) console.log(await bench());
