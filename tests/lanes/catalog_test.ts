/**
 * Lane profiles own their names (issue #12): the provider names, aliases, option bags, packet-relative paths and
 * model inference that packets use are all derived from the lane profiles, so adding a lane touches src/lanes/ only.
 * (tests/packet/fixtures_test.ts covers the packet-relative `codex_thread_opts.additional_directories`.)
 */
import assert from "node:assert/strict";
import { allLanes, laneCatalog, lanes } from "../../src/lanes/mod.ts";
import type { LaneProfile } from "../../src/lanes/mod.ts";
import {
  inferProvider,
  normalizeProvider,
  PROVIDER_ALIASES,
  PROVIDER_BAGS,
  PROVIDERS,
} from "../../src/packet/options.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

/** A lane nobody ships: if the packet lists derive from profiles, it shows up in each of them. */
const THROWAWAY: LaneProfile = {
  name: "zed",
  aliases: ["zed_cli", "zed_agent"],
  optionKeys: ["zed_opts"],
  packetRelativePaths: { zed_opts: ["include_dirs"] },
  modelPatterns: [/^zeta-/i],
  executable: "zed-agent",
  executableEnv: "PROMPT_RUNNER_ZED_CLI",
  transports: ["stream_json", "exec"],
  installHint: "none",
};

Deno.test("the packet's provider lists are exactly what the shipped lane profiles declare", () => {
  const profiles = allLanes().map((l) => l.profile);
  assert.deepEqual(PROVIDERS, ["claude", "codex", "amp", "cursor", "antigravity", "simulated"]);
  assert.deepEqual(PROVIDERS, profiles.map((p) => p.name));
  assert.deepEqual(PROVIDER_ALIASES, {
    claude_agent: "claude",
    claude_agent_sdk: "claude",
    codex_sdk: "codex",
    amp_sdk: "amp",
    cursor_agent: "cursor",
    cursor_cli_sdk: "cursor",
    antigravity_cli_sdk: "antigravity",
    simulation: "simulated",
  });
  // The order is part of the packet fingerprint's input: it must not move.
  assert.deepEqual(PROVIDER_BAGS, [
    "sdk_opts",
    "adapter_opts",
    "claude_opts",
    "codex_opts",
    "codex_thread_opts",
    "amp_opts",
    "cursor_opts",
    "antigravity_opts",
  ]);
  assert.deepEqual(PROVIDER_BAGS.slice(2), profiles.flatMap((p) => p.optionKeys));
  for (const [model, lane] of [["gpt-5", "codex"], ["GPT-4o", "codex"], ["amp-smart", "amp"], ["gpt-amp", "codex"]]) {
    assert.equal(inferProvider(model!), lane, model);
  }
  assert.equal(inferProvider("sonnet"), "claude");
  assert.equal(normalizeProvider(" Claude_Agent_SDK "), "claude");
  assert.equal(normalizeProvider("simulation"), "simulated");
  assert.equal(normalizeProvider("zed"), null);
});

Deno.test("a throwaway profile appears in every list a catalog derives, with nothing else to edit", () => {
  const profiles = [...allLanes().map((l) => l.profile), THROWAWAY];
  const c = laneCatalog(profiles);
  assert.deepEqual(c.names.at(-1), "zed");
  assert.equal(c.aliases.zed_agent, "zed");
  assert.equal(c.normalize("ZED_CLI"), "zed");
  assert.deepEqual(c.optionKeys.at(-1), "zed_opts");
  assert.deepEqual(c.packetRelativePaths.zed_opts, ["include_dirs"]);
  assert.deepEqual(c.transports.zed, ["stream_json", "exec"]);
  assert.equal(c.inferFromModel("Zeta-1"), "zed");
  assert.equal(c.inferFromModel("gpt-5"), "codex");
  assert.equal(c.inferFromModel("opus"), "claude");
  // The shipped catalog is the same function over the shipped profiles.
  const shipped = laneCatalog(allLanes().map((l) => l.profile));
  assert.deepEqual([shipped.names, shipped.aliases, shipped.optionKeys], [
    lanes().names,
    lanes().aliases,
    lanes().optionKeys,
  ]);
});

Deno.test("a lane added wrongly is refused: shared names, aliases or bags, or no single model default", () => {
  const shipped = allLanes().map((l) => l.profile);
  assert.throws(() => laneCatalog([...shipped, { ...THROWAWAY, name: "codex" }]), /the name "codex"/);
  assert.throws(() => laneCatalog([...shipped, { ...THROWAWAY, aliases: ["codex_sdk"] }]), /the alias "codex_sdk"/);
  assert.throws(() => laneCatalog([...shipped, { ...THROWAWAY, aliases: ["amp"] }]), /is a lane name/);
  assert.throws(() => laneCatalog([...shipped, { ...THROWAWAY, optionKeys: ["claude_opts"] }]), /"claude_opts"/);
  assert.throws(() => laneCatalog([...shipped, { ...THROWAWAY, defaultForModels: true }]), /exactly one lane/);
});

Deno.test("src/packet/ names no lane: every provider name, alias and bag lives in src/lanes/", async () => {
  const profiles = allLanes().map((l) => l.profile);
  const words = profiles.flatMap((p) => [p.name, ...p.aliases, ...p.optionKeys]);
  for (const file of ["src/packet/options.ts", "src/packet/types.ts"]) {
    const text = await Deno.readTextFile(`${ROOT}${file}`);
    const code = text.split("\n").filter((l) => !/^\s*(\*|\/\*\*|\/\/)/.test(l)).join("\n");
    for (const w of words) assert.ok(!code.includes(`"${w}"`), `${file} names "${w}"`);
  }
});
