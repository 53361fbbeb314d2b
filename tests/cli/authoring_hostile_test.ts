/**
 * The authoring commands as an attacker (or a slip of the keyboard) uses them: path-like and multi-line names, values
 * with control characters, a destination that is already a link. Each is refused naming the flag (exit 2) and writes
 * nothing, or — for a planted link — never writes through it.
 */
import assert from "node:assert/strict";
import { parseJsonOut, runCli } from "../support/cli.ts";
import { initRepo, tempDir } from "../support/fs.ts";

function homeEnv(dir: string): Record<string, string> {
  return { HOME: `${dir}/home`, XDG_CONFIG_HOME: `${dir}/xdg`, PROMPT_RUNNER_CONFIG_HOME: "" };
}

const exists = (p: string) => Deno.lstat(p).then(() => true, () => false);

Deno.test("profile new refuses path-like names and multi-line values, writing nothing", async () => {
  await using dir = await tempDir();
  const env = homeEnv(dir.path);
  const profiles = `${dir.path}/xdg/prompt_runner/profiles`;
  for (const name of ["../x", "a/b", "a\nb", "x".repeat(300)]) {
    const r = await runCli(["profile", "new", name, "--provider", "simulated", "--model", "m"], { env });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /profile name .* is not valid; expected letters, digits/);
  }
  const r = await runCli(
    ["profile", "new", "p", "--provider", "simulated", "--model", "m\nprovider: codex", "--json"],
    {
      env,
    },
  );
  assert.equal(r.code, 2, r.stderr);
  assert.match(
    (parseJsonOut(r).error as { message: string }).message,
    /^--model is "m\\nprovider: codex"; expected one line of text without control characters$/,
  );
  const tools = await runCli(["profile", "new", "p", "--provider", "simulated", "--model", "m", "--tools", "Read\t"], {
    env,
  });
  assert.equal(tools.code, 2, tools.stderr);
  assert.match(tools.stderr, /--tools is "Read\\t"; expected one line/);
  assert.deepEqual(await Array.fromAsync(Deno.readDir(profiles)).catch(() => []), []);
});

Deno.test("packet new refuses a multi-line packet name or repo path; prompt new a multi-line name or a path-like id", async () => {
  await using dir = await tempDir();
  const env = homeEnv(dir.path);
  await initRepo(`${dir.path}/app`);
  const multi = await runCli(["packet", "new", "p\nq", "--profile", "simulated-default"], { env, cwd: dir.path });
  assert.equal(multi.code, 2, multi.stderr);
  assert.match(multi.stderr, /the packet name \(the base name of DIR\) is "p\\nq"; expected one line/);
  assert.equal(await exists(`${dir.path}/p\nq`), false, "nothing was created");
  const repo = await runCli(["packet", "new", "pk", "--repo", "app=app\nevil: 1"], { env, cwd: dir.path });
  assert.equal(repo.code, 2, repo.stderr);
  assert.match(repo.stderr, /--repo is "app=app\\nevil: 1"; expected one line/);
  assert.equal(await exists(`${dir.path}/pk`), false);

  const made = await runCli(["packet", "new", "demo", "--profile", "simulated-default", "--repo", "app=app"], {
    env,
    cwd: dir.path,
  });
  assert.equal(made.code, 0, made.stderr);
  const prompt = (extra: string[]) =>
    runCli(["prompt", "new", ...extra, "--packet", "demo", "--targets", "app", "--contains", "a=b"], {
      env,
      cwd: dir.path,
    });
  const name = await prompt(["1", "--name", "x\n---\nverify: {}"]);
  assert.equal(name.code, 2, name.stderr);
  assert.match(name.stderr, /--name is "x\\n---\\nverify: \{\}"; expected one line/);
  const id = await prompt(["../3"]);
  assert.equal(id.code, 2, id.stderr);
  assert.match(id.stderr, /prompt id "\.\.\/3" is not a number/);
  // A path-like name only shapes the file name's slug: the file stays in prompts/.
  const slug = await prompt(["4", "--name", "../../etc/x"]);
  assert.equal(slug.code, 0, slug.stderr);
  assert.deepEqual((await Array.fromAsync(Deno.readDir(`${dir.path}/demo/prompts`))).map((e) => e.name), [
    "04_etc_x.prompt.md",
  ]);
});

Deno.test("prompt new never writes through a link planted at the new prompt's path", async () => {
  await using dir = await tempDir();
  const env = homeEnv(dir.path);
  await initRepo(`${dir.path}/app`);
  const made = await runCli(["packet", "new", "demo", "--profile", "simulated-default", "--repo", "app=app"], {
    env,
    cwd: dir.path,
  });
  assert.equal(made.code, 0, made.stderr);
  const victim = `${dir.path}/victim.txt`;
  await Deno.symlink(victim, `${dir.path}/demo/prompts/01_hello.prompt.md`);
  const r = await runCli(
    ["prompt", "new", "1", "--packet", "demo", "--name", "hello", "--targets", "app", "--contains", "a=b"],
    { env, cwd: dir.path },
  );
  assert.notEqual(r.code, 0, r.stdout);
  assert.equal(await exists(victim), false, "the link's target was not created");
  assert.ok((await Deno.lstat(`${dir.path}/demo/prompts/01_hello.prompt.md`)).isSymlink);
});

Deno.test("an error message never carries a raw control character to the terminal (ESC, BEL, CR are shown escaped)", async () => {
  await using dir = await tempDir();
  const env = homeEnv(dir.path);
  const r = await runCli(["prompt", "new", "\x1b]0;owned\x07\r1", "--packet", dir.path], { env, cwd: dir.path });
  assert.equal(r.code, 2, r.stderr);
  // deno-lint-ignore no-control-regex
  assert.equal(/[\x00-\x08\x0b-\x1f\x7f]/.test(r.stderr), false, JSON.stringify(r.stderr));
  assert.match(r.stderr, /prompt id "\\x1b\]0;owned\\x07\\x0d1" is not a number/);
});

Deno.test("prompt new never copies a file outside the packet into a prompt through the packet's templates or manifest", async () => {
  await using dir = await tempDir();
  const env = homeEnv(dir.path);
  await initRepo(`${dir.path}/app`);
  const made = await runCli(["packet", "new", "demo", "--profile", "simulated-default", "--repo", "app=app"], {
    env,
    cwd: dir.path,
  });
  assert.equal(made.code, 0, made.stderr);
  const secret = `${dir.path}/secret.md`;
  await Deno.writeTextFile(secret, "SECRET-KEY-MATERIAL\n");
  await Deno.mkdir(`${dir.path}/demo/templates`);
  // A packet template that is a link to a file outside the packet.
  await Deno.symlink(secret, `${dir.path}/demo/templates/evil.prompt.md`);
  const prompt = (extra: string[]) =>
    runCli(["prompt", "new", "1", "--packet", "demo", "--targets", "app", "--contains", "a=b", ...extra], {
      env,
      cwd: dir.path,
    });
  const linked = await prompt(["--template", "evil"]);
  assert.equal(linked.code, 3, linked.stderr);
  assert.match(
    linked.stderr,
    /templates\/evil\.prompt\.md resolves to .*secret\.md \(through the symlink .*evil\.prompt\.md -> .*secret\.md\), outside the packet .*demo; expected a file inside/,
  );
  // A FIFO is refused before it is read (reading it would wait forever).
  assert.equal(
    (await new Deno.Command("mkfifo", { args: [`${dir.path}/demo/templates/fifo.prompt.md`] }).output()).code,
    0,
  );
  const fifo = await prompt(["--template", "fifo"]);
  assert.equal(fifo.code, 3, fifo.stderr);
  assert.match(fifo.stderr, /fifo\.prompt\.md is not a regular file; expected a \.prompt\.md file/);
  // The manifest's prompt_template naming a path outside the packet.
  const manifest = `${dir.path}/demo/prompt_runner_packet.md`;
  await Deno.writeTextFile(
    manifest,
    (await Deno.readTextFile(manifest)).replace("---\n", `---\nprompt_template: ${secret}\n`),
  );
  const named = await prompt([]);
  assert.equal(named.code, 3, named.stderr);
  assert.match(named.stderr, /secret\.md resolves to .*, outside the packet/);
  assert.deepEqual(await Array.fromAsync(Deno.readDir(`${dir.path}/demo/prompts`)), [], "no prompt was written");
  // The person's own --template path is theirs to name.
  const own = await prompt(["--template", secret]);
  assert.equal(own.code, 0, own.stderr);
});

Deno.test("prompt new refuses a prompt_dir outside the packet (a ../ path or a linked prompts/) and writes nothing there", async () => {
  await using dir = await tempDir();
  const env = homeEnv(dir.path);
  const made = await runCli(["packet", "new", "demo", "--profile", "simulated-default"], { env, cwd: dir.path });
  assert.equal(made.code, 0, made.stderr);
  const manifest = `${dir.path}/demo/prompt_runner_packet.md`;
  const original = await Deno.readTextFile(manifest);
  await Deno.mkdir(`${dir.path}/outside`);
  const newPrompt = () =>
    runCli(["prompt", "new", "1", "--packet", "demo", "--contains", "a=b", "--json"], { env, cwd: dir.path });

  for (const promptDir of ["../outside", "../outside/new"]) {
    await Deno.writeTextFile(manifest, original.replace("name: demo\n", `name: demo\nprompt_dir: ${promptDir}\n`));
    const r = await newPrompt();
    assert.equal(r.code, 3, r.stdout + r.stderr);
    const message = (parseJsonOut(r).error as { message: string }).message;
    assert.ok(message.startsWith(`${dir.path}/demo/prompt_runner_packet.md: prompt_dir: ${promptDir}: `), message);
    assert.match(message, /outside the packet .*; expected a directory inside the packet/);
  }
  await Deno.writeTextFile(manifest, original);
  await Deno.remove(`${dir.path}/demo/prompts`, { recursive: true });
  await Deno.symlink("../outside", `${dir.path}/demo/prompts`);
  const linked = await newPrompt();
  assert.equal(linked.code, 3, linked.stdout + linked.stderr);
  assert.match(
    (parseJsonOut(linked).error as { message: string }).message,
    /prompt_dir: prompts: .*outside the packet/,
  );
  assert.deepEqual(await Array.fromAsync(Deno.readDir(`${dir.path}/outside`)), [], "nothing was written outside");
});
