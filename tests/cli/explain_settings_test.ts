/**
 * `packet explain` covers every setting a prompt runs with: each option key the packet schema lets a manifest or a
 * prompt set (src/packet/options.ts), `cli_confirmation`, the packet-wide `execution` and `agent_control`, the
 * provider option bags (merged over layers), and the prompt's own structure (sp, dependencies, contract clauses).
 */
import assert from "node:assert/strict";
import { runCli } from "../support/cli.ts";
import { initRepo, tempDir } from "../support/fs.ts";
import { MANIFEST_OPTION_KEYS, PROMPT_EXECUTION_KEYS, PROVIDER_BAGS } from "../../src/packet/options.ts";

const MANIFEST = `---
name: settings
profile: simulated-default
repos:
  app: {path: .., default: true}
execution: {completion: agent_owned, incomplete: repeat}
agent_control:
  enabled: true
  default_action: repeat
  max_iterations: 4
  completion_verify:
    files_exist: [done.txt]
claude_opts: {max_turns: 3, env: {A: "1"}}
---
`;

const PROMPT_01 = `---
sp: 3
cli_confirmation: require
claude_opts: {max_turns: 9}
execution: {completion: verifier_owned, incomplete: fail}
verify:
  files_exist: [a.txt]
  contains: [{path: a.txt, text: a}]
---
# One
`;

const PROMPT_02 = `---
depends_on: ["01"]
verify:
  files_exist: [b.txt]
---
# Two
`;

interface Explained {
  value: unknown;
  source: string;
  file: string | null;
  merged_from?: string[];
}

async function explain(dir: string): Promise<{ prompts: Record<string, unknown>[] }> {
  const env = { HOME: `${dir}/home`, XDG_CONFIG_HOME: `${dir}/xdg` };
  const r = await runCli(["packet", "explain", `${dir}/app/pk`, "--json"], { env, cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

Deno.test("packet explain shows cli_confirmation, execution, agent_control and the provider bags with their sources", async () => {
  await using tmp = await tempDir();
  await initRepo(`${tmp.path}/app`, {
    "pk/prompt_runner_packet.md": MANIFEST,
    "pk/prompts/01_one.prompt.md": PROMPT_01,
    "pk/prompts/02_two.prompt.md": PROMPT_02,
  });
  const x = await explain(tmp.path);
  const [one, two] = x.prompts as { options: Record<string, Explained>; [k: string]: unknown }[];
  assert.deepEqual(one!.options.cli_confirmation, {
    value: "require",
    source: "prompt",
    file: "prompts/01_one.prompt.md",
  });
  // The built-in simulated profile sets cli_confirmation: off.
  assert.deepEqual(two!.options.cli_confirmation, { value: "off", source: "built-in profile", file: null });
  // execution and agent_control are packet-wide: a prompt's own `execution` is not what runs (lint warns about it).
  for (const p of [one!, two!]) {
    assert.deepEqual(p.options.execution, {
      value: { completion: "agent_owned", incomplete: "repeat" },
      source: "manifest",
      file: "prompt_runner_packet.md",
    });
    assert.equal(p.options.agent_control!.source, "manifest");
    assert.deepEqual(
      (p.options.agent_control!.value as Record<string, unknown>).max_iterations,
      4,
    );
  }
  // A provider bag merges over the layers, each layer listed.
  assert.deepEqual(one!.options.claude_opts!.value, { max_turns: 9, env: { A: "1" } });
  assert.deepEqual(one!.options.claude_opts!.merged_from, ["prompt", "manifest"]);
  assert.deepEqual(two!.options.claude_opts!.merged_from, ["manifest"]);
  assert.equal(one!.options.codex_opts, undefined, "a bag no layer sets is not listed");
  // The prompt's structure.
  assert.equal(one!.sp, 3);
  assert.deepEqual(two!.depends_on, ["01"]);
  assert.deepEqual(one!.verify, { files_exist: 1, contains: 1 });

  const human = await runCli(["packet", "explain", `${tmp.path}/app/pk`], {
    env: { HOME: `${tmp.path}/home`, XDG_CONFIG_HOME: `${tmp.path}/xdg` },
    cwd: tmp.path,
  });
  assert.match(human.stdout, /cli_confirmation +require +← prompt prompts\/01_one\.prompt\.md/);
  assert.match(human.stdout, /claude_opts +\{"max_turns":9,"env":\{"A":"1"\}\} +← prompt > manifest/);
  assert.match(human.stdout, /phase 1 · 1 SP · depends on 01 · commit /);
  assert.match(human.stdout, /contract {2}files_exist ×1, contains ×1/);
});

Deno.test("packet explain lists every option key the packet schema lets a manifest or a prompt set", async () => {
  await using tmp = await tempDir();
  await initRepo(`${tmp.path}/app`, {
    "pk/prompt_runner_packet.md":
      "---\nname: plain\nprofile: simulated-default\nrepos:\n  app: {path: .., default: true}\n---\n",
    "pk/prompts/01_one.prompt.md": "---\nverify:\n  files_exist: [a.txt]\n---\n# One\n",
  });
  const options = ((await explain(tmp.path)).prompts[0] as { options: Record<string, unknown> }).options;
  const bags = new Set(PROVIDER_BAGS);
  const schema = [...new Set([...PROMPT_EXECUTION_KEYS, ...MANIFEST_OPTION_KEYS])].filter((k) => !bags.has(k));
  const missing = schema.filter((k) => !(k in options));
  assert.deepEqual(missing, [], `keys a packet can set that explain does not show: ${missing.join(", ")}`);
});
