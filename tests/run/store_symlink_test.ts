/**
 * Store symlink plants (issue #11 item 6, docs/store.md): every store entry the runner writes, appends or reads,
 * planted as a link to a file, to a directory, to a FIFO and dangling, in the packet-local store and in the workspace
 * runtime store. Each run must refuse with a reason naming the planted path, write nothing outside the store (the
 * canary is compared byte-for-byte with its modes), not hang, and leave no process behind.
 */
import assert from "node:assert/strict";
import { spawnCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { workspaceFixture } from "../workspace/fixture.ts";
import { runCli } from "../support/cli.ts";
import { makePacket, promptFile } from "./support.ts";
import {
  canaryDigest,
  makeCanary,
  plant,
  PLANT_KINDS,
  type PlantKind,
  pool,
  processesMentioning,
  STORE_ENTRIES,
} from "./_store_plant.ts";
import { within } from "../support/wait.ts";

const WORKERS = 4;
const HANG_MS = 60_000;

/** Every entry × every kind. */
const FULL: [string, PlantKind][] = STORE_ENTRIES.flatMap((e) => PLANT_KINDS.map((k) => [e, k] as [string, PlantKind]));
/** Every entry once, the kind rotating (the same code paths as the packet store; the full matrix on request). */
const ROTATING: [string, PlantKind][] = STORE_ENTRIES.map((e, i) => [e, PLANT_KINDS[i % PLANT_KINDS.length]!]);
const FULL_WORKSPACE = Deno.env.get("PROMPT_RUNNER_PLANT_MATRIX") === "full";

/** One isolated target a worker runs against. */
interface Target {
  root: string;
  store: string;
  args: string[];
  env: Record<string, string>;
}

interface Outcome {
  code: number | "hang";
  stderr: string;
}

async function runWithDeadline(t: Target): Promise<Outcome> {
  const child = spawnCli(t.args, { env: t.env });
  const out = await within(child.output(), HANG_MS, "hang" as const);
  if (out === "hang") {
    child.kill("SIGKILL");
    await child.output().catch(() => {});
    return { code: "hang", stderr: "" };
  }
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}

/** Try every entry × kind against the workers' targets; returns "tried · held · broke" and the broken cases. */
async function plantMatrix(
  targets: Target[],
  canary: string,
  cases: [string, PlantKind][],
): Promise<{ tried: number; broke: string[] }> {
  const broke: string[] = [];
  const before = await canaryDigest(canary);
  await pool(cases, targets.length, async ([rel, kind], w) => {
    const t = targets[w]!;
    await Deno.remove(t.store, { recursive: true }).catch(() => {});
    const planted = await plant(t.store, rel, kind, canary);
    const r = await runWithDeadline(t);
    const label = `${rel} → ${kind}`;
    if (r.code === "hang") broke.push(`${label}: hung`);
    else if (r.code === 0) broke.push(`${label}: the run succeeded`);
    else if (!r.stderr.includes(planted)) broke.push(`${label}: exit ${r.code} without naming ${planted}: ${r.stderr}`);
    const survivors = await processesMentioning(t.root);
    if (survivors.length) {
      broke.push(`${label}: processes survived: ${survivors.join(", ")}`);
      for (const pid of survivors) Deno.kill(pid, "SIGKILL");
    }
    const after = await canaryDigest(canary);
    if (after !== before) broke.push(`${label}: the canary changed:\n${after}`);
  });
  return { tried: cases.length, broke };
}

function report(name: string, r: { tried: number; broke: string[] }): void {
  const broken = new Set(r.broke.map((b) => b.split(":")[0])).size;
  console.log(`${name}: tried ${r.tried} · held ${r.tried - broken} · broke ${broken}`);
}

const SIMPLE = {
  "01_a.prompt.md": promptFile(
    "01",
    "verify:\n  files_exist: [a.txt]\nsimulate:\n  attempts:\n    - writes: [{path: a.txt, text: a}]",
  ),
};

Deno.test("packet store: every planted link (file, dir, FIFO, dangling) is refused by name; nothing leaks", async () => {
  await using dir = await tempDir();
  const canary = `${dir.path}/canary`;
  await makeCanary(canary);
  const targets: Target[] = [];
  for (let w = 0; w < WORKERS; w++) {
    const root = `${dir.path}/w${w}`;
    const pkt = await makePacket(root, SIMPLE);
    targets.push({ root, store: `${pkt}/.prompt_runner`, args: ["run", pkt], env: {} });
  }
  // The harness itself: an unplanted run completes.
  const clean = await runWithDeadline(targets[0]!);
  assert.equal(clean.code, 0, clean.stderr);
  const r = await plantMatrix(targets, canary, FULL);
  report("packet store", r);
  assert.deepEqual(r.broke, []);
});

Deno.test("workspace runtime store: every planted link is refused by name; nothing leaks", async () => {
  await using dir = await tempDir();
  const canary = `${dir.path}/canary`;
  await makeCanary(canary);
  const targets: Target[] = [];
  for (let w = 0; w < WORKERS; w++) {
    const root = `${dir.path}/w${w}`;
    const f = await workspaceFixture(root);
    const prep = await runCli(["workspace", "prepare", f.manifest], { env: f.env });
    assert.equal(prep.code, 0, prep.stderr);
    targets.push({ root, store: f.store, args: ["run", "op-ws"], env: f.env });
  }
  const r = await plantMatrix(targets, canary, FULL_WORKSPACE ? FULL : ROTATING);
  report("workspace store", r);
  assert.deepEqual(r.broke, []);
});
