import assert from "node:assert/strict";
import { parseJsonOut, runCli } from "../support/cli.ts";
import { initRepo, tempDir } from "../support/fs.ts";
import { RUNNER_V8_FLAGS, runnerCommand, underDeno } from "../../src/run/detach.ts";
import { findCommand } from "../../src/cli/registry.ts";
import { denoFlagsFor } from "../../src/cli/frame.ts";
import { slowStep } from "../workspace/fixture.ts";

Deno.test("runnerCommand() runs main.ts with run's permissions under deno, the binary directly when compiled", () => {
  const main = "file:///opt/pr/main.ts";
  const denoFlags = denoFlagsFor(findCommand(["run"])!.entry.permissions);
  const deno = runnerCommand(["demo", "--json", "03", "--detach"], {
    denoFlags,
    execPath: "/usr/bin/deno",
    mainModule: main,
  });
  assert.deepEqual(deno.slice(0, 4), ["/usr/bin/deno", "run", "--quiet", "--no-prompt"]);
  assert.ok(deno.includes("--allow-write") && deno.includes("--allow-run"));
  assert.ok(!deno.some((a) => a.startsWith("--allow-net")), "run keeps no network permission");
  assert.deepEqual(deno.slice(-4), ["/opt/pr/main.ts", "run", "demo", "03"]);
  assert.deepEqual(runnerCommand(["demo"], { denoFlags, execPath: "/usr/local/bin/prompt_runner" }), [
    "/usr/local/bin/prompt_runner",
    "run",
    "demo",
  ]);
  assert.equal(underDeno("/home/x/.deno/bin/deno"), true);
  assert.equal(underDeno("/usr/local/bin/prompt_runner"), false);
});

/** A repo holding packet `pk` whose one simulated prompt stays live for ~9 s, plus a private XDG environment. */
async function slowRepo(root: string): Promise<{ repo: string; env: Record<string, string> }> {
  const repo = `${root}/app`;
  await initRepo(repo, {
    "README.md": "# app\n",
    "pk/prompt_runner_packet.md":
      "---\nname: pk\nprofile: simulated-default\nrepos:\n  app: {path: .., default: true}\n---\n",
    "pk/prompts/01_a.prompt.md": `---\nverify:\n  files_exist: [a.txt]\nsimulate:\n  attempts:\n    - ${
      slowStep(60, 150, `, writes: [{path: a.txt, text: "a"}]`)
    }\n---\n# A\n`,
  });
  const env = { HOME: `${root}/home`, XDG_DATA_HOME: `${root}/data`, XDG_STATE_HOME: `${root}/state` };
  return { repo, env };
}

Deno.test("start detaches a packet run, prints {run_id, pid, store_root} and refuses a second start with exit 5", async () => {
  await using dir = await tempDir();
  const { repo, env } = await slowRepo(dir.path);
  const start = await runCli(["start", `${repo}/pk`], { env });
  assert.equal(start.code, 0, start.stderr);
  const m = /^Started run (\S+) in the background \(pid (\d+)\); store (\S+); log (\S+)$/m.exec(start.stdout);
  assert.ok(m, start.stdout);
  const [, runId, pid, store, log] = m;
  assert.equal(store, `${repo}/pk/.prompt_runner`);
  try {
    assert.match(log!, new RegExp(`^${store}/logs/runner-\\d{8}-\\d{6}\\.log$`));
    const again = await runCli(["start", `${repo}/pk`, "--json"], { env });
    assert.equal(again.code, 5, again.stderr);
    assert.match(again.stderr, new RegExp(`pk is already being run by pid ${pid}`));
    assert.equal((parseJsonOut(again).error as { code: string }).code, "lease_held");
    const stop = await runCli(["stop", `${repo}/pk`], { env });
    assert.equal(stop.code, 0, stop.stderr);
    assert.match(stop.stdout, new RegExp(`Stopped run ${runId}`));
    assert.match(await Deno.readTextFile(log!), /Prompt 01/);
  } finally {
    try {
      Deno.kill(Number(pid), "SIGKILL");
    } catch { /* already stopped */ }
  }
});

Deno.test("start reports a runner that fails before taking the lease with its exit code and log tail", async () => {
  await using dir = await tempDir();
  const repo = `${dir.path}/app`;
  await initRepo(repo, {
    "pk/prompt_runner_packet.md":
      "---\nname: pk\nprofile: simulated-default\nrepos:\n  app: {path: .., default: true}\n---\n",
    "pk/prompts/01_a.prompt.md": "---\nverify:\n  files_exist: [a.txt]\n---\n# A\n",
  });
  const r = await runCli(["start", `${repo}/pk`, "99"], { env: { HOME: `${dir.path}/home` } });
  assert.equal(r.code, 4, r.stderr);
  assert.match(r.stderr, /the detached runner exited with code 4 before holding the lease/);
  assert.match(r.stderr, /log: .*\/pk\/\.prompt_runner\/logs\/runner-/);
});

Deno.test("run --detach behaves as start: --json prints {run_id, pid, store_root} once the lease is up", async () => {
  await using dir = await tempDir();
  const { repo, env } = await slowRepo(dir.path);
  const r = await runCli(["run", `${repo}/pk`, "--detach", "--json"], { env });
  assert.equal(r.code, 0, r.stderr);
  const doc = parseJsonOut(r) as { run_id: string; pid: number; store_root: string };
  assert.match(doc.run_id, /^\d{8}T\d{6}Z-[A-Z2-7]{6}$/);
  assert.equal(doc.store_root, `${repo}/pk/.prompt_runner`);
  try {
    const status = parseJsonOut(await runCli(["control", "status", `${repo}/pk`, "--json"], { env }));
    assert.equal(status.run_id, doc.run_id);
    assert.equal((status.lease as { state: string; pid: number }).pid, doc.pid);
    // The rollup tells a detached runner from one attached to a terminal (docs/reference/workspace.md §8.1 service line).
    const rollup = await runCli(["status", `${repo}/pk`], { env });
    assert.match(rollup.stdout, new RegExp(`\\n {2}service {4}detached · process up \\(pid ${doc.pid} on .+\\)\\n`));
    const rollupJson = parseJsonOut(await runCli(["status", `${repo}/pk`, "--json"], { env }));
    assert.deepEqual(rollupJson.service, { mode: "detached" });
    const stop = await runCli(["stop", `${repo}/pk`], { env });
    assert.equal(stop.code, 0, stop.stderr);
  } finally {
    try {
      Deno.kill(doc.pid, "SIGKILL");
    } catch { /* already stopped */ }
  }
});

Deno.test("runnerCommand(): a runner started under deno has its young generation capped (RUNNER_V8_FLAGS)", async () => {
  const deno = runnerCommand(["demo"], {
    denoFlags: [],
    execPath: "/usr/bin/deno",
    mainModule: "file:///opt/pr/main.ts",
  });
  for (const f of RUNNER_V8_FLAGS) assert.ok(deno.indexOf(f) > 1 && deno.indexOf(f) < deno.indexOf("/opt/pr/main.ts"));
  const compile: string = JSON.parse(Deno.readTextFileSync(new URL("../../deno.json", import.meta.url))).tasks.compile;
  for (const f of RUNNER_V8_FLAGS) assert.ok(compile.includes(f), `deno task compile lacks ${f}`);
  // The flag takes effect: a process that made garbage fast has a new space of at most 2 × 2 MB (V8's default: 16 MB).
  await using dir = await tempDir();
  const script = `${dir.path}/young.ts`;
  await Deno.writeTextFile(
    script,
    'import v8 from "node:v8";\nlet keep = [];\nfor (let i = 0; i < 1e6; i++) { keep.push({ i, s: "x" + i }); ' +
      "if (keep.length > 5000) keep = []; }\n" +
      'console.log(v8.getHeapSpaceStatistics().find((s) => s.space_name === "new_space").space_size);\n',
  );
  const size = async (flags: readonly string[]) => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--quiet", ...flags, script],
      stderr: "inherit",
    })
      .output();
    assert.ok(out.success);
    return Number(new TextDecoder().decode(out.stdout).trim());
  };
  const [capped, plain] = [await size(RUNNER_V8_FLAGS), await size([])];
  assert.ok(capped > 0 && capped <= 4 * 1024 * 1024, `capped new space: ${capped}`);
  assert.ok(plain > capped, `without the flag the new space grows past it (${plain})`);
});
