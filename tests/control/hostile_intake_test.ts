/**
 * Fault injection on the request inbox (issue #11 item 6): hostile entries dropped into `control/requests/` of a
 * live stand-in runner process, plus a property over random bodies. Each case asserts: one outcome per entry,
 * nothing left in `requests/` or claimed, nothing written outside the store, and the runner process exits.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { tempDir } from "../support/fs.ts";
import { body, lines, names, reqName, RUN_ID, startLivePlane, testPlane, writeDemoPacket } from "./_harness.ts";
import { storePaths, storeRootForPacket } from "../../src/store/paths.ts";
import { waitFor, within } from "../support/wait.ts";

type Make = (requests: string, outside: string) => Promise<string>;

const raw = (text: string | Uint8Array, name = reqName()): Make => async (requests) => {
  const tmp = `${requests}/../.tmp/part-${crypto.randomUUID()}`;
  if (typeof text === "string") await Deno.writeTextFile(tmp, text);
  else await Deno.writeFile(tmp, text);
  await Deno.rename(tmp, `${requests}/${name}`);
  return name;
};
const fifoAt = (name = reqName()): Make => async (requests) => {
  const r = await new Deno.Command("mkfifo", { args: [`${requests}/${name}`] }).output();
  assert.ok(r.success);
  return name;
};
const linkTo = (target: (outside: string) => string | Promise<string>, name = reqName()): Make =>
async (
  requests,
  outside,
) => {
  await Deno.symlink(await target(outside), `${requests}/${name}`);
  return name;
};
const deep = (n: number) => `{"command":"steer","params":{"text":${"[".repeat(n)}${"]".repeat(n)}}}`;
let outsideN = 0;
const outsideFile = async (o: string) => {
  const p = `${o}/file${++outsideN}.json`;
  await Deno.writeTextFile(p, body("set_view", { diff: "full" }));
  return p;
};
const outsideFifo = async (o: string) => {
  const p = `${o}/fifo${++outsideN}`;
  await new Deno.Command("mkfifo", { args: [p] }).output();
  return p;
};

/** The hostile cases: name → how to make the entry. */
const CASES: [string, Make][] = [
  ["empty file", raw("")],
  ["whitespace only", raw("  \n\t ")],
  ["huge (70 kB)", raw(body("steer", { text: "x".repeat(70_000) }))],
  ["exactly 64 KiB + 1 of spaces", raw(" ".repeat(65537))],
  ["binary garbage", raw(crypto.getRandomValues(new Uint8Array(512)))],
  ["invalid UTF-8", raw(new Uint8Array([0x7b, 0xc3, 0x28, 0x7d]))],
  ["NUL bytes", raw(new Uint8Array([0x7b, 0, 0, 0x7d]))],
  ["half-written JSON", raw('{"command":"set_view","params":{"diff":')],
  ["truncated mid-string", raw('{"command":"ste')],
  ["JSON null", raw("null")],
  ["JSON number", raw("42")],
  ["JSON string", raw('"steer"')],
  ["JSON array", raw('[{"command":"steer"}]')],
  ["no command", raw(JSON.stringify({ params: {} }))],
  ["command number", raw(JSON.stringify({ command: 1 }))],
  ["command object", raw(JSON.stringify({ command: { a: 1 } }))],
  ["command too long", raw(body("x".repeat(200), {}))],
  ["unknown command", raw(body("rm_rf", {}))],
  ["params array", raw(JSON.stringify({ command: "set_view", params: [1, 2] }))],
  ["params string", raw(JSON.stringify({ command: "set_view", params: "diff=full" }))],
  ["run_id object", raw(body("set_view", { diff: "full" }, { run_id: { id: RUN_ID } }))],
  ["run_id number", raw(body("set_view", { diff: "full" }, { run_id: 7 }))],
  ["run_id too long", raw(body("set_view", { diff: "full" }, { run_id: "r".repeat(500) }))],
  ["other run", raw(body("set_view", { diff: "full" }, { run_id: "20200101T000000Z-AAAAAA" }))],
  ["author array", raw(body("set_view", { diff: "full" }, { author: ["eve"] }))],
  ["author too long", raw(body("set_view", { diff: "full" }, { author: "a".repeat(1000) }))],
  ["bad view value", raw(body("set_view", { tool_output: "everything" }))],
  ["steer text number", raw(body("steer", { text: 12 }))],
  ["nesting 30,000 deep", raw(deep(30_000))],
  ["nesting 17 deep", raw(deep(15))],
  ["ESC/BEL in steer", raw(body("steer", { text: "hi\x1b]0;owned\x07\x1b[2J" }))],
  ["name 240 characters", raw(body("set_view", { diff: "full" }), "n".repeat(235) + ".json")],
  ["name 255 characters", raw(body("set_view", { diff: "full" }), "m".repeat(250) + ".json")],
  ["name with newline", raw(body("set_view", { diff: "full" }), "a\nb.json")],
  ["name with ESC", raw(body("set_view", { diff: "full" }), "a\x1b[31mb.json")],
  ["hidden name", raw(body("set_view", { diff: "full" }), ".sneaky.json")],
  ["name with spaces", raw(body("set_view", { diff: "full" }), "a b.json")],
  ["FIFO", fifoAt()],
  ["FIFO with an odd name", fifoAt("fifo\nname")],
  ["symlink to a file outside", linkTo(outsideFile)],
  ["symlink to a FIFO outside", linkTo(outsideFifo)],
  ["symlink to a directory", linkTo((o) => o)],
  ["dangling symlink", linkTo((o) => `${o}/nope`)],
  ["symlink loop", linkTo(() => "loop-self", "loop-self")],
  ["directory", async (req) => {
    const n = reqName();
    // Built in the store's .tmp and renamed in whole: the live runner may take an empty directory before the file lands.
    const staged = `${req}/../.tmp/dir-${crypto.randomUUID()}`;
    await Deno.mkdir(staged);
    await Deno.writeTextFile(`${staged}/inner.json`, "{}");
    await Deno.rename(staged, `${req}/${n}`);
    return n;
  }],
  ["unix socket", async (req) => {
    const n = reqName();
    // A child binds it (the test task grants no unix-socket permission); process exit leaves the socket file.
    const short = `/tmp/s${crypto.getRandomValues(new Uint32Array(1))[0]}`; // sun_path is short
    const code = `Deno.listen({ transport: "unix", path: ${JSON.stringify(short)} }); Deno.exit(0);`;
    const r = await new Deno.Command(Deno.execPath(), { args: ["eval", code] }).output();
    assert.ok(r.success, new TextDecoder().decode(r.stderr));
    await Deno.rename(short, `${req}/${n}`);
    return n;
  }],
];

async function listTree(dir: string, skip: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string) => {
    for await (const e of Deno.readDir(d)) {
      const p = `${d}/${e.name}`;
      if (p === skip) continue;
      const st = await Deno.lstat(p);
      out.push(`${p} ${st.size} ${st.mtime?.getTime()}`);
      if (e.isDirectory) await walk(p);
    }
  };
  await walk(dir);
  return out.sort();
}

Deno.test(`${CASES.length} hostile control entries against a live runner: one outcome each, no hang, nothing outside`, async () => {
  assert.ok(CASES.length >= 40);
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  const store = storeRootForPacket(dir);
  const p = storePaths(store);
  const outside = `${tmp.path}/outside`;
  await Deno.mkdir(outside);
  const live = await startLivePlane(dir);
  let stopped = false;
  let stopping = false;
  const made: { label: string; name: string }[] = [];
  const valid: string[] = [];
  try {
    for (const [label, make] of CASES) {
      made.push({ label, name: await make(p.requests, outside) });
    }
    // Valid requests interleaved after the hostile ones must still apply.
    for (let i = 0; i < 3; i++) {
      valid.push(await raw(body("set_view", { diff: i % 2 ? "full" : "stat" }))(p.requests, outside));
    }
    const before = await listTree(tmp.path, store);
    await waitFor(async () => (await names(p.requests)).length === 0, {
      timeoutMs: 20_000,
      what: "requests/ drained",
      intervalMs: 50,
    });
    stopping = true;
    const stop = live.stop().then(() => (stopped = true));
    await within(stop, 15_000, null);
    assert.ok(stopped, "the runner process exited after run_finished (no thread blocked on a FIFO)");
    assert.deepEqual(await listTree(tmp.path, store), before, "nothing outside the store changed");
  } finally {
    if (!stopping) await live.stop(); // a stop already under way that hung has failed the test above
  }
  const log = await lines(p.log);
  let held = 0;
  const broke: string[] = [];
  for (const { label, name } of made) {
    const mine = log.filter((e) => e.request === name);
    const finals = mine.filter((e) => e.outcome === "applied" || e.outcome === "rejected");
    // Control characters are data, not an attack on intake: that steer is delivered, its text kept verbatim.
    const ok = label === "ESC/BEL in steer"
      ? finals.length === 1 && finals[0]!.outcome === "applied" &&
        (finals[0]!.params as { text?: string }).text === "hi\x1b]0;owned\x07\x1b[2J"
      : mine.length === 1 && finals[0]?.outcome === "rejected" && typeof finals[0]!.reason === "string";
    if (ok) held++;
    else broke.push(`${label}: ${JSON.stringify(mine.map((e) => [e.outcome, e.reason]))}`);
  }
  for (const v of valid) assert.equal(log.filter((e) => e.request === v && e.outcome === "applied").length, 1);
  assert.deepEqual(await names(`${p.control}/.claims`), [], "nothing left claimed");
  const text = await Deno.readTextFile(p.log);
  assert.ok(!text.includes("[object Object]"));
  console.log(`hostile intake: tried ${made.length} · held ${held} · broke ${broke.length}`);
  assert.deepEqual(broke, []);
});

// With the watcher off, the intake alone must not open what a symlink points to.
Deno.test("a symlink to a FIFO outside the store: the intake rejects it without opening it", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/s`;
  const { plane, paths } = await testPlane(store, { watch: false });
  const name = await linkTo(outsideFifo)(paths.requests, tmp.path);
  plane.boundary();
  await plane.close("completed", null);
  const mine = (await lines(paths.log)).filter((e) => e.request === name);
  assert.equal(mine.length, 1);
  assert.equal(mine[0]!.reason, "not a regular file (symlink)");
  assert.deepEqual(await names(paths.requests), []);
});

Deno.test("property: any bytes under any name get exactly one outcome and never stall the scan", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/s`;
  const { plane, paths } = await testPlane(store);
  const nameArb = fc.oneof(
    fc.constant(null), // a CLI-shaped name
    // deno-lint-ignore no-control-regex
    fc.stringMatching(/^[A-Za-z0-9._\- \n\x1b]{1,200}$/).filter((s) => s !== "." && s !== ".." && !s.includes("/")),
  );
  const bodyArb = fc.oneof(
    fc.uint8Array({ maxLength: 300 }),
    fc.jsonValue({ maxDepth: 20 }).map((v) => new TextEncoder().encode(JSON.stringify(v))),
    fc.record({ command: fc.oneof(fc.constant("set_view"), fc.constant("steer"), fc.string()), params: fc.jsonValue() })
      .map((v) => new TextEncoder().encode(JSON.stringify(v))),
  );
  let total = 0;
  let unique = 0;
  try {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(nameArb, bodyArb), { minLength: 1, maxLength: 8 }), async (entries) => {
        const dropped: string[] = [];
        for (const [n, bytes] of entries) {
          // Names are unique across runs (a reused name is an already-recorded request: removed, not re-logged).
          const name = n === null ? reqName() : `${n.slice(0, 180)}-u${++unique}`;
          try {
            await Deno.lstat(`${paths.requests}/${name}`);
            continue; // name clash within one batch
          } catch { /* free */ }
          await Deno.writeFile(`${paths.controlTmp}/x`, bytes);
          await Deno.rename(`${paths.controlTmp}/x`, `${paths.requests}/${name}`);
          dropped.push(name);
        }
        const before = (await lines(paths.log)).length;
        plane.boundary();
        const after = await lines(paths.log);
        assert.deepEqual(await names(paths.requests), []);
        assert.equal(after.length - before, dropped.length, "one log entry per entry");
        for (const name of dropped) assert.equal(after.filter((e) => e.request === name).length >= 1, true);
        total += dropped.length;
      }),
      { numRuns: 60 },
    );
  } finally {
    await plane.close("completed", null);
  }
  assert.ok(total > 60);
});
