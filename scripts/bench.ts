/**
 * `deno task bench [area…]`: runs every `scripts/bench/<area>.ts` (or the named ones), prints the numbers and writes
 * them to `bench-results/latest.json`. Targets are ratios or rates measured within one run.
 */
const dir = new URL("./bench/", import.meta.url).pathname;
const wanted = new Set(Deno.args);
const areas: string[] = [];
for await (const e of Deno.readDir(dir)) {
  if (e.isFile && e.name.endsWith(".ts")) {
    const area = e.name.slice(0, -3);
    if (wanted.size === 0 || wanted.has(area)) areas.push(area);
  }
}
areas.sort();
const results: Record<string, Record<string, number | string>> = {};
for (const area of areas) {
  const mod = await import(`${dir}${area}.ts`) as { bench?: () => Promise<Record<string, number | string>> };
  if (typeof mod.bench !== "function") continue;
  console.log(`--- ${area}`);
  const t0 = performance.now();
  try {
    results[area] = await mod.bench();
  } catch (e) {
    results[area] = { error: e instanceof Error ? e.message : String(e) };
  }
  for (const [k, v] of Object.entries(results[area]!)) console.log(`  ${k.padEnd(40)} ${v}`);
  console.log(`  (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
}
const out = new URL("../bench-results/", import.meta.url).pathname;
await Deno.mkdir(out, { recursive: true });
// Areas not run this time keep their previous numbers; each area records when it was measured.
let previous: { results?: Record<string, Record<string, number | string>> } = {};
try {
  previous = JSON.parse(await Deno.readTextFile(`${out}latest.json`));
} catch { /* first run */ }
const at = new Date().toISOString();
const merged: Record<string, Record<string, number | string>> = { ...previous.results };
for (const [area, r] of Object.entries(results)) merged[area] = { measured_at: at, ...r };
const doc = {
  at,
  deno: Deno.version.deno,
  cpus: navigator.hardwareConcurrency,
  results: Object.fromEntries(Object.entries(merged).sort(([a], [b]) => a.localeCompare(b))),
};
await Deno.writeTextFile(`${out}latest.json`, JSON.stringify(doc, null, 2) + "\n");
console.log(`wrote bench-results/latest.json`);
