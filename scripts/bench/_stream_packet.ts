/**
 * A one-prompt simulated packet whose provider streams N messages at zero delay: the full-speed run of the `control`
 * and `serve` cases (docs/bench.md). Files starting with `_` are not cases.
 */
import { check } from "./_harness.ts";

const GIT_ENV = {
  GIT_AUTHOR_NAME: "B",
  GIT_AUTHOR_EMAIL: "b@x.invalid",
  GIT_COMMITTER_NAME: "B",
  GIT_COMMITTER_EMAIL: "b@x.invalid",
};

/** Write a packet streaming `messages` messages at zero delay into a new directory under `root`; its real path. */
export async function streamPacket(root: string, messages: number): Promise<string> {
  const dir = `${root}/p${crypto.randomUUID().slice(0, 8)}`;
  await Deno.mkdir(`${dir}/prompts`, { recursive: true });
  await Deno.mkdir(`${dir}/app`, { recursive: true });
  const g = await new Deno.Command("git", { args: ["init", "-q", "-b", "main"], cwd: `${dir}/app`, env: GIT_ENV })
    .output();
  check(g.success, "git init failed");
  await Deno.writeTextFile(
    `${dir}/prompt_runner_packet.md`,
    "---\nname: bench\nprofile: simulated-default\nrepos:\n  app: {path: app, default: true}\n---\n",
  );
  const list = JSON.stringify(Array.from({ length: messages }, (_, i) => `token ${i} `));
  await Deno.writeTextFile(
    `${dir}/prompts/01_stream.prompt.md`,
    `---\nverify:\n  files_exist: [done.txt]\nsimulate:\n  attempts:\n    - delay_ms: 0\n      messages: ${list}\n` +
      "      writes: [{path: done.txt, text: ok}]\n---\n# Stream\n",
  );
  return await Deno.realPath(dir);
}
