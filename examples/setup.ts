/**
 * Setup for the shipped examples: copy a packet into a fresh directory and create its scratch git repo `app`
 * (local identity, one initial commit), so a run never touches this checkout.
 */

const EXAMPLES = new URL("./", import.meta.url).pathname.replace(/\/$/, "");

/** Names of the shipped example packets. */
export const EXAMPLE_NAMES = ["recovery", "demo"] as const;

async function git(cwd: string, ...args: string[]): Promise<void> {
  const out = await new Deno.Command("git", {
    args,
    cwd,
    env: { GIT_CONFIG_NOSYSTEM: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(`git ${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`);
}

async function copyDir(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const e of Deno.readDir(from)) {
    if (e.name === ".prompt_runner" || e.name === "app") continue;
    const src = `${from}/${e.name}`;
    const dst = `${to}/${e.name}`;
    if (e.isDirectory) await copyDir(src, dst);
    else if (e.isFile) await Deno.copyFile(src, dst);
  }
}

/** Create a git repository with a local identity and one initial commit. */
export async function createScratchRepo(path: string): Promise<void> {
  await Deno.mkdir(path, { recursive: true });
  await git(path, "init", "-q", "-b", "main");
  await git(path, "config", "user.name", "prompt_runner example");
  await git(path, "config", "user.email", "example@prompt-runner.invalid");
  await git(path, "config", "commit.gpgsign", "false");
  await Deno.writeTextFile(`${path}/README.md`, "# app\n\nScratch repository for a prompt_runner example.\n");
  await git(path, "add", "-A");
  await git(path, "commit", "-q", "-m", "initial");
}

/**
 * Copy the example packet `name` into `dest` (default: a new temp dir) and create its repo `app` inside it.
 * Returns the packet directory.
 */
export async function setupExample(name: (typeof EXAMPLE_NAMES)[number], dest?: string): Promise<string> {
  const root = dest ?? await Deno.makeTempDir({ prefix: `prompt-runner-${name}-` });
  const packetDir = `${await Deno.realPath(root)}/${name}`;
  await copyDir(`${EXAMPLES}/${name}`, packetDir);
  await createScratchRepo(`${packetDir}/app`);
  return packetDir;
}
