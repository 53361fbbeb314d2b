/** clauseEnv(): each distinct path resolved once — the default scope that is a repo's root costs no second realpath. */
import assert from "node:assert/strict";
import { clauseEnv } from "../../src/contract/verify.ts";
import type { VerifyContext } from "../../src/contract/types.ts";
import { tempDir } from "../support/fs.ts";

Deno.test("clauseEnv() resolves a path named twice once, with the same answers as before", async () => {
  await using dir = await tempDir();
  const real = Deno.realPathSync(dir.path);
  await Deno.mkdir(`${real}/app/sub`, { recursive: true });
  await Deno.symlink(`${real}/app`, `${real}/link`);
  const ctx = (scope: string): VerifyContext => ({
    promptId: "01",
    runId: null,
    packetDir: real,
    storeRoot: `${real}/.prompt_runner`,
    repos: { app: `${real}/link`, packet: real },
    defaultScope: scope,
    source: "preflight",
    attempt: null,
  });
  const realPathSync = Deno.realPathSync;
  const calls: string[] = [];
  Deno.realPathSync = (p) => (calls.push(String(p)), realPathSync(p));
  try {
    const atRoot = clauseEnv(ctx(`${real}/link`));
    assert.deepEqual(atRoot.repos, { app: `${real}/app`, packet: real });
    assert.equal(atRoot.scope, `${real}/app`);
    assert.equal(atRoot.scopeRepo, "app");
    assert.equal(calls.length, 2, `the scope is the app repo's root: ${calls.join(", ")}`);
    calls.length = 0;
    const below = clauseEnv(ctx(`${real}/link/sub`));
    assert.equal(below.scope, `${real}/app/sub`);
    assert.equal(below.scopeRepo, "app");
    assert.equal(calls.length, 3, "a scope of its own is resolved");
  } finally {
    Deno.realPathSync = realPathSync;
  }
});
