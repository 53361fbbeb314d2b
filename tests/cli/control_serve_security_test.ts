/**
 * `control serve` security rules at the HTTP level (docs/reference/http_api.md §3): 401, 403 on the record, the Host
 * allow-list, body caps, ids that would traverse, the write rate, concurrent writers, and the start-up refusals.
 */
import assert from "node:assert/strict";
import { tempDir } from "../support/fs.ts";
import { runCli } from "../support/cli.ts";
import { startLivePlane, writeDemoPacket } from "../control/_harness.ts";
import { storePaths, storeRootForPacket } from "../../src/store/paths.ts";
import { parseJsonLines } from "../../src/util/fs.ts";
import { call, rawHttp, startServe } from "./_serve_support.ts";

const ADA = "ada-amend-token-0123456789";
const BOB = "bob-steer-token-0123456789";
const EVE = "eve-read-token-0123456789";

async function tokensFile(dir: string, rows = [["ada", "amend", ADA], ["bob", "steer", BOB], ["eve", "read", EVE]]) {
  const path = `${dir}/tokens.json`;
  await Deno.writeTextFile(
    path,
    JSON.stringify({ tokens: rows.map(([name, role, token]) => ({ name, role, token })) }),
  );
  return path;
}

async function logOf(dir: string) {
  try {
    return parseJsonLines(await Deno.readTextFile(storePaths(storeRootForPacket(dir)).log));
  } catch {
    return [];
  }
}

const code = (r: { json: Record<string, unknown> }) => (r.json.error as { code?: string } | undefined)?.code;

Deno.test("control serve: 401 without a valid token (not audited); 403 for a role that does not grant the write, on the record", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  const live = await startLivePlane(dir);
  const srv = await startServe([dir, "--tokens", await tokensFile(tmp.path)]);
  try {
    assert.equal(srv.token, null, "no token is generated with --tokens");
    const none = await call(srv.url, "/api/v1/targets", null);
    assert.deepEqual([none.status, code(none)], [401, "unauthorized"]);
    assert.match(none.headers.get("www-authenticate") ?? "", /^Bearer/);
    const wrong = await call(srv.url, "/api/v1/targets/demo/steer", "not-a-token-at-all-xx", { body: { text: "x" } });
    assert.deepEqual([wrong.status, code(wrong)], [401, "unauthorized"]);
    assert.equal((await logOf(dir)).length, 0, "an unauthenticated request is nobody's: nothing audited");

    // read may read everything, and nothing else.
    assert.equal((await call(srv.url, "/api/v1/targets/demo/snapshot", EVE)).status, 200);
    const eveSteer = await call(srv.url, "/api/v1/targets/demo/steer", EVE, { body: { text: "let me in" } });
    assert.deepEqual([eveSteer.status, code(eveSteer)], [403, "forbidden"]);
    const eveView = await call(srv.url, "/api/v1/targets/demo/view", EVE, { body: { diff: "full" } });
    assert.equal(eveView.status, 403);
    // steer may steer, not amend.
    const bobAmend = await call(srv.url, "/api/v1/targets/demo/amend", BOB, {
      body: { prompt: "01", clause: "files_exist", entries: ["NOTES.md"], reason: "needed" },
    });
    assert.deepEqual([bobAmend.status, code(bobAmend)], [403, "forbidden"]);
    const bobSteer = await call(srv.url, "/api/v1/targets/demo/steer", BOB, { body: { text: "ok", wait_ms: 10_000 } });
    assert.equal(bobSteer.json.outcome, "applied", JSON.stringify(bobSteer.json));
    // amend may amend; the record's author is the token's name.
    const adaAmend = await call(srv.url, "/api/v1/targets/demo/amend", ADA, {
      body: { prompt: "01", clause: "files_exist", entries: ["NOTES.md"], reason: "needed", author: "mallory" },
    });
    assert.equal(adaAmend.status, 200, JSON.stringify(adaAmend.json));
    assert.equal(adaAmend.json.author, "ada");
    const relaxNoConfirm = await call(srv.url, "/api/v1/targets/demo/relax", ADA, {
      body: { prompt: "01", clause: "contains", reason: "wrong" },
    });
    assert.deepEqual([relaxNoConfirm.status, code(relaxNoConfirm)], [400, "confirmation_required"]);
  } finally {
    await live.stop();
    await srv.stop();
  }
  const log = await logOf(dir);
  const rows = log.map((e) => [e.command, e.outcome, e.author, e.request === null ? null : "req"]);
  assert.deepEqual(rows, [
    ["steer", "rejected", "eve", null],
    ["set_view", "rejected", "eve", null],
    ["amend", "rejected", "bob", null],
    ["steer", "accepted", "bob", "req"],
    ["steer", "applied", "bob", "req"],
    ["amend", "applied", "ada", null],
    ["relax", "rejected", "ada", null],
  ]);
  assert.equal(log[0]!.reason, 'token "eve" has role read; steer needs role steer');
  assert.deepEqual(log[0]!.params, { text: "let me in" });
  assert.equal(log[2]!.reason, 'token "bob" has role steer; amend needs role amend');
  assert.equal(log[2]!.prompt_id, "01");
  assert.ok(log.filter((e) => e.outcome === "rejected").length >= 4);
});

Deno.test("control serve: Host allow-list, no CORS, body caps, ids that would traverse, unknown routes", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  const live = await startLivePlane(dir);
  const srv = await startServe([dir, "--tokens", await tokensFile(tmp.path), "--allow-host", "runner.example"]);
  const port = new URL(srv.url).port;
  try {
    const auth = `Authorization: Bearer ${ADA}`;
    const get = (path: string, host = `127.0.0.1:${port}`) =>
      rawHttp(srv.url, `GET ${path} HTTP/1.1\nHost: ${host}\n${auth}`);
    assert.equal((await get("/api/v1/targets")).status, 200);
    assert.equal((await get("/api/v1/targets", `localhost:${port}`)).status, 200);
    assert.equal((await get("/api/v1/targets", `runner.example:${port}`)).status, 200);
    const rebound = await get("/api/v1/targets", `evil.example:${port}`);
    assert.equal(rebound.status, 421);
    assert.match(rebound.text, /host_not_allowed/);
    assert.doesNotMatch(rebound.text, /runner\.example|localhost/, "a rebound page does not learn the names served");
    assert.equal((await get("/api/v1/targets", "127.0.0.1:1")).status, 421, "another port is another origin");
    assert.equal((await get("/", `evil.example:${port}`)).status, 421, "the page too");

    const preflight = await rawHttp(
      srv.url,
      `OPTIONS /api/v1/targets/demo/steer HTTP/1.1\nHost: 127.0.0.1:${port}\nOrigin: http://evil.example\n` +
        "Access-Control-Request-Method: POST",
    );
    assert.notEqual(preflight.status, 200);
    assert.doesNotMatch(preflight.text, /access-control-allow/i);

    // Ids: never a path. Raw request lines, so nothing normalises them on the way.
    for (
      const path of [
        "/api/v1/targets/demo/contract/..%2F..%2Fprompt_runner_packet.md",
        "/api/v1/targets/demo/requests/..%2Fsnapshot.json",
        "/api/v1/targets/demo/requests/..%2F..%2Fcontrol%2Fsnapshot.json",
        "/api/v1/targets/..%2Fdemo/snapshot",
        "/api/v1/targets/demo%00/snapshot",
      ]
    ) {
      const r = await get(path);
      assert.equal(r.status, 400, `${path}: ${r.text}`);
      assert.match(r.text, /invalid_id/);
    }
    for (const path of ["/api/v1/targets/demo/../../../etc/passwd", "/api/v1/targets/demo/contract/%2e%2e"]) {
      const dotted = await get(path);
      assert.equal(dotted.status, 404, `${path}: a dot segment is resolved by the URL, never by the file system`);
    }
    assert.equal((await get("/api/v1/nothing")).status, 404);

    // Bodies: the declared size, the counted size, the type, the shape.
    const big = "x".repeat(70 * 1024);
    const declared = await call(srv.url, "/api/v1/targets/demo/steer", ADA, { body: { text: big } });
    assert.deepEqual([declared.status, code(declared)], [413, "body_too_large"]);
    const chunked = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < 80; i++) c.enqueue(new TextEncoder().encode(i === 0 ? '{"text":"' : "y".repeat(1024)));
        c.close();
      },
    });
    const counted = await call(srv.url, "/api/v1/targets/demo/steer", ADA, {
      raw: chunked,
      headers: { "content-type": "application/json" },
    });
    assert.deepEqual([counted.status, code(counted)], [413, "body_too_large"]);
    const text = await call(srv.url, "/api/v1/targets/demo/steer", ADA, { raw: "text=hi" });
    assert.equal(text.status, 415);
    const notJson = await call(srv.url, "/api/v1/targets/demo/steer", ADA, {
      raw: "{nope",
      headers: { "content-type": "application/json" },
    });
    assert.deepEqual([notJson.status, code(notJson)], [400, "invalid_json"]);
  } finally {
    await live.stop();
    await srv.stop();
  }
  const reqs = [...Deno.readDirSync(storePaths(storeRootForPacket(dir)).requests)];
  assert.deepEqual(reqs, [], "no refused body left a request behind");
});

Deno.test("control serve: concurrent writers each land on the record with their own name; the write rate is per token and audited", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  const live = await startLivePlane(dir);
  const tokens = await tokensFile(tmp.path, [
    ["w1", "steer", "writer-one-token-0123456789"],
    ["w2", "steer", "writer-two-token-0123456789"],
    ["w3", "steer", "writer-three-token-012345678"],
    ["slow", "steer", "slow-writer-token-0123456789"],
  ]);
  const srv = await startServe([dir, "--tokens", tokens, "--write-rate", "10"]);
  try {
    const modes = ["compact", "verbose", "studio"];
    const writes = [1, 2, 3].flatMap((w) =>
      [0, 1, 2, 3, 4].map((i) => {
        const token = ["writer-one-token-0123456789", "writer-two-token-0123456789", "writer-three-token-012345678"][
          w - 1
        ]!;
        return call(srv.url, "/api/v1/targets/demo/view", token, {
          body: { log_mode: modes[(w + i) % 3], wait_ms: 20_000 },
        });
      })
    );
    const answers = await Promise.all(writes);
    assert.deepEqual(answers.map((a) => [a.status, a.json.outcome]), answers.map(() => [200, "applied"]));
    const requests = new Set(answers.map((a) => a.json.request));
    assert.equal(requests.size, 15, "every write is its own request");
    const log = (await logOf(dir)).filter((e) => e.command === "set_view");
    for (const w of ["w1", "w2", "w3"]) {
      assert.equal(log.filter((e) => e.author === w && e.outcome === "applied").length, 5, w);
    }
    // The rate: 10 at once, then refused (429, Retry-After), on the record.
    const slow = "slow-writer-token-0123456789";
    const burst = [];
    for (let i = 0; i < 11; i++) {
      burst.push(await call(srv.url, "/api/v1/targets/demo/view", slow, { body: { diff: "full", wait_ms: 0 } }));
    }
    assert.deepEqual(burst.slice(0, 10).map((r) => r.status < 300), Array(10).fill(true));
    assert.deepEqual([burst[10]!.status, code(burst[10]!)], [429, "rate_limited"]);
    assert.match(burst[10]!.headers.get("retry-after") ?? "", /^\d+$/);
    // Another token is not slowed by it.
    const other = await call(srv.url, "/api/v1/targets/demo/view", "writer-one-token-0123456789", {
      body: { diff: "stat", wait_ms: 0 },
    });
    assert.ok(other.status < 300);
    const refused = (await logOf(dir)).filter((e) => e.author === "slow" && e.outcome === "rejected");
    assert.equal(refused.length, 1);
    assert.match(String(refused[0]!.reason), /over its write rate \(10 a minute\)/);
  } finally {
    await live.stop();
    await srv.stop();
  }
});

Deno.test("control serve refuses at start: an invalid tokens file names the field; a non-loopback address without TLS", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  const bad = `${tmp.path}/bad.json`;
  await Deno.writeTextFile(bad, JSON.stringify({ tokens: [{ name: "ada", role: "admin", token: "x".repeat(20) }] }));
  const r = await runCli(["control", "serve", dir, "--tokens", bad]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, new RegExp(`^error: ${bad}: tokens\\[0\\]\\.role: expected read, steer or amend`));
  const short = `${tmp.path}/short.json`;
  await Deno.writeTextFile(short, JSON.stringify({ tokens: [{ name: "ada", role: "read", token: "short" }] }));
  const s = await runCli(["control", "serve", dir, "--tokens", short, "--json"]);
  assert.equal(s.code, 2);
  assert.match(JSON.parse(s.stdout).error.message, /tokens\[0\]\.token: expected a string of at least 16 characters/);
  const open = await runCli(["control", "serve", dir, "--listen", "0.0.0.0:0"]);
  assert.equal(open.code, 2);
  assert.match(open.stderr, /^error: 0\.0\.0\.0 is not a loopback address/);
  const half = await runCli(["control", "serve", dir, "--cert", `${tmp.path}/c.pem`]);
  assert.equal(half.code, 2);
  assert.match(half.stderr, /--key is needed with --cert/);
});

Deno.test("control serve warns when its tokens file is readable by other users, and not when it is not", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  const file = await tokensFile(tmp.path);
  const stderrWith = async (mode: number) => {
    await Deno.chmod(file, mode);
    const srv = await startServe([dir, "--tokens", file]);
    return (await srv.stop()).stderr;
  };
  const open = await stderrWith(0o644);
  assert.match(open, /^warning: .*tokens\.json is readable by other users \(mode 0644\).*chmod 600 it$/m);
  assert.doesNotMatch(await stderrWith(0o600), /readable by other users/);
});
