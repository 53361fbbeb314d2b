/**
 * `control serve` against hostile requests (docs/reference/http_api.md §3, §5): query values that would name a file,
 * errors after a stream started, bodies built to break the audit record, bodies that never finish, and write bodies
 * of the wrong types. The server runs in this process on 127.0.0.1; the run is a test plane on a temp store.
 */
import assert from "node:assert/strict";
import { tempDir } from "../support/fs.ts";
import { waitFor, within } from "../support/wait.ts";
import { RUN_ID, writeDemoPacket } from "../control/_harness.ts";
import { storeRootForPacket } from "../../src/store/paths.ts";
import { parseJsonLines } from "../../src/util/fs.ts";
import { hubRun } from "./_hub_support.ts";
import { frames } from "./_serve_support.ts";
import { startServer } from "../../src/cli/serve/server.ts";
import { TokenTable } from "../../src/cli/serve/tokens.ts";
import type { Role } from "../../src/cli/serve/tokens.ts";

const TOKENS: [string, string, Role][] = [
  ["reader-token-0123456789", "eve", "read"],
  ["steerer-token-0123456789", "bob", "steer"],
  ["amender-token-0123456789", "ada", "amend"],
];
const [EVE, BOB, ADA] = TOKENS.map(([t]) => t) as [string, string, string];

/** A store with one run (finished unless `live`), served in this process; dispose to stop both. */
async function served(
  root: string,
  opts: { live?: boolean; bodyTimeoutMs?: number; writesPerMinute?: number; maxStreamsPerToken?: number } = {},
) {
  const storeRoot = `${root}/.prompt_runner`;
  const run = await hubRun(storeRoot);
  await run.record(2);
  if (!opts.live) {
    await run.plane.close("completed", null);
    await run.lease.release();
  }
  const srv = await startServer({
    targets: [{ id: "p", kind: "packet", packetDir: root, storeRoot }],
    tokens: await TokenTable.of(TOKENS.map(([token, name, role]) => [token, { name, role }] as const)),
    hostname: "127.0.0.1",
    port: 0,
    ...(opts.bodyTimeoutMs !== undefined ? { bodyTimeoutMs: opts.bodyTimeoutMs } : {}),
    ...(opts.writesPerMinute !== undefined ? { writesPerMinute: opts.writesPerMinute } : {}),
    ...(opts.maxStreamsPerToken !== undefined ? { maxStreamsPerToken: opts.maxStreamsPerToken } : {}),
  });
  return {
    srv,
    storeRoot,
    run,
    async [Symbol.asyncDispose]() {
      await srv.shutdown();
      if (opts.live) {
        await run.plane.close("completed", null).catch(() => {});
        await run.lease.release().catch(() => {});
      }
    },
  };
}

async function get(base: string, path: string, token: string) {
  const r = await fetch(new URL(path, base), { headers: { authorization: `Bearer ${token}` } });
  return { status: r.status, text: await r.text() };
}

Deno.test("serve: ?run= is a run id or refused — never a path to a file outside the store", async () => {
  await using tmp = await tempDir();
  await using s = await served(tmp.path);
  // A JSON-lines file next to the store: `?run=../../../secret` would name it as an earlier run's event archive.
  await Deno.writeTextFile(`${tmp.path}/secret.jsonl`, JSON.stringify({ type: "x", seq: 1, data: "hunter2" }) + "\n");
  for (const path of ["events", "log/stream", "log", "snapshot"]) {
    for (const run of ["../../../secret", "..%2F..%2F..%2Fsecret", `${RUN_ID}/../x`, "x"]) {
      const r = await get(s.srv.url, `/api/v1/targets/p/${path}?run=${run}`, EVE);
      assert.equal(r.status, 400, `${path}?run=${run}: ${r.text}`);
      assert.equal(JSON.parse(r.text).error.code, "invalid_id");
      assert.doesNotMatch(r.text, /hunter2/);
    }
  }
  // A run id still addresses the run.
  const ok = await get(s.srv.url, `/api/v1/targets/p/snapshot?run=${RUN_ID}`, EVE);
  assert.equal(ok.status, 200, ok.text);
});

Deno.test("serve: an error after a stream started is one `error` frame naming it, then the end of the stream", async () => {
  await using tmp = await tempDir();
  await using s = await served(tmp.path);
  // A run id of the right shape that never ran: the stream has started (200) before its follower finds no run.
  const r = await fetch(new URL("/api/v1/targets/p/events?run=20200101T000000Z-AAAAAA", s.srv.url), {
    headers: { authorization: `Bearer ${EVE}` },
  });
  assert.equal(r.status, 200);
  const got = [];
  for await (const f of frames(r.body!)) got.push(f);
  assert.equal(got.length, 1, JSON.stringify(got));
  assert.equal(got[0]!.event, "error");
  assert.equal(got[0]!.data.code, "no_run");
  assert.match(String(got[0]!.data.message), /20200101T000000Z-AAAAAA/);
});

Deno.test("serve: a body nested thousands deep is refused as invalid JSON, never as a 403 that misses the audit log", async () => {
  await using tmp = await tempDir();
  await using s = await served(tmp.path);
  const post = (token: string, body: string) =>
    fetch(new URL("/api/v1/targets/p/amend", s.srv.url), {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body,
    }).then(async (r) => ({ status: r.status, json: await r.json() }));
  const logged = async () =>
    (await Deno.readTextFile(`${s.storeRoot}/control/log.jsonl`).catch(() => "")).split("\n").filter((l) => l).length;
  const before = await logged();
  // Within 64 KiB: 16,000 levels, deeper than the stack of the code that writes a refusal's params to the log.
  const deep = "[".repeat(16_000) + "]".repeat(16_000);
  const r = await post(BOB, `{"prompt":"01","clause":"files_exist","reason":"r","entries":${deep}}`);
  assert.deepEqual([r.status, r.json.error.code], [400, "invalid_json"], JSON.stringify(r.json));
  assert.match(r.json.error.message, /deeper than 32 levels/);
  assert.equal(r.json.error.hint, null, "the refusal was recorded");
  assert.equal(await logged(), before + 1, "the refused body is on the record, without its params");
  // A body of ordinary depth that the role does not allow is refused on the record.
  const ok = await post(BOB, `{"prompt":"01","clause":"files_exist","reason":"r","entries":[[[["NOTES.md"]]]]}`);
  assert.equal(ok.status, 403);
  assert.equal(await logged(), before + 2);
});

Deno.test("serve: a write body that never finishes arriving is refused (408) instead of waited for", async () => {
  await using tmp = await tempDir();
  await using s = await served(tmp.path, { live: true, bodyTimeoutMs: 300 });
  const u = new URL(s.srv.url);
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: Number(u.port) });
  try {
    // 100 bytes announced, 9 sent, and then nothing: a slow client holding the request open.
    const head = `POST /api/v1/targets/p/steer HTTP/1.1\r\nHost: ${u.host}\r\nAuthorization: Bearer ${BOB}\r\n` +
      'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"text":"';
    await conn.write(new TextEncoder().encode(head));
    // The answer, read until its JSON body is complete (the connection may stay open: the client holds it).
    const readAnswer = async () => {
      let text = "";
      const buf = new Uint8Array(4096);
      while (!/\r\n\r\n\{.*\}\n$/s.test(text)) {
        const n = await conn.read(buf).catch(() => null);
        if (n === null) break;
        text += new TextDecoder().decode(buf.subarray(0, n));
      }
      return text;
    };
    const answer = await within(readAnswer(), 10_000, null);
    assert.notEqual(answer, null, "the server still waits for the body");
    assert.match(answer!, /^HTTP\/1\.1 408 /);
    assert.match(answer!, /request_timeout/);
  } finally {
    try {
      conn.close();
    } catch { /* closed by the server */ }
  }
  const requests = [...Deno.readDirSync(`${s.storeRoot}/control/requests`)];
  assert.deepEqual(requests, [], "nothing was written for it");
});

Deno.test("serve: amend and relax bodies with fields of the wrong type are refused, not read as their defaults", async () => {
  await using tmp = await tempDir();
  const packet = await writeDemoPacket(tmp.path);
  const storeRoot = storeRootForPacket(packet);
  const run = await hubRun(storeRoot);
  await run.record(1);
  const srv = await startServer({
    targets: [{ id: "p", kind: "packet", packetDir: packet, storeRoot }],
    tokens: await TokenTable.of([[ADA, { name: "ada", role: "amend" }]]),
    hostname: "127.0.0.1",
    port: 0,
  });
  try {
    const post = (kind: string, body: Record<string, unknown>) =>
      fetch(new URL(`/api/v1/targets/p/${kind}`, srv.url), {
        method: "POST",
        headers: { authorization: `Bearer ${ADA}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      }).then(async (r) => ({ status: r.status, json: await r.json() }));
    const amend = { prompt: "01", clause: "files_exist", entries: ["NOTES.md"], reason: "needed" };
    for (
      const [kind, body, key] of [
        ["amend", { ...amend, persist: "yes" }, "persist"],
        ["amend", { ...amend, entries: "NOTES.md" }, "entries"],
        ["amend", { ...amend, reason: ["needed"] }, "reason"],
        ["relax", { prompt: "01", clause: "contains", reason: "wrong", confirm: "true" }, "confirm"],
      ] as const
    ) {
      const r = await post(kind, body);
      assert.deepEqual([r.status, r.json.error?.code], [400, "invalid_value"], `${key}: ${JSON.stringify(r.json)}`);
      assert.match(r.json.error.message, new RegExp(`^${key}: expected`));
    }
    const ok = await post("amend", { ...amend, persist: false });
    assert.equal(ok.status, 200, JSON.stringify(ok.json));
    assert.equal(ok.json.author, "ada");
  } finally {
    await srv.shutdown();
    await run.plane.close("completed", null);
    await run.lease.release();
  }
});

Deno.test("serve: a token's refused writes count against its write rate, so a read token cannot flood the audit log", async () => {
  await using tmp = await tempDir();
  // 60 a minute: 10 at once, then one a second (the 40 below are sent well within that second).
  await using s = await served(tmp.path, { live: true, writesPerMinute: 60 });
  const steer = () =>
    fetch(new URL("/api/v1/targets/p/steer", s.srv.url), {
      method: "POST",
      headers: { authorization: `Bearer ${EVE}`, "content-type": "application/json" },
      body: JSON.stringify({ text: "x".repeat(1000) }),
    }).then(async (r) => (await r.body?.cancel(), r.status));
  const entries = async () => parseJsonLines(await Deno.readTextFile(`${s.storeRoot}/control/log.jsonl`));
  const statuses = await Promise.all(Array.from({ length: 40 }, steer));
  const forbidden = statuses.filter((c) => c === 403).length;
  assert.equal(forbidden, 10, `${forbidden} forbidden of 40 sent at once: ${statuses}`);
  assert.equal(forbidden + statuses.filter((c) => c === 429).length, 40);
  const log = await entries();
  assert.deepEqual(log.map((e) => [e.author, e.outcome]), log.map(() => ["eve", "rejected"]));
  assert.equal(log.length, forbidden + 1, "each 403 and the first 429 on the record; the other 429s counted");
  const overRate = log.filter((e) => /over its write rate/.test(String(e.reason)));
  assert.equal(overRate.length, 1);
  assert.match(String(overRate[0]!.reason), /\(60 a minute\).*counted, not recorded one by one/);
  // Once the token may write again, the count of the refusals not recorded one by one is on the record.
  let limited = 40 - forbidden - 1;
  await waitFor(async () => {
    const c = await steer();
    if (c === 429) limited += 1;
    return c === 403;
  }, { what: "the token to be allowed a write again", intervalMs: 50 });
  const after = await entries();
  assert.equal(after.length, log.length + 2, "the count, then the 403");
  assert.deepEqual(after.at(-2)!.params, { refused: limited });
  assert.match(String(after.at(-2)!.reason), new RegExp(`refused ${limited} more writes over its write rate`));
  assert.match(String(after.at(-1)!.reason), /has role read; steer needs role steer/);
});

Deno.test("serve: a 403 whose refusal could not be written to the audit log says so", async () => {
  await using tmp = await tempDir();
  await using s = await served(tmp.path);
  // The audit log cannot be appended to: a directory stands where the file should be.
  await Deno.remove(`${s.storeRoot}/control/log.jsonl`);
  await Deno.mkdir(`${s.storeRoot}/control/log.jsonl`);
  const r = await fetch(new URL("/api/v1/targets/p/steer", s.srv.url), {
    method: "POST",
    headers: { authorization: `Bearer ${EVE}`, "content-type": "application/json" },
    body: JSON.stringify({ text: "let me in" }),
  });
  const { error } = await r.json();
  assert.equal(r.status, 403);
  assert.equal(error.code, "forbidden");
  assert.match(String(error.hint), /^this refusal could not be recorded in .*log\.jsonl/);
});

Deno.test("serve: one token holds a bounded number of streams; a closed one frees its place", async () => {
  await using tmp = await tempDir();
  await using s = await served(tmp.path, { live: true, maxStreamsPerToken: 3 });
  const open = (token: string, path: string, ac: AbortController) =>
    fetch(new URL(`/api/v1/targets/p/${path}`, s.srv.url), {
      headers: { authorization: `Bearer ${token}` },
      signal: ac.signal,
    });
  const acs: AbortController[] = [];
  const held: Response[] = [];
  for (const path of ["events", "log/stream", "events"]) {
    const ac = new AbortController();
    acs.push(ac);
    const r = await open(EVE, path, ac);
    assert.equal(r.status, 200);
    held.push(r);
  }
  try {
    const ac = new AbortController();
    acs.push(ac);
    const over = await open(EVE, "log/stream", ac);
    assert.equal(over.status, 429);
    const { error } = await over.json();
    assert.equal(error.code, "too_many_streams");
    assert.match(error.message, /token "eve" has 3 streams open/);
    // Another token is not held back by it.
    const other = await open(BOB, "events", ac);
    assert.equal(other.status, 200);
    await other.body!.cancel();
    // Closing one of eve's streams frees a place.
    acs[0]!.abort();
    await held[0]!.body!.cancel().catch(() => {});
    const again = await waitFor(async () => {
      const r = await open(EVE, "events", ac);
      if (r.status === 200) return r;
      await r.body?.cancel();
      return null;
    }, { what: "a place for eve's stream" });
    await again.body!.cancel();
  } finally {
    for (const ac of acs) ac.abort();
    for (const r of held) await r.body?.cancel().catch(() => {});
  }
});

Deno.test("serve: an Authorization header that is not one Bearer token is told so, not told it is missing", async () => {
  await using tmp = await tempDir();
  await using s = await served(tmp.path);
  const u = new URL(s.srv.url);
  const ask = async (auth: string[]) => {
    const lines = auth.map((a) => `Authorization: ${a}\r\n`).join("");
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: Number(u.port) });
    try {
      await conn.write(
        new TextEncoder().encode(`GET /api/v1/whoami HTTP/1.1\r\nHost: ${u.host}\r\n${lines}Connection: close\r\n\r\n`),
      );
      let text = "";
      const buf = new Uint8Array(4096);
      for (let n = await conn.read(buf); n !== null; n = await conn.read(buf)) {
        text += new TextDecoder().decode(buf.subarray(0, n));
      }
      return { status: Number(text.slice(9, 12)), error: JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4)).error };
    } finally {
      try {
        conn.close();
      } catch { /* closed by the server */ }
    }
  };
  for (const auth of [[`Bearer ${EVE}`, `Bearer ${EVE}`], [`Basic ${btoa("eve:x")}`], ["Bearer a b"]]) {
    const r = await ask(auth);
    assert.equal(r.status, 401, auth.join(" / "));
    assert.match(r.error.message, /^the Authorization header is not one Bearer <token>/, auth.join(" / "));
  }
  assert.match((await ask([])).error.message, /header is required/);
  assert.equal((await ask([`bearer ${EVE}`])).status, 200);
});

Deno.test("serve: a write refused for its body or a field (400, 408, 413, 415) is on the record, and counts against the rate", async () => {
  await using tmp = await tempDir();
  await using s = await served(tmp.path, { bodyTimeoutMs: 300, writesPerMinute: 8 });
  const post = (path: string, token: string, body: string, type = "application/json") =>
    fetch(new URL(`/api/v1/targets/p/${path}`, s.srv.url), {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": type },
      body,
    }).then(async (r) => ({ status: r.status, json: await r.json() }));
  const log = async () =>
    parseJsonLines(await Deno.readTextFile(`${s.storeRoot}/control/log.jsonl`).catch(() => "")) as Record<
      string,
      unknown
    >[];
  const answers = [
    await post("steer", BOB, '{"text": "unfinished'),
    await post("steer", BOB, '{"text": "hi"}', "text/plain"),
    await post("view", BOB, JSON.stringify({ diff: "x".repeat(70 * 1024) })),
    await post("steer", BOB, JSON.stringify({ text: "hi", wait_ms: "soon" })),
    await post("amend", ADA, JSON.stringify({ clause: "files_exist", entries: ["a.md"], reason: "r" })),
    await post("amend", ADA, JSON.stringify({ prompt: "01", clause: "files_exist", entries: "a.md", reason: "r" })),
  ];
  assert.deepEqual(answers.map((a) => [a.status, a.json.error.code, a.json.error.hint]), [
    [400, "invalid_json", null],
    [415, "unsupported_media_type", null],
    [413, "body_too_large", null],
    [400, "invalid_value", null],
    [400, "missing_argument", null],
    [400, "invalid_value", null],
  ]);
  // A body that never finishes arriving (408): announced, partly sent, then nothing.
  const u = new URL(s.srv.url);
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: Number(u.port) });
  try {
    await conn.write(new TextEncoder().encode(
      `POST /api/v1/targets/p/steer HTTP/1.1\r\nHost: ${u.host}\r\nAuthorization: Bearer ${BOB}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"text":"',
    ));
    await waitFor(async () => (await log()).some((e) => e.reason === "request body did not arrive within 300 ms"), {
      timeoutMs: 10_000,
      what: "the 408 on the record",
    });
  } finally {
    try {
      conn.close();
    } catch { /* closed by the server */ }
  }
  const entries = await log();
  assert.deepEqual(
    entries.map((e) => [e.command, e.outcome, e.author, e.request, e.params]),
    [
      ["steer", "rejected", "bob", null, { body_refused: "invalid_json" }],
      ["steer", "rejected", "bob", null, { body_refused: "unsupported_media_type" }],
      ["set_view", "rejected", "bob", null, { body_refused: "body_too_large" }],
      ["steer", "rejected", "bob", null, { text: "hi" }],
      ["amend", "rejected", "ada", null, { clause: "files_exist", entries: ["a.md"] }],
      ["amend", "rejected", "ada", null, { clause: "files_exist", entries: "a.md" }],
      ["steer", "rejected", "bob", null, { body_refused: "request_timeout" }],
    ],
  );
  assert.match(String(entries[0]!.reason), /^request body is not JSON/);
  assert.equal(entries[3]!.reason, "wait_ms: expected an integer from 0 to 30000");
  assert.equal(entries[5]!.prompt_id, "01");
  // Refused bodies count against the token's write rate (8 a minute here): past it, one 429 entry, then counted.
  const burst = [];
  for (let i = 0; i < 6; i++) burst.push((await post("steer", BOB, "{nope")).status);
  assert.ok(burst.includes(429), `no 429 in ${burst.join(", ")}`);
  const after = await log();
  assert.ok(after.length <= entries.length + 6, `${after.length - entries.length} entries for 6 refused writes`);
  assert.equal(after.filter((e) => e.reason !== undefined && /over its write rate/.test(String(e.reason))).length, 1);
});
