/**
 * A generated packet of N trivial simulated prompts for the `scale` case (docs/bench.md) and the scale regression
 * test: each prompt writes one file, its contract is `files_exist` + `contains`. The repo is a git work tree (preflight
 * needs one) whose one commit ignores the outputs; the run is `--no-commit`.
 */

const GIT_ENV = {
  GIT_AUTHOR_NAME: "Bench",
  GIT_AUTHOR_EMAIL: "bench@example.invalid",
  GIT_COMMITTER_NAME: "Bench",
  GIT_COMMITTER_EMAIL: "bench@example.invalid",
};

async function git(cwd: string, args: string[]): Promise<void> {
  const out = await new Deno.Command("git", { args, cwd, env: GIT_ENV, stdout: "null", stderr: "piped" }).output();
  if (!out.success) throw new Error(`git ${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`);
}

/** The id of prompt `i` (1-based), zero-padded so file order is prompt order. */
export function scalePromptId(i: number): string {
  return String(i).padStart(5, "0");
}

/** Write a packet of `count` trivial simulated prompts into `dir` (created). */
export async function writeScalePacket(dir: string, count: number): Promise<void> {
  await Deno.mkdir(`${dir}/prompts`, { recursive: true });
  await Deno.mkdir(`${dir}/app`, { recursive: true });
  await git(`${dir}/app`, ["init", "-q", "-b", "main"]);
  // The prompts' outputs are ignored by git: without commits they would pile up as untracked files, and every
  // prompt's baseline (`git status`) would cost O(files so far) — git's cost, not the runner's (docs/bench.md).
  await Deno.writeTextFile(`${dir}/app/.gitignore`, "out/\n");
  await git(`${dir}/app`, ["add", ".gitignore"]);
  await git(`${dir}/app`, ["commit", "-q", "-m", "init"]);
  await Deno.writeTextFile(
    `${dir}/prompt_runner_packet.md`,
    "---\nname: scale\nprovider: simulated\nmodel: simulated-demo\nrepos:\n  app: {path: app, default: true}\n---\n",
  );
  for (let i = 1; i <= count; i++) {
    const id = scalePromptId(i);
    await Deno.writeTextFile(
      `${dir}/prompts/${id}_step.prompt.md`,
      `---\nid: "${id}"\nphase: 1\nverify:\n  files_exist: [out/${id}.txt]\n` +
        `  contains: [{path: out/${id}.txt, text: "step ${id}"}]\n` +
        `simulate:\n  attempts:\n    - writes: [{path: out/${id}.txt, text: "step ${id}"}]\n---\n# Step ${id}\n\nDo it.\n`,
    );
  }
}
