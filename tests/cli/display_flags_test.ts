/** The status line or the heartbeat (src/cli/display_flags.ts): under CI no status line is drawn, even on a terminal. */
import assert from "node:assert/strict";
import { displayRequest } from "../../src/cli/display_flags.ts";

const terminal = { write: () => {}, isTerminal: true };
const ctx = { flags: {}, json: false, stdout: terminal };
const env = (vars: Record<string, string>) => (name: string) => vars[name];

Deno.test("displayRequest: a terminal draws the status line, but not under CI, GitHub Actions or GitLab CI", () => {
  assert.deepEqual(displayRequest(ctx, env({})), { statusLine: true, heartbeatMs: 30_000 });
  for (const name of ["CI", "GITHUB_ACTIONS", "GITLAB_CI"]) {
    const r = displayRequest(ctx, env({ [name]: "true" }));
    assert.equal(r.statusLine, false, name);
    assert.equal(r.heartbeatMs, 30_000, `${name}: the heartbeat keeps a silent provider turn visible`);
  }
  assert.equal(displayRequest(ctx, env({ CI: "false" })).statusLine, true);
  assert.equal(displayRequest(ctx, env({ CI: "true", PROMPT_RUNNER_HEARTBEAT: "5m" })).heartbeatMs, 300_000);
});
