/**
 * Packet loading benchmark: a generated 200-prompt packet (10 contract clauses each) loaded with `loadPacket`;
 * median of several runs, with a single-prompt packet measured in the same run as the baseline.
 */
import { loadPacket } from "../../src/packet/load.ts";
import { check, median, repeat, sized } from "./_harness.ts";

const PROMPTS = sized(200, 50);
const RUNS = 7;

function promptFile(i: number): string {
  const id = String(i).padStart(3, "0");
  const clauses = [
    "  files_exist: [src/a.ts, src/b.ts]",
    "  files_absent: [tmp/scratch.txt]",
    `  contains: [{path: src/a.ts, text: "export const v${i}"}]`,
    "  matches: [{path: src/b.ts, pattern: '^export function \\w+'}]",
    "  doc: [{path: docs/guide.md, requires_sections: ['## Usage']}]",
    "  yaml: [{path: config.yml, root: map}]",
    "  json: [{path: package.json, root: map, required_paths: [name, version]}]",
    "  glob: [{path: 'src/**/*.ts', min_matches: 2}]",
    "  source_absent: [{path: src, patterns: ['console\\.log']}]",
    "  commands: [{exec: deno, args: [test, -A], timeout_ms: 60000}]",
  ];
  return [
    "---",
    `id: ${i}`,
    `phase: ${1 + (i % 5)}`,
    "targets: [app]",
    i > 1 ? `depends_on: [${i - 1}]` : "depends_on: []",
    "verify:",
    ...clauses,
    "simulate:",
    "  attempts:",
    `    - writes: [{path: src/a.ts, text: "export const v${i} = 1;"}]`,
    "---",
    `# Prompt ${id}`,
    "",
    "## Mission",
    "",
    `Implement step ${i} of the generated packet.`,
    "",
  ].join("\n");
}

async function writePacket(dir: string, count: number): Promise<void> {
  await Deno.mkdir(`${dir}/prompts`, { recursive: true });
  await Deno.writeTextFile(
    `${dir}/prompt_runner_packet.md`,
    "---\nname: bench\nprofile: simulated-default\nrepos: {app: {path: ./app, default: true}}\n---\n# Bench\n",
  );
  for (let i = 1; i <= count; i++) {
    await Deno.writeTextFile(`${dir}/prompts/${String(i).padStart(3, "0")}_step.prompt.md`, promptFile(i));
  }
}

async function medianMs(dir: string, count: number): Promise<number> {
  return median(
    await repeat(RUNS, async () => {
      const t0 = performance.now();
      const p = await loadPacket(dir, { env: {} });
      const ms = performance.now() - t0;
      check(p.prompts.length === count, `the packet loaded ${p.prompts.length} of ${count} prompts`);
      return ms;
    }),
  );
}

/** Run the benchmark; numbers carry their units in the key names. */
export async function bench(): Promise<Record<string, number | string>> {
  const root = await Deno.makeTempDir({ prefix: "pr-bench-packet-" });
  try {
    await writePacket(`${root}/big`, PROMPTS);
    await writePacket(`${root}/one`, 1);
    await loadPacket(`${root}/one`, { env: {} }); // warm module and npm caches
    const one = await medianMs(`${root}/one`, 1);
    const big = await medianMs(`${root}/big`, PROMPTS);
    return {
      packet_load_prompts: PROMPTS,
      packet_load_big_median_ms: Math.round(big * 100) / 100,
      packet_load_1_prompt_median_ms: Math.round(one * 100) / 100,
      packet_load_per_prompt_ms: Math.round((big / PROMPTS) * 1000) / 1000,
      packet_load_big_vs_1_ratio: Math.round((big / one) * 10) / 10,
      packet_load_runs: RUNS,
    };
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}
