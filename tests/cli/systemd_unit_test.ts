/**
 * `operator.containment: systemd_user` end to end, with a stand-in user systemd: a `systemd-run` on PATH that starts
 * the command it is given (and records its argv), a `systemctl` that records what it is asked, and a manager socket
 * held open by a helper process. `start` records the unit; `status`, `status --watch` and `workspace list` name it;
 * `stop` interrupts the runner and then stops the unit by name.
 */
import assert from "node:assert/strict";
import { parseJsonOut, runCli, spawnCli } from "../support/cli.ts";
import { tempDir, writeFiles } from "../support/fs.ts";
import { TextFollower, waitFor } from "../support/wait.ts";
import { slowStep, workspaceFixture } from "../workspace/fixture.ts";
import { leaseUnit } from "../../src/store/lease.ts";
import { stopUnit } from "../../src/run/systemd_user.ts";

const FAKE_SYSTEMD_RUN = `#!/bin/sh
printf '%s\\n' "$@" > "$FAKE_SYSTEMD_DIR/systemd-run.argv"
while [ $# -gt 0 ]; do
  case "$1" in
    --setenv=*=*) export "\${1#--setenv=}" ;;
    --working-directory=*) cd "\${1#--working-directory=}" || exit 1 ;;
    --) shift; break ;;
  esac
  shift
done
setsid "$@" </dev/null >/dev/null 2>&1 &
exit 0
`;

const FAKE_SYSTEMCTL = `#!/bin/sh
printf '%s\\n' "$*" >> "$FAKE_SYSTEMD_DIR/systemctl.calls"
if [ -f "$FAKE_SYSTEMD_DIR/systemctl.fail" ]; then echo "Failed to connect to bus: No medium found" >&2; exit 1; fi
exit 0
`;

/** A process holding a unix socket open at `path` (the user manager's socket) until `close()`. */
async function managerSocket(path: string): Promise<{ close(): Promise<void> }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `const l = Deno.listen({transport: "unix", path: ${
        JSON.stringify(path)
      }}); await Deno.stdin.readable.pipeTo(new WritableStream()); l.close();`,
    ],
    stdin: "piped",
    stdout: "null",
    stderr: "null",
  }).spawn();
  await waitFor(async () => (await Deno.lstat(path).catch(() => null))?.isSocket === true, { what: "the socket" });
  return {
    async close() {
      await child.stdin.close();
      await child.status;
    },
  };
}

/** A prepared workspace under systemd_user containment with the stand-in user systemd on PATH. */
async function unitWorkspace(root: string) {
  const f = await workspaceFixture(root, {
    manifestExtra: "operator:\n  containment: systemd_user\n",
    files: {
      "packets/op/prompts/01_hello.prompt.md":
        `---\nverify:\n  files_exist: [hello.txt]\nsimulate:\n  attempts:\n    - ${
          slowStep(240, 250, ', writes: [{path: hello.txt, text: "hi"}]')
        }\n---\n# Hello\n`,
    },
  });
  const fake = `${root}/fake`;
  await writeFiles(fake, { "bin/systemd-run": FAKE_SYSTEMD_RUN, "bin/systemctl": FAKE_SYSTEMCTL });
  await Deno.chmod(`${fake}/bin/systemd-run`, 0o755);
  await Deno.chmod(`${fake}/bin/systemctl`, 0o755);
  await Deno.mkdir(`${root}/runtime/systemd`, { recursive: true });
  const socket = await managerSocket(`${root}/runtime/systemd/private`);
  const env = {
    ...f.env,
    PATH: `${fake}/bin:${Deno.env.get("PATH") ?? ""}`,
    XDG_RUNTIME_DIR: `${root}/runtime`,
    FAKE_SYSTEMD_DIR: fake,
  };
  assert.equal((await runCli(["workspace", "prepare", f.manifest], { env })).code, 0);
  return { f, fake, env, socket };
}

Deno.test("systemd_user: start records the unit; status and workspace list name it; stop stops the unit by name", async () => {
  await using dir = await tempDir();
  const { f, fake, env, socket } = await unitWorkspace(dir.path);
  let pid = 0;
  try {
    const started = await runCli(["start", "op-ws", "--json"], { env });
    assert.equal(started.code, 0, started.stderr);
    const doc = parseJsonOut(started) as { run_id: string; pid: number; unit: string };
    pid = doc.pid;
    assert.match(doc.unit, /^prompt-runner-op-ws-\d{8}-\d{6}/);
    const argv = (await Deno.readTextFile(`${fake}/systemd-run.argv`)).split("\n");
    assert.ok(argv.includes(`--unit=${doc.unit}`), argv.join(" "));
    assert.ok(argv.includes("--property=KillMode=control-group"));
    const lease = JSON.parse(await Deno.readTextFile(`${f.store}/run.pid`));
    assert.equal(lease.service, "systemd");
    assert.equal(lease.unit, doc.unit);

    const status = await runCli(["status", "op-ws"], { env });
    assert.match(status.stdout, new RegExp(`\\n {2}service {4}systemd unit ${doc.unit} · process up \\(pid ${pid} `));
    assert.doesNotMatch(status.stdout, /detached/);
    assert.deepEqual(parseJsonOut(await runCli(["status", "op-ws", "--json"], { env })).service, {
      mode: "systemd",
      unit: doc.unit,
    });
    // --watch renders the same report.
    const watch = spawnCli(["status", "op-ws", "--watch", "--interval", "200ms"], { env });
    const watched = new TextFollower(watch.stdout);
    await watched.until((t) => /\n {2}service {4}\S/.test(t));
    watch.kill("SIGINT");
    await watched.rest();
    await watch.status;
    assert.match(watched.text, new RegExp(`\n {2}service {4}systemd unit ${doc.unit} · process up`));
    assert.doesNotMatch(watched.text, /detached/);
    const list = await runCli(["workspace", "list"], { env });
    assert.match(list.stdout, new RegExp(`^op-ws\\s+running\\s+\\S+  \\(systemd unit ${doc.unit}\\)$`, "m"));
    const listed = parseJsonOut(await runCli(["workspace", "list", "--json"], { env })) as {
      workspaces: { id: string; unit?: string }[];
    };
    assert.equal(listed.workspaces[0]!.unit, doc.unit);

    const stop = await runCli(["stop", "op-ws", "--grace", "60s", "--json"], { env });
    assert.equal(stop.code, 0, stop.stderr);
    const stopped = parseJsonOut(stop) as { run_id: string; unit: string; unit_stopped: boolean };
    assert.equal(stopped.run_id, doc.run_id);
    assert.equal(stopped.unit, doc.unit);
    assert.equal(stopped.unit_stopped, true);
    assert.equal(await Deno.readTextFile(`${fake}/systemctl.calls`), `--user stop ${doc.unit}\n`);
    const after = parseJsonOut(await runCli(["control", "status", "op-ws", "--json"], { env }));
    assert.equal(after.reason, "interrupted", "the runner closed the run itself before the unit was stopped");
  } finally {
    if (pid) {
      try {
        Deno.kill(pid, "SIGKILL");
      } catch { /* already stopped */ }
    }
    await socket.close();
  }
});

Deno.test("systemd_user: stop exits 1 naming the unit when systemctl cannot stop it; the run itself closed", async () => {
  await using dir = await tempDir();
  const { fake, env, socket } = await unitWorkspace(dir.path);
  let pid = 0;
  try {
    const started = await runCli(["start", "op-ws", "--json"], { env });
    assert.equal(started.code, 0, started.stderr);
    const doc = parseJsonOut(started) as { pid: number; unit: string };
    pid = doc.pid;
    await Deno.writeTextFile(`${fake}/systemctl.fail`, "");
    const stop = await runCli(["stop", "op-ws", "--grace", "60s"], { env });
    assert.equal(stop.code, 1, stop.stderr);
    assert.match(
      stop.stderr,
      new RegExp(
        `^error: run \\S+ stopped, but its systemd unit ${doc.unit} could not be stopped: systemctl --user stop ` +
          `${doc.unit} failed: Failed to connect to bus: No medium found\n`,
      ),
    );
    const after = parseJsonOut(await runCli(["control", "status", "op-ws", "--json"], { env }));
    assert.equal(after.reason, "interrupted");
    assert.equal((after.lease as { state: string }).state, "down");
  } finally {
    if (pid) {
      try {
        Deno.kill(pid, "SIGKILL");
      } catch { /* already stopped */ }
    }
    await socket.close();
  }
});

Deno.test("leaseUnit() takes only a unit name start gives, so a forged run.pid never makes stop address another unit", () => {
  assert.equal(
    leaseUnit({ service: "systemd", unit: "prompt-runner-ops-20261201T120000Z" }),
    "prompt-runner-ops-20261201T120000Z",
  );
  assert.equal(leaseUnit({ service: "systemd", unit: "dbus.service" }), null);
  assert.equal(leaseUnit({ service: "systemd", unit: "prompt-runner-x;rm -rf" }), null);
  assert.equal(leaseUnit({ service: "systemd", unit: "prompt-runner-" + "a".repeat(300) }), null);
  assert.equal(leaseUnit({ service: "detached", unit: "prompt-runner-ops-1" }), null);
  assert.equal(leaseUnit(null), null);
});

Deno.test("stopUnit() runs systemctl --user stop <unit>; a unit already collected counts as stopped; a failure says why", async () => {
  const calls: string[][] = [];
  const answer = (code: number | null, stderr = "") => (args: string[]) => {
    calls.push(args);
    return Promise.resolve({ code, stderr });
  };
  assert.deepEqual(await stopUnit("prompt-runner-a-1", answer(0)), {
    ok: true,
    detail: "unit prompt-runner-a-1 stopped",
  });
  assert.deepEqual(calls, [["--user", "stop", "prompt-runner-a-1"]]);
  assert.equal((await stopUnit("prompt-runner-a-1", answer(5, "Unit not loaded."))).ok, true);
  const failed = await stopUnit("prompt-runner-a-1", answer(1, "Failed to connect to bus: No medium found"));
  assert.deepEqual(failed, {
    ok: false,
    detail: "systemctl --user stop prompt-runner-a-1 failed: Failed to connect to bus: No medium found",
  });
});
