/** `workspace plan` and `workspace doctor`, black-box: what they report, their exit codes, and that they write nothing. */
import assert from "node:assert/strict";
import { parseJsonOut, runCli } from "../support/cli.ts";
import { git, tempDir, writeFiles } from "../support/fs.ts";
import { workspaceFixture } from "../workspace/fixture.ts";

/**
 * Every path under `root` (directories too) with the sha256 of each file, `.git` internals included; `home/` is left
 * out (Deno's own cache lives under the test's HOME).
 */
async function diskDigest(root: string): Promise<string> {
  const script = "find . -path ./home -prune -o -type d -print | sort; " +
    "find . -path ./home -prune -o -type f -print0 | sort -z | xargs -0 sha256sum";
  const out = await new Deno.Command("bash", { args: ["-c", script], cwd: root, stdout: "piped" }).output();
  return new TextDecoder().decode(out.stdout);
}

interface PlanRepo {
  name: string;
  action: string;
  steps: string[];
  problem: string | null;
  head: string | null;
}

Deno.test("workspace plan says what prepare would do and writes nothing, before and after prepare", async () => {
  await using dir = await tempDir();
  const f = await workspaceFixture(dir.path);
  const runtime = `${dir.path}/state/prompt_runner/workspaces/op-ws`;

  const before = await diskDigest(dir.path);
  const r = await runCli(["workspace", "plan", f.manifest, "--json"], { env: f.env });
  assert.equal(r.code, 0, r.stderr);
  const plan = parseJsonOut(r);
  assert.equal(plan.schema, "prompt_runner.workspace.plan/v1");
  const repos = plan.repositories as PlanRepo[];
  assert.deepEqual(repos.map((x) => [x.name, x.action]), [["app", "clone"]]);
  assert.match(repos[0]!.steps[0]!, new RegExp(`^clone ${f.author} `));
  assert.equal(plan.runtime_root, runtime);
  assert.equal(plan.runtime_root_exists, false);
  assert.ok((plan.writes as string[]).includes(runtime), "the runtime root is listed as created");
  assert.deepEqual(plan.packet, { repo: "app", path: "packets/op", store_root: f.store, store_exists: false });
  assert.equal(await diskDigest(dir.path), before, "plan wrote nothing");
  assert.equal(await Deno.stat(runtime).then(() => true, () => false), false, "no runtime root");

  const human = await runCli(["workspace", "plan", f.manifest], { env: f.env });
  assert.equal(human.code, 0, human.stderr);
  assert.match(human.stdout, /^ {2}clone {2}app → /m);
  assert.match(human.stdout, /prepare would go through; nothing was written/);

  assert.equal((await runCli(["workspace", "prepare", f.manifest], { env: f.env })).code, 0);
  const head = await git(f.clone, "rev-parse", "HEAD");
  const byId = await runCli(["workspace", "plan", "op-ws", "--json"], { env: f.env });
  assert.equal(byId.code, 0, byId.stderr);
  const again = parseJsonOut(byId);
  assert.deepEqual((again.repositories as PlanRepo[]).map((x) => [x.action, x.head]), [["update", head]]);
  assert.equal(again.runtime_root_exists, true);
  const discovered = await runCli(["workspace", "plan", "--json"], { env: f.env, cwd: f.clone });
  assert.equal(discovered.code, 0, discovered.stderr);
  assert.equal(parseJsonOut(discovered).workspace, "op-ws", "without a target: the workspace of the current directory");

  // Uncommitted work in the clone: prepare would refuse, and plan says so (exit 1) without touching the index.
  await Deno.writeTextFile(`${f.clone}/WIP.txt`, "unfinished\n");
  const dirty = await diskDigest(dir.path);
  const refused = await runCli(["workspace", "plan", "op-ws", "--json"], { env: f.env });
  assert.equal(refused.code, 1, refused.stderr);
  const p = parseJsonOut(refused);
  assert.equal((p.repositories as PlanRepo[])[0]!.action, "refuse");
  assert.match(String((p.refusals as string[])[0]), /^app: 1 uncommitted path\(s\); prepare never discards work/);
  assert.equal(p.ok, false);
  assert.equal(await diskDigest(dir.path), dirty, "plan of a prepared workspace wrote nothing either");
});

Deno.test("workspace plan names an unknown workspace and an invalid manifest", async () => {
  await using dir = await tempDir();
  const f = await workspaceFixture(dir.path, { manifestExtra: "surprise: 1\n" });
  const unknown = await runCli(["workspace", "plan", "nosuch", "--json"], { env: f.env });
  assert.equal(unknown.code, 4);
  assert.match(unknown.stderr, /unknown workspace "nosuch"/);
  const bad = await runCli(["workspace", "plan", f.manifest], { env: f.env });
  assert.equal(bad.code, 3);
  assert.match(bad.stderr, new RegExp(`${f.manifest}: surprise: unknown key`));
});

interface DoctorRepo {
  name: string;
  ready: boolean;
  branch: string | null;
  dirty: string[];
  warnings: string[];
  errors: string[];
}

interface Pin {
  tool: string;
  required: string[];
  file: string;
  line: number;
  probe: string | null;
  ready: boolean;
  error: string | null;
}

Deno.test("workspace doctor: not prepared, ready, dirty as resumable work, pinned tools, wrong ref, runtime root", async () => {
  await using dir = await tempDir();
  const f = await workspaceFixture(dir.path, { files: { ".tool-versions": "# runtimes\nnodejs 20.11.0\n" } });
  // A version manager that reports nodejs 20.11.0 wherever it is asked.
  await writeFiles(dir.path, {
    "bin/asdf": '#!/bin/sh\n[ "$1" = current ] && echo "$2 20.11.0 (set by .tool-versions)"\n',
  });
  await Deno.chmod(`${dir.path}/bin/asdf`, 0o755);
  const env = { ...f.env, PATH: `${dir.path}/bin:${Deno.env.get("PATH") ?? ""}` };
  const doctor = async (want: number) => {
    const r = await runCli(["workspace", "doctor", f.manifest, "--json"], { env });
    assert.equal(r.code, want, r.stdout + r.stderr);
    const d = parseJsonOut(r);
    assert.equal(d.schema, "prompt_runner.workspace.doctor/v1");
    return d as { ready: boolean; repositories: DoctorRepo[]; toolchains: { pins: Pin[] }; runtime_root: never };
  };

  const unprepared = await doctor(1);
  assert.equal(unprepared.ready, false);
  assert.match(unprepared.repositories[0]!.errors[0]!, /clone missing/);

  assert.equal((await runCli(["workspace", "prepare", f.manifest], { env })).code, 0);
  const ready = await doctor(0);
  assert.deepEqual(ready.toolchains.pins.map((p) => [p.tool, p.required, p.file, p.line, p.probe, p.ready]), [
    ["nodejs", ["20.11.0"], `${f.clone}/.tool-versions`, 2, "asdf current nodejs", true],
  ]);

  // Uncommitted work is resumable: a warning, still ready; and doctor writes nothing.
  await Deno.writeTextFile(`${f.clone}/DIRTY.txt`, "work in progress\n");
  const before = await diskDigest(dir.path);
  const dirty = await doctor(0);
  assert.deepEqual(dirty.repositories[0]!.dirty, ["DIRTY.txt"]);
  assert.match(dirty.repositories[0]!.warnings[0]!, /resumable work/);
  assert.equal(await diskDigest(dir.path), before, "doctor wrote nothing");
  const human = await runCli(["workspace", "doctor", "op-ws"], { env });
  assert.equal(human.code, 0, human.stderr);
  assert.match(human.stdout, /warning: 1 uncommitted path\(s\): resumable work/);
  assert.match(human.stdout, /^ready$/m);

  // A pin the installed toolchain does not satisfy.
  await writeFiles(f.clone, { "svc/.tool-versions": "nodejs 18.0.0\n" });
  const pinned = await doctor(1);
  const bad = pinned.toolchains.pins.find((p) => p.file === `${f.clone}/svc/.tool-versions`)!;
  assert.equal(bad.ready, false);
  assert.match(bad.error!, /wants 18\.0\.0, found "nodejs 20\.11\.0/);
  await Deno.remove(`${f.clone}/svc`, { recursive: true });

  // Off the pinned ref.
  await git(f.clone, "checkout", "-q", "-b", "elsewhere");
  const offRef = await doctor(1);
  assert.deepEqual(offRef.repositories[0]!.errors, ["on branch elsewhere, pinned ref is main"]);
  await git(f.clone, "checkout", "-q", "main");

  // A clone replaced by a link to a checkout elsewhere.
  await Deno.rename(f.clone, `${f.clone}.moved`);
  await Deno.symlink(`${f.clone}.moved`, f.clone);
  const linked = await doctor(1);
  assert.equal(linked.repositories[0]!.errors[0], `${f.clone} is a symbolic link, not a clone of this workspace`);
  await Deno.remove(f.clone);
  await Deno.rename(`${f.clone}.moved`, f.clone);

  // A runtime root this user cannot write.
  const runtime = `${dir.path}/state/prompt_runner/workspaces/op-ws`;
  await Deno.chmod(runtime, 0o500);
  try {
    const locked = await doctor(1);
    assert.deepEqual(locked.runtime_root, {
      path: runtime,
      exists: true,
      writable: false,
      error: "not writable by this user",
    });
  } finally {
    await Deno.chmod(runtime, 0o700);
  }
  await doctor(0);
});

Deno.test("workspace doctor is not ready when the clone's HEAD no longer holds the bound packet (a run could not load it)", async () => {
  await using dir = await tempDir();
  const f = await workspaceFixture(dir.path);
  assert.equal((await runCli(["workspace", "prepare", f.manifest], { env: f.env })).code, 0);
  const ok = await runCli(["workspace", "doctor", f.manifest, "--json"], { env: f.env });
  assert.equal(ok.code, 0, ok.stdout);
  assert.deepEqual((parseJsonOut(ok).packet as { error: unknown }).error, null);

  await git(f.clone, "rm", "-rq", "packets/op");
  await git(f.clone, "commit", "-qm", "drop the packet");
  const r = await runCli(["workspace", "doctor", f.manifest, "--json"], { env: f.env });
  assert.equal(r.code, 1, r.stdout);
  const d = parseJsonOut(r) as { ready: boolean; packet: { dir: string; error: string } };
  assert.equal(d.ready, false);
  assert.equal(d.packet.dir, `${f.clone}/packets/op`);
  assert.equal(d.packet.error, "not a packet: no prompt_runner_packet.md in clone app (packet.path: packets/op)");
  const human = await runCli(["workspace", "doctor", f.manifest], { env: f.env });
  assert.equal(human.code, 1);
  assert.match(human.stdout, /^ {2}FAIL packet .*packets\/op — not a packet: no prompt_runner_packet\.md/m);
  assert.match(human.stdout, /^not ready$/m);
});

Deno.test("workspace doctor and plan show text from a clone's files (origin, tool pins) with control characters escaped", async () => {
  await using dir = await tempDir();
  const f = await workspaceFixture(dir.path);
  assert.equal((await runCli(["workspace", "prepare", f.manifest], { env: f.env })).code, 0);
  await git(f.clone, "remote", "set-url", "origin", "/x\x1b[2Jevil");
  await Deno.writeTextFile(`${f.clone}/.tool-versions`, "node\x1b]0;title\x07 1.0\n");
  const env = { ...f.env, PATH: Deno.env.get("PATH") ?? "" };
  for (const command of ["doctor", "plan"]) {
    const r = await runCli(["workspace", command, f.manifest], { env });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    // deno-lint-ignore no-control-regex
    assert.ok(!/[\x07\x1b]/.test(r.stdout), `${command}: ${JSON.stringify(r.stdout)}`);
    assert.ok(r.stdout.includes('origin is "/x\\x1b[2Jevil"'), `${command}: ${r.stdout}`);
  }
  const doctor = await runCli(["workspace", "doctor", f.manifest], { env });
  assert.ok(doctor.stdout.includes("node\\x1b]0;title\\x07"), doctor.stdout);
});
