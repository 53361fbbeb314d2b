import assert from "node:assert/strict";
import { allLanes, laneFor } from "../../src/lanes/mod.ts";
import type { ProviderName } from "../../src/packet/types.ts";
import type { SessionOptions } from "../../src/lanes/mod.ts";

const EMPTY_OPTIONS: SessionOptions = {
  provider: "claude",
  model: "",
  reasoning_effort: null,
  permission_mode: null,
  allowed_tools: null,
  timeout_ms: 60_000,
  system_prompt: null,
  append_system_prompt: null,
  max_turns: null,
  provider_opts: {},
};

Deno.test("laneFor() returns the lane of every provider name, with matching profile names", () => {
  const names: ProviderName[] = ["claude", "codex", "amp", "cursor", "antigravity", "simulated"];
  for (const n of names) assert.equal(laneFor(n).profile.name, n);
  assert.equal(allLanes().length, names.length);
});

Deno.test("every lane defaults to the exec transport; CLI lanes name an executable, env override and install hint", () => {
  for (const lane of allLanes()) {
    assert.equal(lane.profile.transports[0], "exec", lane.profile.name);
    assert.equal(lane.transportFor(EMPTY_OPTIONS, null), "exec", lane.profile.name);
    if (lane.profile.name === "simulated") continue;
    assert.ok(lane.profile.executable, lane.profile.name);
    assert.equal(lane.profile.executableEnv, `PROMPT_RUNNER_${lane.profile.name.toUpperCase()}_CLI`);
    assert.ok(lane.profile.installHint.length > 0);
  }
  assert.equal(laneFor("claude").profile.installHint, "npm install -g @anthropic-ai/claude-code");
  assert.equal(laneFor("codex").profile.installHint, "npm install -g @openai/codex");
  assert.equal(laneFor("cursor").profile.executable, "agent");
  assert.equal(laneFor("antigravity").profile.executable, "agy");
});
