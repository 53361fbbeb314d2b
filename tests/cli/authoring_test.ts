/**
 * `packet new`, `prompt new`, `template list` and `packet explain` as a user runs them: what they refuse, where
 * templates and values come from, and that what they write lints clean (issue #16, item 3).
 */
import assert from "node:assert/strict";
import { runCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";

function homeEnv(dir: string): Record<string, string> {
  return { HOME: `${dir}/home`, XDG_CONFIG_HOME: `${dir}/xdg`, PROMPT_RUNNER_CONFIG_HOME: "" };
}

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

Deno.test("packet new refuses an unknown profile, provider or default repo, and an existing packet", async () => {
  await using dir = await tempDir();
  const env = homeEnv(dir.path);
  const cwd = dir.path;
  const bad: [string[], RegExp][] = [
    [["packet", "new", "p", "--profile", "nope"], /--profile: unknown profile "nope"; known profiles: claude-default/],
    [["packet", "new", "p", "--provider", "gpt"], /--provider is "gpt"; expected one of/],
    [["packet", "new", "p", "--repo", "a=x", "--default-repo", "b"], /--default-repo "b" is not a --repo; given: a/],
    [["packet", "new", "p", "--repo", "noequals"], /--repo "noequals": expected NAME=PATH/],
    [
      ["packet", "new", "p", "--prompt-template", "nope"],
      /unknown template "nope"; known templates: default, from-adr/,
    ],
  ];
  for (const [args, message] of bad) {
    const r = await runCli(args, { env, cwd });
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, message);
  }
  assert.equal(await exists(`${dir.path}/p`), false, "a refused packet new writes nothing");

  const ok = await runCli(["packet", "new", "p", "--profile", "simulated-default", "--json"], { env, cwd });
  assert.equal(ok.code, 0, ok.stderr);
  const manifest = await Deno.readTextFile(`${dir.path}/p/prompt_runner_packet.md`);
  const again = await runCli(["packet", "new", "p", "--provider", "claude"], { env, cwd });
  assert.equal(again.code, 2);
  assert.match(again.stderr, /already holds a packet/);
  assert.equal(await Deno.readTextFile(`${dir.path}/p/prompt_runner_packet.md`), manifest);
});

Deno.test("prompt new: needs a content check, refuses clashes and unknown repos, removes what would not lint", async () => {
  await using dir = await tempDir();
  const env = homeEnv(dir.path);
  const cwd = dir.path;
  assert.equal(
    (await runCli(["packet", "new", "p", "--provider", "simulated", "--repo", "app=app"], { env, cwd })).code,
    0,
  );
  const refusals: [string[], number, RegExp][] = [
    [["prompt", "new", "1", "--packet", "p"], 2, /needs a contract that checks content/],
    [["prompt", "new", "1", "--packet", "p", "--file", "a.txt"], 2, /--file alone only checks that a file exists/],
    [["prompt", "new", "x", "--packet", "p", "--contains", "a=b"], 2, /prompt id "x" is not a number/],
    [["prompt", "new", "1", "--packet", "p", "--contains", "a"], 2, /--contains "a": expected PATH=TEXT/],
    [
      ["prompt", "new", "1", "--packet", "p", "--contains", "a=b", "--targets", "web"],
      2,
      /"web" is not a repo of the packet; known: app/,
    ],
    [["prompt", "new", "1", "--contains", "a=b"], 2, /needs --packet DIR/],
  ];
  for (const [args, code, message] of refusals) {
    const r = await runCli(args, { env, cwd });
    assert.equal(r.code, code, `${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, message);
  }
  assert.deepEqual(await Array.fromAsync(Deno.readDir(`${dir.path}/p/prompts`)), []);

  const first = await runCli(["prompt", "new", "1", "--packet", "p", "--command", "true", "--name", "One"], {
    env,
    cwd,
  });
  assert.equal(first.code, 0, first.stderr);
  const text = await Deno.readTextFile(`${dir.path}/p/prompts/01_one.prompt.md`);
  assert.match(text, /commands:\n\s+- exec: "true"\n\s+args: \[\]\n\s+timeout_ms: 300000/);
  const clash = await runCli(["prompt", "new", "01", "--packet", "p", "--contains", "a=b"], { env, cwd });
  assert.equal(clash.code, 2);
  assert.match(clash.stderr, /prompt 01 already exists: prompts\/01_one\.prompt\.md/);

  // A template whose verify: names an unknown clause: the rendered file fails lint, so it is removed (exit 3).
  await Deno.mkdir(`${dir.path}/p/templates`);
  await Deno.writeTextFile(`${dir.path}/p/templates/broken.prompt.md`, "---\nverify:\n  nope: [x]\n---\n# {{name}}\n");
  const broken = await runCli(
    ["prompt", "new", "2", "--packet", "p", "--template", "broken", "--contains", "a=b", "--name", "Two"],
    { env, cwd },
  );
  assert.equal(broken.code, 3, broken.stderr);
  assert.match(broken.stderr, /does not pass packet lint --strict, so it was removed: .*"nope" is not a verify clause/);
  assert.equal(await exists(`${dir.path}/p/prompts/02_two.prompt.md`), false);

  // A placeholder the renderer does not know is refused before anything is written.
  await Deno.writeTextFile(`${dir.path}/p/templates/typo.prompt.md`, "---\n---\n# {{nmae}}\n");
  const typo = await runCli(["prompt", "new", "2", "--packet", "p", "--template", "typo", "--contains", "a=b"], {
    env,
    cwd,
  });
  assert.equal(typo.code, 2);
  assert.match(typo.stderr, /template .*typo\.prompt\.md uses \{\{nmae\}\}; expected one of \{\{id\}\}/);

  const lint = await runCli(["packet", "lint", "--strict", "p"], { env, cwd });
  assert.equal(lint.code, 0, lint.stdout);
});

Deno.test("templates: packet-local over home over built-in; --template over manifest over profile", async () => {
  await using dir = await tempDir();
  const env = homeEnv(dir.path);
  const cwd = dir.path;
  assert.equal((await runCli(["init"], { env, cwd })).code, 0);
  const home = `${dir.path}/xdg/prompt_runner/templates`;
  await Deno.writeTextFile(`${home}/from-adr.prompt.md`, "---\nphase: 2\n---\n# {{name}} (home)\n\n{{mission}}\n");
  await Deno.writeTextFile(`${home}/mine.prompt.md`, "---\n---\n# {{name}} (mine, home)\n");
  assert.equal((await runCli(["packet", "new", "p", "--prompt-template", "mine"], { env, cwd })).code, 0);
  await Deno.mkdir(`${dir.path}/p/templates`);
  await Deno.writeTextFile(`${dir.path}/p/templates/mine.prompt.md`, "---\n---\n# {{name}} (mine, packet)\n");

  const list = await runCli(["template", "list", "p", "--json"], { env, cwd });
  assert.equal(list.code, 0, list.stderr);
  const rows = JSON.parse(list.stdout).templates as { name: string; source: string; overrides: string[] }[];
  assert.deepEqual(rows.map((r) => [r.name, r.source, r.overrides]), [
    ["default", "home", ["built-in"]],
    ["from-adr", "home", ["built-in"]],
    ["mine", "packet", ["home"]],
  ]);
  const human = await runCli(["template", "list"], { env, cwd });
  assert.match(human.stdout, /mine {6}home {6}\S+mine\.prompt\.md/);

  // The manifest's prompt_template is the default; --template wins over it.
  const viaManifest = await runCli(["prompt", "new", "1", "--packet", "p", "--contains", "a=b", "--name", "A"], {
    env,
    cwd,
  });
  assert.equal(viaManifest.code, 0, viaManifest.stderr);
  assert.match(await Deno.readTextFile(`${dir.path}/p/prompts/01_a.prompt.md`), /# A \(mine, packet\)/);
  const viaFlag = await runCli(
    ["prompt", "new", "2", "--packet", "p", "--contains", "a=b", "--name", "B", "--template", "from-adr"],
    { env, cwd },
  );
  assert.equal(viaFlag.code, 0, viaFlag.stderr);
  const b = await Deno.readTextFile(`${dir.path}/p/prompts/02_b.prompt.md`);
  assert.match(b, /# B \(home\)/);
  assert.match(b, /^phase: 1$/m, "a generated key wins over the template's");

  // Without --template and without the manifest's prompt_template, the profile's prompt_template is used.
  const tp = ["profile", "new", "tp", "--provider", "simulated", "--model", "m", "--prompt-template", "from-adr"];
  assert.equal((await runCli(tp, { env, cwd })).code, 0);
  assert.equal((await runCli(["packet", "new", "q", "--profile", "tp"], { env, cwd })).code, 0);
  const viaProfile = await runCli(["prompt", "new", "1", "--packet", "q", "--contains", "a=b", "--name", "C"], {
    env,
    cwd,
  });
  assert.equal(viaProfile.code, 0, viaProfile.stderr);
  assert.match(await Deno.readTextFile(`${dir.path}/q/prompts/01_c.prompt.md`), /# C \(home\)/);
});

Deno.test("packet explain names the layer of every value: built-in and home profile, manifest, prompt, flag, env", async () => {
  await using dir = await tempDir();
  const env = homeEnv(dir.path);
  const cwd = dir.path;
  const pkt = `${dir.path}/p`;
  await Deno.mkdir(`${pkt}/prompts`, { recursive: true });
  await Deno.writeTextFile(
    `${pkt}/prompt_runner_packet.md`,
    "---\nprofile: simulated-default\nlog_mode: verbose\nrecovery:\n  retry: {max_attempts: 5}\n---\n",
  );
  await Deno.writeTextFile(
    `${pkt}/prompts/01_a.prompt.md`,
    "---\nid: 1\nreasoning_effort: high\nverify:\n  contains: [{path: a, text: b}]\n---\n# A\n",
  );
  const x = async (args: string[], extra: Record<string, string> = {}) => {
    const r = await runCli(["packet", "explain", pkt, "--json", ...args], { env: { ...env, ...extra }, cwd });
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout);
  };
  const builtin = await x([]);
  assert.deepEqual(builtin.profile, { name: "simulated-default", source: "built-in", file: null });
  const o = builtin.prompts[0].options;
  assert.deepEqual(o.provider, { value: "simulated", source: "built-in profile", file: null });
  assert.deepEqual(o.log_mode, { value: "verbose", source: "manifest", file: "prompt_runner_packet.md" });
  assert.deepEqual(o.reasoning_effort, { value: "high", source: "prompt", file: "prompts/01_a.prompt.md" });
  assert.deepEqual(o.diff, { value: "stat", source: "default", file: null });
  assert.deepEqual(o.recovery.merged_from, ["manifest", "built-in profile"]);
  assert.equal(o.recovery.value.retry.max_attempts, 5);

  const flagged = (await x(["--model", "m2", "--reasoning-effort", "low"])).prompts[0].options;
  assert.deepEqual(flagged.model, { value: "m2", source: "flag", file: null });
  assert.deepEqual(flagged.reasoning_effort, { value: "low", source: "flag", file: null });

  // A home file of the same name replaces the built-in profile; the environment sits under every profile.
  assert.equal(
    (await runCli(["profile", "new", "simulated-default", "--provider", "simulated", "--model", "home-model"], { env }))
      .code,
    0,
  );
  const homeX = await x([], { PROMPT_RUNNER_MODEL: "env-model" });
  const file = `${dir.path}/xdg/prompt_runner/profiles/simulated-default.md`;
  assert.deepEqual(homeX.profile, { name: "simulated-default", source: "home", file });
  assert.deepEqual(homeX.prompts[0].options.model, { value: "home-model", source: "home profile", file });
  await Deno.writeTextFile(`${pkt}/prompt_runner_packet.md`, "---\nname: p\n---\n");
  const envX = (await x([], { PROMPT_RUNNER_MODEL: "env-model" })).prompts[0].options;
  assert.deepEqual(envX.model, { value: "env-model", source: "environment", file: null });
  assert.deepEqual(envX.provider, { value: "claude", source: "inferred from model", file: null });

  const human = await runCli(["packet", "explain", pkt], { env, cwd });
  assert.equal(human.code, 0, human.stderr);
  assert.match(human.stdout, /reasoning_effort +high +← prompt prompts\/01_a\.prompt\.md/);
});
