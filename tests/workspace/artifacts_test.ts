import assert from "node:assert/strict";
import { buildArtifacts } from "../../src/workspace/artifacts.ts";
import { parseWorkspaceManifest } from "../../src/workspace/manifest.ts";
import { workspacePaths } from "../../src/workspace/paths.ts";
import { RunFailedError } from "../../src/errors.ts";
import { tempDir, writeFiles } from "../support/fs.ts";

/** A manifest with one artifact, its paths under `root` (the clone of `app` is a plain directory here). */
function setup(root: string, artifact: string) {
  const m = parseWorkspaceManifest(
    `schema: prompt_runner.workspace/v1\nid: w\nrepositories:\n  app: {remote: r}\noperator:\n` +
      `  workspace_root: ${root}/ws\n  runtime_root: ${root}/state\ncontracts:\n  artifacts:\n    - ${artifact}\n`,
    `${root}/workspace.yml`,
  );
  return { m, paths: workspacePaths(m, (k) => (k === "HOME" ? root : undefined)), clone: `${root}/ws/repos/app` };
}

async function refusal(p: Promise<unknown>): Promise<RunFailedError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof RunFailedError, String(e));
    return e;
  }
  assert.fail("expected a refusal");
}

Deno.test("buildArtifacts() installs a command artifact as an executable copy and records its sha256", async () => {
  await using dir = await tempDir();
  const { m, paths, clone } = setup(dir.path, "{id: chk, repo: app, project: bin/check.sh, type: command}");
  await writeFiles(clone, { "bin/check.sh": "#!/bin/sh\nexit 0\n" });
  const built = await buildArtifacts(m, paths);
  const dest = `${dir.path}/ws/artifacts/chk`;
  assert.deepEqual(Object.keys(built), ["chk"]);
  assert.equal(built.chk!.path, dest);
  assert.equal(await Deno.readTextFile(dest), "#!/bin/sh\nexit 0\n");
  assert.equal(((await Deno.stat(dest)).mode ?? 0) & 0o777, 0o755);
  const digest = await crypto.subtle.digest("SHA-256", await Deno.readFile(dest));
  assert.equal(built.chk!.sha256, [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join(""));
  // The installed copy is the operator's: changing the clone's script does not change it until the next prepare.
  await Deno.writeTextFile(`${clone}/bin/check.sh`, "#!/bin/sh\nexit 1\n");
  assert.equal(await Deno.readTextFile(dest), "#!/bin/sh\nexit 0\n");
});

Deno.test("buildArtifacts() refuses a missing, wrong-kind or escaping project, naming the artifact", async () => {
  await using dir = await tempDir();
  const cases: [string, (clone: string) => Promise<void>, RegExp][] = [
    [
      "{id: a, repo: app, project: nope.sh, type: command}",
      async () => {},
      /artifacts a \(command\): nope\.sh does not exist in clone app/,
    ],
    [
      "{id: b, repo: app, project: bin, type: command}",
      (c) => Deno.mkdir(`${c}/bin`, { recursive: true }),
      /bin is not a file/,
    ],
    [
      "{id: c, repo: app, project: out, type: command}",
      async (c) => {
        await writeFiles(dir.path, { "outside.sh": "#!/bin/sh\n" });
        await Deno.symlink(`${dir.path}/outside.sh`, `${c}/out`);
      },
      /out resolves outside clone app/,
    ],
    [
      "{id: d, repo: app, project: proj, type: escript}",
      (c) => Deno.mkdir(`${c}/proj`, { recursive: true }),
      /is not a Mix project \(no mix\.exs\)/,
    ],
  ];
  for (const [i, [artifact, prepare, re]] of cases.entries()) {
    const { m, paths, clone } = setup(`${dir.path}/${i}`, artifact);
    await Deno.mkdir(clone, { recursive: true });
    await prepare(clone);
    const e = await refusal(buildArtifacts(m, paths));
    assert.equal(e.code, "workspace_artifact_invalid");
    assert.match(e.message, re);
  }
});

Deno.test("buildArtifacts() escript: refused without mix; never overwrites an output it did not build", async () => {
  await using dir = await tempDir();
  const { m, paths, clone } = setup(dir.path, "{id: e, repo: app, project: tools/proj, type: escript}");
  await writeFiles(clone, { "tools/proj/mix.exs": "defmodule P.MixProject do\nend\n" });
  const missing = await refusal(buildArtifacts(m, paths, `${dir.path}/empty-bin`));
  assert.equal(missing.code, "workspace_artifact_no_toolchain");
  assert.match(missing.message, /contracts\.artifacts e \(escript\): needs Elixir's mix on PATH/);
  await writeFiles(dir.path, { "bin/mix": "#!/bin/sh\nexit 0\n", "ws/repos/app/tools/proj/proj": "mine\n" });
  await Deno.chmod(`${dir.path}/bin/mix`, 0o755);
  const pre = await refusal(buildArtifacts(m, paths, `${dir.path}/bin`));
  assert.match(pre.message, /tools\/proj\/proj already exists; prepare never overwrites/);
  assert.equal(await Deno.readTextFile(`${clone}/tools/proj/proj`), "mine\n");
  await Deno.remove(`${clone}/tools/proj/proj`);
  // A build that exits 0 without writing the escript is a failure, not an empty artifact.
  const none = await refusal(buildArtifacts(m, paths, `${dir.path}/bin`));
  assert.equal(none.code, "workspace_artifact_build_failed");
  assert.match(none.message, /wrote no .*tools\/proj\/proj/);
  await Deno.writeTextFile(`${dir.path}/bin/mix`, "#!/bin/sh\necho boom >&2\nexit 3\n");
  const failedBuild = await refusal(buildArtifacts(m, paths, `${dir.path}/bin`));
  assert.match(failedBuild.message, /mix escript\.build exited 3/);
  assert.deepEqual(failedBuild.hints, ["boom"]);
});
