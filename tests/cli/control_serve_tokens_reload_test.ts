/**
 * Revoking a token of `control serve` (docs/reference/http_api.md §2, "Revoking a token"): the `--tokens` file is read
 * again when it changes, so a token taken out of it (or given another value) is refused from the next request on and
 * the streams it holds open end; a role change applies at once; a file that no longer parses accepts no token until it
 * is fixed, and the server says so on stderr. Black-box: the command spawned with its own permissions.
 */
import assert from "node:assert/strict";
import { tempDir } from "../support/fs.ts";
import { waitFor, within } from "../support/wait.ts";
import { startLivePlane, writeDemoPacket } from "../control/_harness.ts";
import { call, openStream, startServe } from "./_serve_support.ts";
import { TokenFile, TokenTable } from "../../src/cli/serve/tokens.ts";

const ADA = "ada-token-0123456789abcdef";
const EVE = "eve-token-0123456789abcdef";

async function writeTokens(file: string, rows: [string, string, string][]) {
  await Deno.writeTextFile(
    file,
    JSON.stringify({ tokens: rows.map(([name, role, token]) => ({ name, role, token })) }),
  );
  await Deno.chmod(file, 0o600);
}

Deno.test("serve: a token taken out of the tokens file is refused at once and its open stream ends", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  const live = await startLivePlane(dir);
  const file = `${tmp.path}/tokens.json`;
  await writeTokens(file, [["ada", "amend", ADA], ["eve", "read", EVE]]);
  const srv = await startServe([dir, "--tokens", file]);
  try {
    assert.equal((await call(srv.url, "/api/v1/whoami", EVE)).json.name, "eve");
    const stream = await openStream(srv.url, "/api/v1/targets/demo/events?from=start", EVE);
    assert.ok(!(await stream.next()).done, "eve's stream is open");
    // Revoke eve, and make ada a reader. The stream eve holds open ends although no request comes (what it still had
    // queued may come first).
    await writeTokens(file, [["ada", "read", ADA]]);
    await waitFor(async () => (await within(stream.next(), 2_000, { done: false })).done, {
      what: "the revoked token's stream to end",
    });
    const refused = await call(srv.url, "/api/v1/whoami", EVE);
    assert.equal(refused.status, 401, JSON.stringify(refused.json));
    assert.equal((await call(srv.url, "/api/v1/whoami", ADA)).json.role, "read");
    const steer = await call(srv.url, "/api/v1/targets/demo/steer", ADA, { body: { text: "hi", wait_ms: 0 } });
    assert.equal(steer.status, 403, "a reader now");
    // A file that no longer parses accepts nobody, and says why.
    await Deno.writeTextFile(file, '{"tokens": [{"name": "ada", "role": "admin", "token": "' + ADA + '"}]}');
    assert.equal((await call(srv.url, "/api/v1/whoami", ADA)).status, 401);
    await writeTokens(file, [["ada", "amend", ADA]]);
    assert.equal((await call(srv.url, "/api/v1/whoami", ADA)).json.role, "amend");
  } finally {
    const out = await srv.stop();
    await live.stop();
    assert.match(out.stderr, /tokens\.json changed: 1 token\(s\) accepted from now on/);
    assert.match(
      out.stderr,
      /tokens\.json: tokens\[0\]\.role: expected read, steer or amend; no token is accepted until/,
    );
  }
});

Deno.test("TokenFile: read again only when the file changes; revoked names are those gone or given another token", async () => {
  await using tmp = await tempDir();
  const file = `${tmp.path}/t.json`;
  await writeTokens(file, [["ada", "amend", ADA], ["eve", "read", EVE]]);
  const said: string[] = [];
  const revoked: string[][] = [];
  const tokens = await TokenFile.open(file, (l) => said.push(l));
  tokens.onRevoked = (names) => revoked.push(names);
  const first = await tokens.current();
  assert.equal(await tokens.current(), first, "unchanged: the same table, nothing read");
  assert.equal((await first.lookup(EVE))?.name, "eve");
  await writeTokens(file, [["ada", "amend", ADA], ["eve", "read", "eve-new-token-0123456789"]]);
  const second = await tokens.current();
  assert.equal(await second.lookup(EVE), null);
  assert.deepEqual(revoked, [["eve"]]);
  // Calls made while the file is read again all wait for that read: none gets the table it replaces.
  await writeTokens(file, [["ada", "amend", ADA]]);
  const during = await Promise.all([tokens.current(), tokens.current(), tokens.current()]);
  for (const t of during) assert.equal(await t.lookup("eve-new-token-0123456789"), null);
  assert.deepEqual(revoked, [["eve"], ["eve"]]);
  await Deno.remove(file);
  assert.equal((await tokens.current()).size, 0, "gone: nobody");
  assert.deepEqual(revoked, [["eve"], ["eve"], ["ada"]]);
  assert.equal(said.length, 3);
  const empty = TokenTable.empty();
  assert.deepEqual(empty.revokedIn(await TokenTable.of([])), []);
});
