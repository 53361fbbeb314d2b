import assert from "node:assert/strict";
import { parseJsonOut, runCli } from "../support/cli.ts";
import { git, tempDir } from "../support/fs.ts";
import { listFiles, slowStep, treeDigest, workspaceFixture } from "../workspace/fixture.ts";

const slowPrompt = (author: string) =>
  `---
verify:
  files_exist: [hello.txt]
simulate:
  attempts:
    - ${slowStep(60, 300, `, writes: [{path: hello.txt, text: "hi"}]`)}
  steer: ${slowStep(60, 300)}
---
# Hello

Write hello.txt in ${author}/hello.txt.
`;

Deno.test({
  name:
    "a workspace run: prepare → plan → start → status → view/amend/steer → workspace status → stop, author untouched",
  async fn() {
    await using dir = await tempDir();
    const f = await workspaceFixture(dir.path, {
      files: { "packets/op/prompts/01_hello.prompt.md": slowPrompt(`${dir.path}/author/app`) },
    });
    const before = await treeDigest(f.author);
    const env = f.env;

    const prep = await runCli(["workspace", "prepare", f.manifest], { env });
    assert.equal(prep.code, 0, prep.stderr);

    const plan = await runCli(["plan", "op-ws", "--json"], { env });
    assert.equal(plan.code, 0, plan.stderr);
    assert.equal(parseJsonOut(plan).store_root, f.store);

    let runnerPid = 0;
    try {
      const start = await runCli(["start", "op-ws", "--json"], { env });
      assert.equal(start.code, 0, start.stderr);
      const started = parseJsonOut(start);
      assert.equal(started.store_root, f.store);
      assert.match(String(started.run_id), /^\d{8}T\d{6}Z-[A-Z2-7]{6}$/);
      runnerPid = Number(started.pid);
      const pidFile = JSON.parse(await Deno.readTextFile(`${f.store}/run.pid`));
      assert.equal(pidFile.pid, runnerPid, "the lease names the detached runner");
      assert.ok((await Deno.readDir(`${f.store}/logs`)[Symbol.asyncIterator]().next()).value, "a runner log exists");

      const status = await runCli(["status", "op-ws", "--json"], { env });
      assert.equal(status.code, 0, status.stderr);
      const s = parseJsonOut(status);
      assert.deepEqual([s.kind, s.target, s.state, s.healthy, s.run_id], [
        "workspace",
        "op-ws",
        "running",
        true,
        started.run_id,
      ]);
      assert.equal(s.packet_dir, `${f.clone}/packets/op`);
      // status may not spawn git: the clone facts come from .git files, dirtiness stays unknown.
      const sw = s.workspace as {
        id: string;
        repositories: { name: string; head: string; branch: string; dirty: null }[];
      };
      assert.equal(sw.id, "op-ws");
      assert.deepEqual(sw.repositories.map((r) => [r.name, r.head, r.branch, r.dirty]), [
        ["app", await git(f.clone, "rev-parse", "HEAD"), "main", null],
      ]);
      const human = await runCli(["status", "op-ws"], { env });
      assert.match(human.stdout, /^ {2}workspace {2}app [0-9a-f]{8} \(main\)$/m, human.stdout);

      const view = await runCli(["control", "view", "op-ws", "--tool-output", "full"], { env });
      assert.equal(view.code, 0, view.stderr);
      assert.match(view.stdout, new RegExp(`Requested tool_output=full for run ${started.run_id}`));

      const amend = await runCli(
        ["control", "amend", "op-ws", "01", "--add-file", "README.md", "--reason", "the readme stays", "--persist"],
        { env },
      );
      assert.equal(amend.code, 0, amend.stderr);
      assert.match(amend.stdout, /Amended 01: added files_exist \["README\.md"\]/);
      assert.match(await Deno.readTextFile(`${f.clone}/packets/op/prompts/01_hello.prompt.md`), /README\.md/);

      const steer = await runCli(["control", "steer", "op-ws", "--wait", "--", "check", "the", "readme"], { env });
      assert.equal(steer.code, 0, steer.stderr + steer.stdout);
      assert.match(steer.stdout, /Steer queued for prompt 01/);

      const ws = await runCli(["workspace", "status", "op-ws"], { env });
      assert.equal(ws.code, 0, ws.stderr);
      assert.match(ws.stdout, /^ {2}op-ws — RUNNING · healthy$/m);
      assert.match(ws.stdout, /^ {2}workspace {2}app [0-9a-f]{8} \(main\) · 2 dirty$/m, ws.stdout);
      const wsJson = parseJsonOut(await runCli(["workspace", "status", "op-ws", "--json"], { env }));
      const section = wsJson.workspace as { id: string; repositories: { name: string; path: string; dirty: number }[] };
      assert.equal(section.id, "op-ws");
      assert.deepEqual(section.repositories.map((r) => [r.name, r.path]), [["app", f.clone]]);

      const watch = await runCli(["watch", "op-ws", "--once", "--require-running"], { env });
      assert.equal(watch.code, 0, watch.stderr);
      assert.match(watch.stdout, /^WATCH \S+Z target=op-ws state=running healthy=true prompt=01 seq=\d+ progress_age=/);

      const stop = await runCli(["stop", "op-ws", "--grace", "20s"], { env });
      assert.equal(stop.code, 0, stop.stderr);
      assert.match(stop.stdout, new RegExp(`Stopped run ${started.run_id} \\(prompt 01`));
      runnerPid = 0;
    } finally {
      if (runnerPid) {
        try {
          Deno.kill(runnerPid, "SIGKILL");
        } catch { /* gone */ }
      }
    }

    const after = parseJsonOut(await runCli(["status", "op-ws", "--json"], { env }));
    assert.deepEqual([after.state, after.health], ["failed", "stopped"]);
    // The agent was sent the clone's path, never the author's (docs/reference/workspace.md §6.2).
    const logs = [...Deno.readDirSync(`${f.store}/logs`)].map((e) => e.name);
    const promptLog = logs.find((n) => /^runner-.*\.log$/.test(n));
    assert.ok(promptLog, logs.join(", "));
    const transcript = await Deno.readTextFile(`${f.store}/logs/${promptLog}`);
    assert.ok(transcript.includes(`Write hello.txt in ${f.clone}/hello.txt.`), transcript);
    assert.ok(!transcript.includes(f.author), "no author path reaches the agent");
    const log = await Deno.readTextFile(`${f.store}/control/log.jsonl`);
    assert.match(log, /"command":"steer"/);

    // Nothing was written into the author's checkout; all state lives under the XDG state dir.
    assert.equal(await treeDigest(f.author), before);
    assert.deepEqual((await listFiles(f.author)).filter((p) => p.includes(".prompt_runner")), []);
    assert.deepEqual((await listFiles(f.clone)).filter((p) => p.includes(".prompt_runner")), []);
    const store = JSON.parse(await Deno.readTextFile(`${f.store}/store.json`));
    assert.deepEqual(store, {
      schema: "prompt_runner.store/v1",
      kind: "workspace",
      packet_dir: `${f.clone}/packets/op`,
      workspace_id: "op-ws",
      manifest: f.manifest,
    });
    assert.equal(await git(f.author, "log", "--oneline", "-n", "2").then((l) => l.split("\n").length), 1);
  },
});
