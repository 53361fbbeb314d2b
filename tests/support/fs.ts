/** Temp directories, scratch git repos and packet builders for tests. */

/** A temp dir removed by the returned disposer. */
export async function tempDir(prefix = "pr-test-"): Promise<{ path: string; [Symbol.asyncDispose](): Promise<void> }> {
  const path = await Deno.realPath(await Deno.makeTempDir({ prefix }));
  return {
    path,
    async [Symbol.asyncDispose]() {
      await Deno.remove(path, { recursive: true }).catch(() => {});
    },
  };
}

/** Environment that gives git a fixed identity without touching global config. */
export const GIT_ENV: Record<string, string> = {
  GIT_AUTHOR_NAME: "Test",
  GIT_AUTHOR_EMAIL: "test@example.invalid",
  GIT_COMMITTER_NAME: "Test",
  GIT_COMMITTER_EMAIL: "test@example.invalid",
  GIT_CONFIG_NOSYSTEM: "1",
};

/** Run git; throws with stderr on failure. Returns trimmed stdout. */
export async function git(cwd: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("git", { args, cwd, env: GIT_ENV, stdout: "piped", stderr: "piped" }).output();
  if (!out.success) throw new Error(`git ${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`);
  return new TextDecoder().decode(out.stdout).trim();
}

/** Create a git repo with local identity and one initial commit. */
export async function initRepo(path: string, files: Record<string, string> = { "README.md": "# scratch\n" }) {
  await Deno.mkdir(path, { recursive: true });
  await git(path, "init", "-q", "-b", "main");
  await git(path, "config", "user.name", "Test");
  await git(path, "config", "user.email", "test@example.invalid");
  await git(path, "config", "commit.gpgsign", "false");
  await writeFiles(path, files);
  await git(path, "add", "-A");
  await git(path, "commit", "-q", "-m", "initial");
}

/** Write a map of relative path → content under a root, creating directories. */
export async function writeFiles(root: string, files: Record<string, string>): Promise<void> {
  for (const [rel, text] of Object.entries(files)) {
    const full = `${root}/${rel}`;
    await Deno.mkdir(full.slice(0, full.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(full, text);
  }
}

/**
 * A simulated packet at `<root>/slow` whose only prompt stays live for about `steps × delayMs` ms (one message per
 * step), then writes `done.txt`, which its contract checks.
 */
export async function slowPacket(root: string, steps: number, delayMs: number): Promise<string> {
  const packet = `${root}/slow`;
  await initRepo(`${packet}/app`);
  const messages = Array.from({ length: steps }, (_, i) => `step ${i}`);
  await writeFiles(packet, {
    "prompt_runner_packet.md":
      "---\nname: slow\nprofile: simulated-default\nrepos:\n  app: {path: app, default: true}\n---\n",
    "prompts/01_slow.prompt.md":
      `---\nverify:\n  files_exist: [done.txt]\nsimulate:\n  attempts:\n    - delay_ms: ${delayMs}\n      messages: ${
        JSON.stringify(messages)
      }\n      writes: [{path: done.txt, text: ok}]\n---\n# Slow\n`,
  });
  return packet;
}
