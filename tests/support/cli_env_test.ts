/** The CLI helper runs every child without the CI variables, so output is the same locally and in CI. */
import assert from "node:assert/strict";
import { CI_VARIABLES, cliCommandOptions } from "./cli.ts";

Deno.test("cliCommandOptions() clears the environment and passes it on without CI, GITHUB_ACTIONS and GITLAB_CI", () => {
  const saved = CI_VARIABLES.map((n) => [n, Deno.env.get(n)] as const);
  try {
    for (const n of CI_VARIABLES) Deno.env.set(n, "true");
    const o = cliCommandOptions(["list"], { env: { EXTRA: "1" } });
    assert.equal(o.clearEnv, true, "the child must not inherit the parent's environment wholesale");
    for (const n of CI_VARIABLES) assert.equal(o.env?.[n], undefined, `${n} reaches the child`);
    assert.equal(o.env?.NO_COLOR, "1");
    assert.equal(o.env?.EXTRA, "1");
    assert.equal(o.env?.PATH, Deno.env.get("PATH"), "the rest of the environment is kept");
  } finally {
    for (const [n, v] of saved) v === undefined ? Deno.env.delete(n) : Deno.env.set(n, v);
  }
});
