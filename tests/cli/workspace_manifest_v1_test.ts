/** Black-box: the sdk-v1 workspace keys as an operator meets them (commits, contracts.artifacts, containment). */
import assert from "node:assert/strict";
import { parseJsonOut, runCli } from "../support/cli.ts";
import { git, tempDir } from "../support/fs.ts";
import { workspaceFixture } from "../workspace/fixture.ts";

const exists = (p: string) => Deno.lstat(p).then(() => true, () => false);

/** A PATH without any directory holding `mix` (so the host's Elixir, if any, is not found). */
async function pathWithoutMix(): Promise<string> {
  const dirs: string[] = [];
  for (const d of (Deno.env.get("PATH") ?? "").split(":")) if (d && !(await exists(`${d}/mix`))) dirs.push(d);
  return dirs.join(":");
}

const checkerPrompt = `---
verify:
  commands:
    - {exec: "@artifact:checker", args: [hello.txt]}
simulate:
  attempts:
    - {writes: [{path: hello.txt, text: "hi"}]}
---
# Hello

Write hello.txt.
`;

Deno.test("contracts.artifacts type command: prepare installs the script; verifier argv runs it as @artifact:<id>", async () => {
  await using dir = await tempDir();
  const f = await workspaceFixture(dir.path, {
    files: {
      "tools/check.sh": '#!/bin/sh\ntest -f "$1" && echo "checked $1"\n',
      "packets/op/prompts/01_hello.prompt.md": checkerPrompt,
    },
    manifestExtra: "contracts:\n  artifacts:\n    - {id: checker, repo: app, project: tools/check.sh, type: command}\n",
  });
  const prep = await runCli(["workspace", "prepare", f.manifest, "--json"], { env: f.env });
  assert.equal(prep.code, 0, prep.stderr);
  const installed = `${dir.path}/data/prompt_runner/workspaces/op-ws/artifacts/checker`;
  const lock = parseJsonOut(prep) as { artifacts: Record<string, { path: string; type: string; sha256: string }> };
  assert.equal(lock.artifacts.checker!.path, installed);
  assert.equal(lock.artifacts.checker!.type, "command");
  assert.match(lock.artifacts.checker!.sha256, /^[0-9a-f]{64}$/);
  assert.equal(((await Deno.stat(installed)).mode ?? 0) & 0o777, 0o755);

  // Before the work exists the installed checker runs and fails; the report names its path.
  const before = await runCli(["verify", "op-ws", "01", "--json"], { env: f.env });
  assert.equal(before.code, 1, before.stderr);
  assert.ok(before.stdout.includes(installed), before.stdout);

  const run = await runCli(["run", "op-ws"], { env: f.env });
  assert.equal(run.code, 0, run.stderr + run.stdout);
  const after = await runCli(["verify", "op-ws", "01", "--json"], { env: f.env });
  assert.equal(after.code, 0, after.stdout);
  assert.match(after.stdout, /checked hello\.txt/);
});

Deno.test("contracts.artifacts type escript: mix escript.build when mix is on PATH; refused naming it when not", async () => {
  await using dir = await tempDir();
  const manifestExtra =
    "contracts:\n  artifacts:\n    - {id: contracts, repo: app, project: support/contracts, type: escript}\n";
  const files = { "support/contracts/mix.exs": "defmodule Contracts.MixProject do\nend\n" };
  const f = await workspaceFixture(`${dir.path}/a`, { files, manifestExtra });
  const noMix = await pathWithoutMix();
  const refused = await runCli(["workspace", "prepare", f.manifest], { env: { ...f.env, PATH: noMix } });
  assert.equal(refused.code, 1, refused.stderr);
  assert.match(refused.stderr, /contracts\.artifacts contracts \(escript\): needs Elixir's mix on PATH/);
  assert.equal(await exists(`${dir.path}/a/data/prompt_runner/workspaces/op-ws/workspace.lock.json`), false);

  // A stand-in mix: checks it was asked for escript.build under MIX_ENV=prod and writes the escript named after
  // the project directory, as Mix does.
  const bin = `${dir.path}/bin`;
  await Deno.mkdir(bin);
  await Deno.writeTextFile(
    `${bin}/mix`,
    '#!/bin/sh\n[ "$1" = escript.build ] && [ "$MIX_ENV" = prod ] || exit 9\n' +
      'printf "#!/bin/sh\\necho escript ok\\n" > "$(basename "$PWD")"\n',
  );
  await Deno.chmod(`${bin}/mix`, 0o755);
  const prep = await runCli(["workspace", "prepare", f.manifest, "--json"], {
    env: { ...f.env, PATH: `${bin}:${noMix}` },
  });
  assert.equal(prep.code, 0, prep.stderr);
  const lock = parseJsonOut(prep) as { artifacts: Record<string, { path: string }> };
  const out = await new Deno.Command(lock.artifacts.contracts!.path).output();
  assert.equal(new TextDecoder().decode(out.stdout), "escript ok\n");
  const clone = `${dir.path}/a/data/prompt_runner/workspaces/op-ws/repos/app`;
  assert.equal(await exists(`${clone}/support/contracts/contracts`), false, "the build output left the clone");
});

Deno.test("commits.mode session: a workspace run leaves committing to the sessions (no runner commit)", async () => {
  await using dir = await tempDir();
  const f = await workspaceFixture(dir.path, { manifestExtra: "commits:\n  mode: session\n  push: explicit\n" });
  assert.equal((await runCli(["workspace", "prepare", f.manifest], { env: f.env })).code, 0);
  const head = await git(f.clone, "rev-parse", "HEAD");
  const run = await runCli(["run", "op-ws"], { env: f.env });
  assert.equal(run.code, 0, run.stderr + run.stdout);
  assert.equal(await git(f.clone, "rev-parse", "HEAD"), head, "the runner made no commit");
  assert.match(await git(f.clone, "status", "--porcelain"), /\?\? hello\.txt/);
});

Deno.test("operator.containment systemd_user: start is refused with a clear message where no user systemd is reachable", async () => {
  await using dir = await tempDir();
  const f = await workspaceFixture(dir.path, { manifestExtra: "operator:\n  containment: systemd_user\n" });
  await Deno.mkdir(`${dir.path}/runtime`);
  const env = { ...f.env, XDG_RUNTIME_DIR: `${dir.path}/runtime` };
  assert.equal((await runCli(["workspace", "prepare", f.manifest], { env })).code, 0);
  const r = await runCli(["start", "op-ws"], { env });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /operator\.containment: systemd_user needs a reachable user systemd \(systemd-run --user\)/);
  assert.match(r.stderr, /nothing was started/);
  assert.equal(await exists(`${f.store}/run.pid`), false, "no runner took the lease");
  const logs = await Array.fromAsync(Deno.readDir(`${f.store}/logs`)).catch(() => []);
  assert.deepEqual(logs, [], "no runner log was opened");
});

Deno.test("targetCommitPolicy(): commits.mode session means none unless a commit flag names the policy", async () => {
  const { targetCommitPolicy } = await import("../../src/cli/run.ts");
  const session = { workspace: { commitMode: "session" as const } };
  const runner = { workspace: { commitMode: "runner" as const } };
  assert.equal(targetCommitPolicy({}, session), "none");
  assert.equal(targetCommitPolicy({ committer: "git" }, session), "git");
  assert.equal(targetCommitPolicy({ committer: "noop" }, session), "noop");
  assert.equal(targetCommitPolicy({}, runner), "git");
  assert.equal(targetCommitPolicy({ "no-commit": true }, runner), "none");
  assert.equal(targetCommitPolicy({}, {}), "git");
});

Deno.test("contracts.artifacts in workspace plan and doctor: planned before prepare, checked against the lock after", async () => {
  await using dir = await tempDir();
  const f = await workspaceFixture(dir.path, {
    files: { "tools/check.sh": '#!/bin/sh\ntest -f "$1"\n' },
    manifestExtra: "contracts:\n  artifacts:\n    - {id: checker, repo: app, project: tools/check.sh, type: command}\n",
  });
  const installed = `${dir.path}/data/prompt_runner/workspaces/op-ws/artifacts/checker`;
  const plan = await runCli(["workspace", "plan", f.manifest, "--json"], { env: f.env });
  assert.equal(plan.code, 0, plan.stderr);
  const planned = parseJsonOut(plan) as { artifacts: { id: string; path: string; problem: string | null }[] };
  assert.deepEqual(planned.artifacts.map((a) => [a.id, a.path, a.problem]), [["checker", installed, null]]);
  assert.equal(await exists(installed), false, "plan installs nothing");
  const human = await runCli(["workspace", "plan", f.manifest], { env: f.env });
  assert.match(human.stdout, /artifact checker \(command\) from app\/tools\/check\.sh/);

  assert.equal((await runCli(["workspace", "prepare", f.manifest], { env: f.env })).code, 0);
  const ready = await runCli(["workspace", "doctor", f.manifest, "--json"], { env: f.env });
  const doc = parseJsonOut(ready) as { ready: boolean; artifacts: { id: string; ready: boolean }[] };
  assert.equal(ready.code, 0, ready.stdout);
  assert.deepEqual(doc.artifacts.map((a) => [a.id, a.ready]), [["checker", true]]);

  // The installed checker changed after prepare: the contract would no longer run what prepare recorded.
  await Deno.writeTextFile(installed, "#!/bin/sh\nexit 0\n");
  const tampered = await runCli(["workspace", "doctor", f.manifest], { env: f.env });
  assert.equal(tampered.code, 1, tampered.stdout);
  assert.match(tampered.stdout, /FAIL artifact checker .* changed since prepare installed it/);
  await Deno.remove(installed);
  const missing = await runCli(["workspace", "doctor", f.manifest], { env: f.env });
  assert.equal(missing.code, 1);
  assert.match(missing.stdout, /FAIL artifact checker .* not installed; run: prompt_runner workspace prepare/);
});

Deno.test("workspace plan refuses an escript artifact when mix is not on PATH, naming it", async () => {
  await using dir = await tempDir();
  const f = await workspaceFixture(dir.path, {
    files: { "support/contracts/mix.exs": "defmodule Contracts.MixProject do\nend\n" },
    manifestExtra:
      "contracts:\n  artifacts:\n    - {id: contracts, repo: app, project: support/contracts, type: escript}\n",
  });
  const plan = await runCli(["workspace", "plan", f.manifest], { env: { ...f.env, PATH: await pathWithoutMix() } });
  assert.equal(plan.code, 1, plan.stdout);
  assert.match(plan.stdout, /refuse +contracts\.artifacts contracts \(escript\): needs Elixir's mix on PATH/);
});
