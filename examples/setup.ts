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

/** Options of {@link setupExample}. */
export interface SetupOptions {
  /**
   * Multiply every `delay_ms` of the copied prompts' `simulate:` scripts (1 = as shipped). The slow demo uses it so a
   * person can watch and steer the run by hand.
   */
  pace?: number;
}

/** Multiply every `delay_ms: <n>` in a prompt file's text by `pace`. */
export function paceScript(text: string, pace: number): string {
  if (pace === 1) return text;
  return text.replace(
    /(\bdelay_ms:\s*)(\d+)/g,
    (_m, key: string, n: string) => `${key}${Math.round(Number(n) * pace)}`,
  );
}

async function paceDir(dir: string, pace: number): Promise<void> {
  for await (const e of Deno.readDir(dir)) {
    if (!e.isFile || !e.name.endsWith(".md")) continue;
    const path = `${dir}/${e.name}`;
    await Deno.writeTextFile(path, paceScript(await Deno.readTextFile(path), pace));
  }
}

/**
 * Copy the example packet `name` into `dest` (default: a new temp dir) and create its repo `app` inside it.
 * Returns the packet directory.
 */
export async function setupExample(
  name: (typeof EXAMPLE_NAMES)[number],
  dest?: string,
  opts: SetupOptions = {},
): Promise<string> {
  const root = dest ?? await Deno.makeTempDir({ prefix: `prompt-runner-${name}-` });
  const packetDir = `${await Deno.realPath(root)}/${name}`;
  await copyDir(`${EXAMPLES}/${name}`, packetDir);
  if (opts.pace !== undefined && opts.pace !== 1) await paceDir(`${packetDir}/prompts`, opts.pace);
  await createScratchRepo(`${packetDir}/app`);
  return packetDir;
}
