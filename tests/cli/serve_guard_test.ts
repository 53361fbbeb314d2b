/** Unit tests of `control serve`'s tokens and guards (docs/reference/http_api.md §2–§3). */
import assert from "node:assert/strict";
import { parseTokensFile, roleAllows, TokenTable } from "../../src/cli/serve/tokens.ts";
import {
  allowedHosts,
  checkHost,
  HttpError,
  pathId,
  PROMPT_ID,
  REQUEST_ID,
  WriteLimiter,
} from "../../src/cli/serve/guard.ts";
import { parseListen } from "../../src/cli/control/serve.ts";
import { eventsCursor } from "../../src/cli/serve/sse.ts";

const tok = (rows: unknown) => JSON.stringify({ tokens: rows });

Deno.test("tokens file: each problem names the file, the field and what was expected", () => {
  const cases: [string, RegExp][] = [
    ["{", /^t\.json: \(document\): expected a JSON object/],
    [JSON.stringify({ tokens: {} }), /^t\.json: tokens: expected an array/],
    [tok([]), /^t\.json: tokens: expected at least one token/],
    [tok([{ name: "a", role: "read", token: "x".repeat(16), extra: 1 }]), /tokens\[0\]\.extra: expected no such key/],
    [tok([{ name: "a b", role: "read", token: "x".repeat(16) }]), /tokens\[0\]\.name: expected 1–64 characters/],
    [tok([{ name: "a", role: "root", token: "x".repeat(16) }]), /tokens\[0\]\.role: expected read, steer or amend/],
    [tok([{ name: "a", role: "read", token: "x".repeat(15) }]), /tokens\[0\]\.token: expected a string of at least 16/],
    [
      tok([{ name: "a", role: "read", token: "x".repeat(16) }, { name: "a", role: "read", token: "y".repeat(16) }]),
      /tokens\[1\]\.name: expected a name not used before/,
    ],
    [
      tok([{ name: "a", role: "read", token: "x".repeat(16) }, { name: "b", role: "read", token: "x".repeat(16) }]),
      /tokens\[1\]\.token: expected a token not used before/,
    ],
  ];
  for (const [text, want] of cases) {
    assert.throws(() => parseTokensFile("t.json", text), (e: Error & { code?: string }) => {
      assert.equal(e.code, "tokens_file_invalid");
      assert.match(e.message, want);
      return true;
    });
  }
});

Deno.test("tokens: lookup by digest finds the one token; roles grant upward only", async () => {
  const pairs = parseTokensFile(
    "t.json",
    tok([
      { name: "ada", role: "amend", token: "a".repeat(20) },
      { name: "eve", role: "read", token: "e".repeat(20) },
    ]),
  );
  const table = await TokenTable.of(pairs);
  assert.equal(table.size, 2);
  assert.deepEqual(await table.lookup("e".repeat(20)), { name: "eve", role: "read" });
  assert.equal(await table.lookup("e".repeat(19)), null);
  assert.equal(await table.lookup(""), null);
  assert.ok(roleAllows("amend", "steer") && roleAllows("steer", "steer") && roleAllows("read", "read"));
  assert.ok(!roleAllows("read", "steer") && !roleAllows("steer", "amend"));
});

Deno.test("write limiter: a burst, then one per interval, per name", () => {
  let now = 0;
  const lim = new WriteLimiter(6, 2, () => now); // one every 10 s, two at once
  assert.equal(lim.take("a"), null);
  assert.equal(lim.take("a"), null);
  assert.equal(lim.take("a"), 10);
  assert.equal(lim.take("b"), null, "another name has its own bucket");
  now = 10_000;
  assert.equal(lim.take("a"), null);
  assert.equal(lim.take("a"), 10);
});

Deno.test("Host allow-list: the listen address and, on loopback, its names, each with the port; --allow-host names", () => {
  const a = allowedHosts("127.0.0.1", 8080, ["box.lan", "other:9"]);
  assert.deepEqual([...a].sort(), ["127.0.0.1:8080", "[::1]:8080", "box.lan:8080", "localhost:8080", "other:9"]);
  const req = (host: string) => new Request(`http://${host}/`, { headers: { host } });
  checkHost(req("localhost:8080"), a);
  assert.throws(() => checkHost(req("evil.example:8080"), a), (e) => e instanceof HttpError && e.status === 421);
  const remote = allowedHosts("192.0.2.7", 443, []);
  assert.deepEqual([...remote], ["192.0.2.7:443"]);
  // A Host without a port has the scheme's default.
  checkHost(new Request("https://192.0.2.7/", { headers: { host: "192.0.2.7" } }), remote);
});

Deno.test("ids in paths: decoded, checked against their shape, never holding '..' or a separator", () => {
  assert.equal(pathId("07", PROMPT_ID, "prompt id"), "07");
  for (const bad of ["..", "%2e%2e", "..%2F01", "0%2F1", "1%00", "%zz", ""]) {
    assert.throws(() => pathId(bad, PROMPT_ID, "prompt id"), (e) => e instanceof HttpError && e.code === "invalid_id");
  }
  const name = "20261201T221240.148881Z-30445-000002-8257.json";
  assert.equal(pathId(name, REQUEST_ID, "request id"), name);
  assert.throws(() => pathId(`..%2F${name}`, REQUEST_ID, "request id"));
});

Deno.test("--listen forms and the events cursor (a ?from= that is no cursor is refused, not read as start)", () => {
  assert.deepEqual(parseListen(undefined), { hostname: "127.0.0.1", port: 0 });
  assert.deepEqual(parseListen("0.0.0.0:8443"), { hostname: "0.0.0.0", port: 8443 });
  assert.deepEqual(parseListen(":9000"), { hostname: "127.0.0.1", port: 9000 });
  assert.deepEqual(parseListen("[::1]:7000"), { hostname: "::1", port: 7000 });
  assert.throws(() => parseListen("host:99999"), /--listen does not take/);
  assert.equal(eventsCursor("41", "start"), 42, "Last-Event-ID wins and resumes after it");
  assert.equal(eventsCursor(null, "current"), "current");
  assert.equal(eventsCursor(null, "17"), 17);
  assert.equal(eventsCursor(null, null), "start");
  for (const from of ["garbage", "-5", "1e3", "01:2", "9".repeat(16)]) {
    assert.throws(() => eventsCursor(null, from), /^Error: from: expected start, current or a seq/, from);
    assert.throws(() => eventsCursor("41", from), /from: expected/, `${from}: refused even when Last-Event-ID is sent`);
  }
});
