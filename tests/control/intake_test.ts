import assert from "node:assert/strict";
import { tempDir } from "../support/fs.ts";
import { body, dropRaw, lines, names, readJson, reqName, RUN_ID, testPlane } from "./_harness.ts";
import { readyNames } from "../../src/control/inbox.ts";
import { inspectBody, jsonDepth, MAX_JSON_DEPTH } from "../../src/control/request_body.ts";
import { requestNameProblem } from "../../src/control/claim.ts";
import { escapeControl } from "../../src/util/escape.ts";
import { logLine } from "../../src/cli/control/log.ts";
import { normalizeEntry } from "../../src/control/log.ts";
import { painter } from "../../src/render/ansi.ts";
import { STALE_REASON, sweepStaleRequests } from "../../src/control/stale.ts";
import { REQUEST_SCHEMA, writeRequest } from "../../src/control/request.ts";

const enc = new TextEncoder();
const n = (stamp: string, pid: number, seq: number) =>
  `20261130T120701.${stamp}Z-${pid}-${String(seq).padStart(6, "0")}-abcd.json`;

Deno.test("readyNames(): an entry missed by the first listing holds back only its writer's later entries", () => {
  // Listing 1 missed w1#165 (readdir is not a snapshot) but saw w1#166; listing 2 sees both.
  const prev = new Set([n("000164", 1, 164), n("000166", 1, 166), n("000170", 2, 7)]);
  const cur = [n("000164", 1, 164), n("000165", 1, 165), n("000166", 1, 166), n("000170", 2, 7), n("000171", 2, 8)];
  const ready = readyNames(cur, prev);
  assert.ok(ready.has(n("000165", 1, 165)), "the missed predecessor is processed with its successor");
  assert.ok(ready.has(n("000166", 1, 166)));
  assert.ok(!ready.has(n("000171", 2, 8)), "an entry new in this listing waits a round");
  assert.ok(ready.has(n("000170", 2, 7)));
});

Deno.test("requestNameProblem(): CLI names pass; long, hidden and odd names are refused with a reason", () => {
  assert.equal(requestNameProblem(n("000001", 42, 1)), null);
  assert.match(requestNameProblem("a".repeat(240) + ".json")!, /longer than 100 bytes \(245\)/);
  assert.match(requestNameProblem(".x.json")!, /hidden/);
  assert.match(requestNameProblem("a\nb.json")!, /characters outside/);
  assert.match(requestNameProblem("é.json")!, /characters outside/);
});

Deno.test("inspectBody(): depth bound before parsing, field types with exact reasons, control characters kept", () => {
  const deep = `{"command":"steer","params":${"[".repeat(30_000)}${"]".repeat(30_000)}}`;
  assert.equal(jsonDepth(deep, MAX_JSON_DEPTH), MAX_JSON_DEPTH + 1, "the scan stops early");
  assert.deepEqual(inspectBody(enc.encode(deep)), {
    kind: "unparseable",
    message: `nests deeper than ${MAX_JSON_DEPTH} levels`,
  });
  assert.equal(jsonDepth('{"a":"[[[[{{{{"}'), 1, "brackets inside strings do not count");
  const obj = inspectBody(enc.encode(JSON.stringify({ command: "steer", run_id: { x: 1 }, params: {} })));
  assert.equal(obj.kind === "invalid" && obj.reason, "run_id must be a string or null, got an object");
  const num = inspectBody(enc.encode(JSON.stringify({ command: 7 })));
  assert.equal(num.kind === "invalid" && num.reason, "command must be a string, got a number");
  const arr = inspectBody(enc.encode(JSON.stringify({ command: "steer", params: [1] })));
  assert.equal(arr.kind === "invalid" && arr.reason, "params must be an object, got an array");
  const auth = inspectBody(enc.encode(JSON.stringify({ command: "steer", author: ["x"] })));
  assert.equal(auth.kind === "invalid" && auth.reason, "author must be a string, got an array");
  assert.deepEqual(inspectBody(new Uint8Array()), { kind: "unparseable", message: "empty file" });
  const esc = inspectBody(enc.encode(JSON.stringify({ command: "steer", params: { text: "a\x1b[31mb\x07" } })));
  assert.equal(esc.kind === "request" && esc.params.text, "a\x1b[31mb\x07", "kept verbatim");
});

Deno.test("escapeControl() and control log lines never print ESC/BEL raw", () => {
  assert.equal(escapeControl("a\x1b[2Jb\x07c\n\u009b"), "a\\x1b[2Jb\\x07c\\x0a\\x9b");
  const entry = normalizeEntry({
    at: "2026-11-30T12:00:00.000Z",
    key: "k",
    request: "r",
    run_id: RUN_ID,
    command: "steer",
    params: { text: "x\x1b]0;pwned\x07\x7f" },
    author: "eve\x1b[2J",
    outcome: "rejected",
    reason: "bad\x07",
  });
  const line = logLine(entry, painter(false));
  // deno-lint-ignore no-control-regex
  assert.doesNotMatch(line, /[\x00-\x1f\x7f]/);
  assert.match(line, /eve\\x1b\[2J/);
  assert.match(line, /bad\\x07$/);
});

Deno.test("hostile entries each get one outcome and later requests still apply (FIFO, symlink to FIFO, long name)", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/s`;
  const { plane, hooks, paths } = await testPlane(store);
  const fifo = `${tmp.path}/outside.fifo`;
  const mk = await new Deno.Command("mkfifo", { args: [fifo, `${paths.requests}/${reqName()}`] }).output();
  assert.ok(mk.success, "mkfifo is available");
  await Deno.symlink(fifo, `${paths.requests}/${reqName()}`);
  const longName = "r".repeat(240) + ".json";
  await dropRaw(store, longName, body("set_view", { diff: "full" }));
  const deep = await dropRaw(
    store,
    reqName(),
    `{"command":"steer","params":${"[".repeat(30_000)}${"]".repeat(30_000)}}`,
  );
  const objRun = await dropRaw(store, reqName(), body("set_view", { diff: "full" }, { run_id: { a: 1 } }));
  const good = await dropRaw(store, reqName(), body("set_view", { tool_output: "full" }));
  plane.boundary();
  await plane.close("completed", null);
  const log = await lines(paths.log);
  assert.equal(log.length, 6, JSON.stringify(log.map((e) => e.reason)));
  const byReq = new Map(log.map((e) => [e.request, e]));
  assert.equal(byReq.get(longName)!.reason, "file name longer than 100 bytes (245)");
  assert.equal(byReq.get(deep)!.reason, "invalid JSON: nests deeper than 16 levels");
  assert.deepEqual(byReq.get(deep)!.params, {}, "the deep params are not stored");
  assert.equal(byReq.get(objRun)!.reason, "run_id must be a string or null, got an object");
  assert.ok(!JSON.stringify(log).includes("[object Object]"));
  assert.equal(byReq.get(good)!.outcome, "applied");
  assert.equal(hooks.views.length, 1);
  assert.equal(log.filter((e) => /not a regular file \((fifo|symlink)\)/.test(String(e.reason))).length, 2);
  assert.deepEqual(await names(paths.requests), []);
  assert.deepEqual(await names(`${paths.control}/.claims`), [], "claim directory removed at close");
  assert.ok(!(await names(paths.outcomes)).includes(longName), "no receipt for a refused name");
  assert.ok((await Deno.lstat(fifo)).isFifo, "the FIFO outside the store is untouched");
});

Deno.test("a runner killed between claim and outcome: the next runner adopts the claim and records it once", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/s`;
  const first = await testPlane(store);
  await first.plane.close("completed", null);
  const name = await dropRaw(store, reqName(), body("set_view", { diff: "full" }));
  const script = new URL("./_claim_crash.ts", import.meta.url).pathname;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", script, store],
    env: { PROMPT_RUNNER_FAILPOINT: "control.after_claim" },
  }).output();
  assert.equal(out.signal, "SIGKILL");
  const claims = `${first.paths.control}/.claims`;
  const dirs = await names(claims);
  assert.equal(dirs.length, 1);
  assert.deepEqual(await names(`${claims}/${dirs[0]}`), [name], "claimed, no outcome yet");
  assert.equal((await lines(first.paths.log)).length, 0);
  const { plane, hooks, paths } = await testPlane(store);
  plane.boundary();
  await plane.close("completed", null);
  const log = (await lines(paths.log)).filter((e) => e.request === name);
  assert.equal(log.length, 1);
  assert.equal(log[0]!.outcome, "applied");
  assert.equal(hooks.views.length, 1);
  assert.equal((await readJson(`${paths.outcomes}/${name}`)).outcome, "applied");
  assert.deepEqual(await names(claims), []);
});

Deno.test("a request left after its run ended is rejected by the next writer, exactly once", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/s`;
  const { plane, paths } = await testPlane(store);
  await plane.close("completed", null);
  const late = await writeRequest(store, {
    schema: REQUEST_SCHEMA,
    command: "steer",
    params: { text: "too late" },
    run_id: RUN_ID,
    author: "ada",
    issued_at: new Date().toISOString(),
  });
  const odd = await dropRaw(store, "x".repeat(200), "{}");
  assert.equal(await sweepStaleRequests(store), 2);
  assert.equal(await sweepStaleRequests(store), 0, "nothing left: a second sweep records nothing");
  const log = await lines(paths.log);
  const mine = log.filter((e) => e.request === late);
  assert.equal(mine.length, 1);
  assert.equal(mine[0]!.reason, STALE_REASON);
  assert.equal(mine[0]!.author, "ada");
  assert.equal((await readJson(`${paths.outcomes}/${late}`)).outcome, "rejected");
  assert.equal(log.filter((e) => e.request === odd).length, 1);
  assert.deepEqual(await names(paths.requests), []);
  assert.deepEqual(await names(`${paths.control}/.claims`), []);
});

Deno.test("the sweep leaves requests alone while a runner holds the lease", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/s`;
  const { plane, paths } = await testPlane(store);
  try {
    const { acquireLease } = await import("../../src/store/lease.ts");
    const lease = await acquireLease(store, { runId: RUN_ID, packetDir: tmp.path, argv: ["run"] });
    try {
      const name = await dropRaw(store, reqName(), body("set_view", { diff: "full" }));
      assert.equal(await sweepStaleRequests(store), 0);
      assert.deepEqual(await names(paths.requests), [name]);
    } finally {
      await lease.release();
    }
  } finally {
    await plane.close("completed", null);
  }
});
