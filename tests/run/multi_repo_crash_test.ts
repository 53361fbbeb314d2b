/**
 * Crash recovery of a multi-repo prompt (docs/crash_recovery.md): a runner killed after committing the prompt's first
 * repo and before its second leaves one commit naming the prompt and a dirty second repo. The next run (plain `run`
 * or `run --remaining`) commits the rest, and the prompt's record names both commits: the first is never left off it.
 */
import assert from "node:assert/strict";
import { runCli } from "../support/cli.ts";
import { git, tempDir } from "../support/fs.ts";
import { createScratchRepo } from "../../examples/setup.ts";
import { manifest, promptFile, readPrompts } from "./support.ts";

async function twoRepoPacket(root: string): Promise<{ pkt: string; app: string; lib: string }> {
  const pkt = `${root}/pkt`;
  await Deno.mkdir(`${pkt}/prompts`, { recursive: true });
  await Deno.writeTextFile(
    `${pkt}/prompt_runner_packet.md`,
    manifest().replace(
      "repos:\n  app:\n    path: app\n    default: true\n",
      "repos:\n  app:\n    path: app\n    default: true\n  lib:\n    path: lib\n",
    ),
  );
  const [app, lib] = [`${pkt}/app`, `${pkt}/lib`];
  await createScratchRepo(app);
  await createScratchRepo(lib);
  for (const id of ["01", "02"]) {
    const writes = `[{path: p${id}/a.txt, repo: app, text: a${id}}, {path: p${id}/l.txt, repo: lib, text: l${id}}]`;
    await Deno.writeTextFile(
      `${pkt}/prompts/${id}_p.prompt.md`,
      promptFile(
        id,
        `targets: [app, lib]\nverify:\n  files_exist: [p${id}/a.txt]\nsimulate:\n  attempts:\n    - writes: ${writes}`,
      ),
    );
  }
  return { pkt, app, lib };
}

const trailer = (repo: string, key: string) => git(repo, "log", "-1", `--format=%(trailers:key=${key},valueonly)`);

for (const resume of [["--remaining"], []]) {
  Deno.test(`killed between a prompt's two repo commits, then run ${resume.join(" ")}: both commits on its record`, async () => {
    await using dir = await tempDir();
    const { pkt, app, lib } = await twoRepoPacket(dir.path);
    const killed = await runCli(["run", pkt], { env: { PROMPT_RUNNER_FAILPOINT: "commit.after_git_commit@1" } });
    assert.equal(killed.code, 137, killed.stderr);
    const appSha = await git(app, "rev-parse", "HEAD");
    const deadRun = await trailer(app, "Prompt-Runner-Run");
    assert.equal(await trailer(app, "Prompt-Runner-Prompt"), "01");
    assert.equal(await git(lib, "status", "--porcelain"), "?? p01/");

    const r = await runCli(["run", pkt, ...resume]);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    // prompt 01's lib commit, then prompt 02's commits; app's commit of prompt 01 is not made twice.
    const lib01 = await git(lib, "rev-parse", "HEAD~1");
    assert.equal(await git(lib, "log", "-1", "--format=%(trailers:key=Prompt-Runner-Prompt,valueonly)", lib01), "01");
    assert.equal(await git(app, "rev-parse", "HEAD~1"), appSha, "app is committed once for prompt 01");
    const lines = (await Deno.readTextFile(`${pkt}/.prompt_runner/progress.log`)).trim().split("\n");
    const last01 = lines.filter((l) => l.startsWith("01:")).at(-1)!;
    assert.match(last01, new RegExp(`^01:completed:\\S+:app=${appSha},lib=${lib01}$`));
    assert.match(
      r.stdout + r.stderr,
      new RegExp(
        `Prompt 01: committed earlier by run ${deadRun}, which stopped while committing: app ${appSha.slice(0, 8)}`,
      ),
    );
    const result = (await readPrompts(pkt))["01"]!.result as { commit: { repos: unknown[] }; reason: string };
    assert.deepEqual(result.commit.repos, [
      { repo: "app", status: "ok", sha: appSha },
      { repo: "lib", status: "ok", sha: lib01 },
    ]);
    assert.match(result.reason, new RegExp(`run ${deadRun} committed app of this commit before it stopped`));
    const listed = JSON.parse((await runCli(["list", pkt, "--json"])).stdout) as {
      prompts: { id: string; suffix: string | null }[];
    };
    assert.equal(listed.prompts.find((p) => p.id === "01")?.suffix, `app=${appSha},lib=${lib01}`);
  });
}
