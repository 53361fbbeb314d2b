/**
 * The setup and authoring commands end to end (issue #16): `init` → `profile new` → `packet new` → `prompt new` →
 * `packet lint --strict` → `run` on the simulated provider, with HOME and XDG_CONFIG_HOME in a temp dir so the
 * user's real config is never touched.
 */
import assert from "node:assert/strict";
import { runCli } from "../support/cli.ts";
import { git, initRepo, tempDir } from "../support/fs.ts";
import { readPrompts } from "../run/support.ts";

/** A temp HOME with its own config dir; PROMPT_RUNNER_CONFIG_HOME emptied so it cannot win over XDG. */
function homeEnv(dir: string): Record<string, string> {
  return { HOME: `${dir}/home`, XDG_CONFIG_HOME: `${dir}/xdg`, PROMPT_RUNNER_CONFIG_HOME: "" };
}

Deno.test("init → profile new → packet new → prompt new → lint --strict → run: a verified, committed prompt", async () => {
  await using dir = await tempDir();
  const env = homeEnv(dir.path);
  const cwd = dir.path;
  const home = `${dir.path}/xdg/prompt_runner`;
  await initRepo(`${dir.path}/app`);

  const init = await runCli(["init", "--json"], { env, cwd });
  assert.equal(init.code, 0, init.stderr);
  assert.equal(JSON.parse(init.stdout).config_home, home);

  const profile = await runCli(
    ["profile", "new", "mysim", "--provider", "simulated", "--model", "simulated-demo", "--permission", "bypass"],
    { env, cwd },
  );
  assert.equal(profile.code, 0, profile.stderr);

  const packet = await runCli(["packet", "new", "demo", "--profile", "mysim", "--repo", "app=app"], { env, cwd });
  assert.equal(packet.code, 0, packet.stderr);

  const prompt = await runCli([
    "prompt",
    "new",
    "1",
    "--packet",
    "demo",
    "--name",
    "Create hello",
    "--targets",
    "app",
    "--contains",
    "hello.txt=Hello",
    "--simulate-write",
    "hello.txt=Hello from the scaffold",
    "--mission",
    "Create hello.txt with a greeting.",
  ], { env, cwd });
  assert.equal(prompt.code, 0, prompt.stderr);
  assert.ok(await Deno.stat(`${dir.path}/demo/prompts/01_create_hello.prompt.md`));

  const lint = await runCli(["packet", "lint", "--strict", "--json", "demo"], { env, cwd });
  assert.equal(lint.code, 0, lint.stdout + lint.stderr);
  assert.equal(JSON.parse(lint.stdout).findings.length, 0);

  // The home profile is what the packet runs with: explain says so before the run.
  const explain = await runCli(["packet", "explain", "demo", "--json"], { env, cwd });
  assert.equal(explain.code, 0, explain.stderr);
  const opts = JSON.parse(explain.stdout).prompts[0].options;
  assert.deepEqual(opts.provider, { value: "simulated", source: "home profile", file: `${home}/profiles/mysim.md` });

  const run = await runCli(["run", "demo"], { env, cwd });
  assert.equal(run.code, 0, run.stdout + run.stderr);
  const entries = await readPrompts(`${dir.path}/demo`);
  assert.equal(entries["01"]?.status, "completed");
  assert.equal(await Deno.readTextFile(`${dir.path}/app/hello.txt`), "Hello from the scaffold");
  const message = await git(`${dir.path}/app`, "log", "-1", "--format=%B");
  assert.match(message, /^feat: Create hello/);
  assert.match(message, /Prompt-Runner-Prompt: 01/);
  // Nothing was written outside the temp dir's config home.
  assert.deepEqual(
    (await Array.fromAsync(Deno.readDir(`${dir.path}/xdg`))).map((e) => e.name),
    ["prompt_runner"],
  );
});

Deno.test("init is idempotent and never overwrites a user's file; it says what it kept", async () => {
  await using dir = await tempDir();
  const env = homeEnv(dir.path);
  const home = `${dir.path}/xdg/prompt_runner`;
  await Deno.mkdir(`${home}/profiles`, { recursive: true });
  await Deno.writeTextFile(`${home}/profiles/codex-default.md`, "---\nprovider: codex\nmodel: mine\n---\n");
  const first = await runCli(["init"], { env });
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /kept {5}profiles\/codex-default\.md \(exists; left unchanged\)/);
  assert.match(first.stdout, /created {2}templates\/default\.prompt\.md/);
  assert.equal(
    await Deno.readTextFile(`${home}/profiles/codex-default.md`),
    "---\nprovider: codex\nmodel: mine\n---\n",
  );
  const config = await Deno.readTextFile(`${home}/config.md`);
  await Deno.writeTextFile(`${home}/templates/default.prompt.md`, "---\n---\n# {{name}}\n\nmine\n");
  const second = await runCli(["init", "--json"], { env });
  assert.equal(second.code, 0, second.stderr);
  const doc = JSON.parse(second.stdout);
  assert.deepEqual(doc.created, []);
  assert.equal(doc.kept.length, 6);
  assert.equal(await Deno.readTextFile(`${home}/config.md`), config);
  assert.equal(await Deno.readTextFile(`${home}/templates/default.prompt.md`), "---\n---\n# {{name}}\n\nmine\n");
  // No temp file is left behind by the create-only writes.
  const leftovers = (await Array.fromAsync(Deno.readDir(`${home}/profiles`))).filter((e) => e.name.startsWith("."));
  assert.deepEqual(leftovers, []);
});

Deno.test("profile new refuses bad names, providers and values, and an existing profile, naming the field", async () => {
  await using dir = await tempDir();
  const env = homeEnv(dir.path);
  const cases: [string[], RegExp][] = [
    [
      ["profile", "new", "../evil", "--provider", "claude", "--model", "haiku"],
      /profile name "\.\.\/evil" is not valid/,
    ],
    [["profile", "new", "p1", "--provider", "gpt", "--model", "haiku"], /--provider is "gpt"; expected one of claude/],
    [["profile", "new", "p1", "--model", "haiku"], /needs --provider/],
    [
      ["profile", "new", "p1", "--provider", "claude", "--model", "haiku", "--permission", "yes"],
      /--permission: .*expected one of default, auto, bypass, plan/,
    ],
  ];
  for (const [args, message] of cases) {
    const r = await runCli(args, { env });
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, message);
  }
  assert.equal(await Deno.stat(`${dir.path}/xdg/prompt_runner/profiles`).then(() => true, () => false), false);
  const ok = await runCli(["profile", "new", "p1", "--provider", "codex_sdk", "--model", "gpt-5", "--json"], { env });
  assert.equal(ok.code, 0, ok.stderr);
  const file = JSON.parse(ok.stdout).file;
  const text = await Deno.readTextFile(file);
  const again = await runCli(["profile", "new", "p1", "--provider", "claude", "--model", "haiku"], { env });
  assert.equal(again.code, 2);
  assert.match(again.stderr, /profile "p1" already exists: .*p1\.md \(left unchanged\)/);
  assert.equal(await Deno.readTextFile(file), text);

  const list = await runCli(["profile", "list", "--json"], { env });
  assert.equal(list.code, 0, list.stderr);
  const rows = JSON.parse(list.stdout).profiles as { name: string; source: string; provider: string }[];
  assert.deepEqual(rows.map((r) => [r.name, r.source, r.provider]), [
    ["claude-default", "built-in", "claude"],
    ["codex-default", "built-in", "codex"],
    ["p1", "home", "codex"],
    ["simulated-default", "built-in", "simulated"],
  ]);
});
