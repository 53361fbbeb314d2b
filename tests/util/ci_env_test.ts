/** CI detection (src/util/ci_env.ts): which service, its files, and colour off under CI unless forced. */
import assert from "node:assert/strict";
import { ciColourOff, ciEnvironment } from "../../src/util/ci_env.ts";

const env = (vars: Record<string, string>) => (name: string) => vars[name];

Deno.test("ciEnvironment: GitHub Actions, GitLab CI, any CI, none", () => {
  assert.deepEqual(
    ciEnvironment(env({ GITHUB_ACTIONS: "true", CI: "true", GITHUB_STEP_SUMMARY: "/s.md", GITHUB_WORKSPACE: "/w" })),
    { kind: "github", stepSummary: "/s.md", workspace: "/w" },
  );
  assert.deepEqual(ciEnvironment(env({ GITHUB_ACTIONS: "true", GITHUB_STEP_SUMMARY: "" })), {
    kind: "github",
    stepSummary: null,
    workspace: null,
  });
  assert.equal(ciEnvironment(env({ GITLAB_CI: "true", CI: "true" }))?.kind, "gitlab");
  assert.equal(ciEnvironment(env({ CI: "1" }))?.kind, "generic");
  assert.equal(ciEnvironment(env({ CI: "yes" }))?.kind, "generic");
  assert.equal(ciEnvironment(env({ CI: "false" })), null);
  assert.equal(ciEnvironment(env({ CI: "" })), null);
  assert.equal(ciEnvironment(env({})), null);
});

Deno.test("ciColourOff: off under CI, on again with FORCE_COLOR, untouched outside CI", () => {
  assert.equal(ciColourOff(env({ CI: "true" })), true);
  assert.equal(ciColourOff(env({ CI: "true", FORCE_COLOR: "0" })), true);
  assert.equal(ciColourOff(env({ CI: "true", FORCE_COLOR: "1" })), false);
  assert.equal(ciColourOff(env({ GITHUB_ACTIONS: "true", FORCE_COLOR: "" })), true);
  assert.equal(ciColourOff(env({})), false);
});
