import assert from "node:assert/strict";
import { basename } from "node:path";
import { parseJsonOut, runCli } from "../support/cli.ts";
import { initRepo, tempDir } from "../support/fs.ts";
import { promptText, treeSnapshot, writePacket } from "../packet/_packet.ts";

const VERIFIED = "verify: {files_exist: [a.txt], contains: [{path: a.txt, text: a}]}\n";

/** One packet hazard: the packet to write and the finding `packet lint` must report. */
interface Hazard {
  kind: string;
  severity: "error" | "warning";
  manifest?: string;
  prompts: Record<string, string>;
  file: string;
}

const HAZARDS: Hazard[] = [
  {
    kind: "manifest_yaml_invalid",
    severity: "error",
    manifest: "name: [x\n",
    prompts: {},
    file: "prompt_runner_packet.md",
  },
  {
    kind: "prompt_yaml_invalid",
    severity: "error",
    prompts: { "01_a.prompt.md": "---\nid: [1\n---\n# A\n" },
    file: "prompts/01_a.prompt.md",
  },
  {
    kind: "invalid_prompt_id",
    severity: "error",
    prompts: { "01_a.prompt.md": promptText(`id: one\n${VERIFIED}`) },
    file: "prompts/01_a.prompt.md",
  },
  {
    kind: "duplicate_prompt_id",
    severity: "error",
    prompts: { "01_a.prompt.md": promptText(VERIFIED), "01_b.prompt.md": promptText(VERIFIED) },
    file: "prompts/01_b.prompt.md",
  },
  {
    kind: "prompt_id_filename_mismatch",
    severity: "error",
    prompts: { "01_a.prompt.md": promptText(`id: 2\n${VERIFIED}`) },
    file: "prompts/01_a.prompt.md",
  },
  {
    kind: "prompt_filename_without_prefix",
    severity: "error",
    prompts: { "alpha.prompt.md": promptText(`id: 1\n${VERIFIED}`) },
    file: "prompts/alpha.prompt.md",
  },
  {
    kind: "unknown_target_repo",
    severity: "error",
    prompts: { "01_a.prompt.md": promptText(`targets: [nowhere]\n${VERIFIED}`) },
    file: "prompts/01_a.prompt.md",
  },
  {
    kind: "repo_group_in_targets",
    severity: "error",
    prompts: { "01_a.prompt.md": promptText(`targets: ["@group"]\n${VERIFIED}`) },
    file: "prompts/01_a.prompt.md",
  },
  {
    kind: "unknown_dependency",
    severity: "error",
    prompts: { "01_a.prompt.md": promptText(`depends_on: [7]\n${VERIFIED}`) },
    file: "prompts/01_a.prompt.md",
  },
  {
    kind: "dependency_cycle",
    severity: "error",
    prompts: {
      "01_a.prompt.md": promptText(`depends_on: [2]\n${VERIFIED}`),
      "02_b.prompt.md": promptText(`depends_on: [1]\n${VERIFIED}`),
    },
    file: "prompts/01_a.prompt.md",
  },
  {
    kind: "invalid_option_value",
    severity: "error",
    manifest: "diff: lots\n",
    prompts: {},
    file: "prompt_runner_packet.md",
  },
  {
    kind: "invalid_provider",
    severity: "error",
    manifest: "provider: gemini\n",
    prompts: {},
    file: "prompt_runner_packet.md",
  },
  {
    kind: "invalid_option_value",
    severity: "error",
    manifest: "agent_control: {enabled: true}\n",
    prompts: {},
    file: "prompt_runner_packet.md",
  },
  {
    kind: "agent_owned_commands",
    severity: "error",
    manifest: "execution: {completion: agent_owned, incomplete: repeat}\n",
    prompts: { "01_a.prompt.md": promptText("verify: {files_exist: [a.txt], commands: [{exec: test, args: []}]}\n") },
    file: "prompts/01_a.prompt.md",
  },
  {
    kind: "inert_front_matter_key",
    severity: "warning",
    prompts: { "01_a.prompt.md": promptText(`required_reading: [docs/x.md]\n${VERIFIED}`) },
    file: "prompts/01_a.prompt.md",
  },
  {
    kind: "unknown_manifest_key",
    severity: "warning",
    manifest: "colour: blue\n",
    prompts: {},
    file: "prompt_runner_packet.md",
  },
  {
    kind: "unknown_provider_option",
    severity: "warning",
    manifest: "claude_opts: {turbo: true}\n",
    prompts: {},
    file: "prompt_runner_packet.md",
  },
  {
    kind: "legacy_validation_section",
    severity: "warning",
    prompts: { "01_a.prompt.md": promptText("", "# A\n\n## Validation Commands\n\n- make test\n") },
    file: "prompts/01_a.prompt.md",
  },
  {
    kind: "legacy_repository_root_section",
    severity: "warning",
    prompts: { "01_a.prompt.md": promptText(VERIFIED, "# A\n\n## Repository Root\n\n- ./app\n") },
    file: "prompts/01_a.prompt.md",
  },
  {
    kind: "multiple_default_repos",
    severity: "warning",
    manifest: "repos: {app: {path: ./app, default: true}, lib: {path: ./lib, default: true}}\n",
    prompts: {},
    file: "prompt_runner_packet.md",
  },
  {
    kind: "prompt_without_verify",
    severity: "warning",
    prompts: { "01_a.prompt.md": promptText("") },
    file: "prompts/01_a.prompt.md",
  },
];

for (const h of HAZARDS) {
  Deno.test(`packet lint reports ${h.kind} as ${h.severity}`, async () => {
    await using t = await tempDir();
    const manifest = h.manifest ?? "";
    const repos = /repos:/.test(manifest) || /\[x$/m.test(manifest)
      ? ""
      : "repos: {app: {path: ./app, default: true}}\n";
    // A packet without prompts is an error of its own (packet_without_prompts): a manifest hazard gets a clean prompt.
    const prompts = Object.keys(h.prompts).length > 0 ? h.prompts : { "01_a.prompt.md": promptText(VERIFIED) };
    await writePacket(t.path, `name: hz\n${repos}${manifest}`, prompts);
    const r = await runCli(["packet", "lint", t.path, "--json"]);
    const doc = parseJsonOut(r);
    const findings = doc.findings as Record<string, unknown>[];
    const hit = findings.find((f) => f.kind === h.kind);
    assert.ok(hit, `no ${h.kind} in ${JSON.stringify(findings)}`);
    assert.equal(hit.severity, h.severity);
    assert.equal(hit.file, h.file);
    assert.equal(typeof hit.message, "string");
    assert.equal(r.code, h.severity === "error" ? 3 : 0);
    assert.equal(doc.pass, h.severity !== "error");
  });
}

Deno.test("packet lint prints the human report of docs/reference/cli.md §3.8", async () => {
  await using t = await tempDir();
  await writePacket(t.path, "name: demo\nrepos: {app: {path: ./app}}\n", {
    "01_a.prompt.md": promptText(`id: 2\n${VERIFIED}`),
    "03_c.prompt.md": promptText("references: [x]\n" + VERIFIED),
  });
  const r = await runCli(["packet", "lint", t.path]);
  assert.equal(r.code, 3);
  assert.equal(
    r.stdout,
    [
      `Packet lint: ${basename(t.path)} (${t.path})`,
      "  ERROR    prompts/01_a.prompt.md  prompt_id_filename_mismatch",
      "           prompt id 02 does not match the file name prefix 01",
      "  WARNING  prompts/03_c.prompt.md  inert_front_matter_key",
      "           references is accepted but never used or sent to the agent",
      "1 error, 1 warning",
      "",
    ].join("\n"),
  );
});

Deno.test("packet lint --strict turns warnings into errors", async () => {
  await using t = await tempDir();
  await writePacket(t.path, "name: demo\ncolour: blue\n", { "01_a.prompt.md": promptText(VERIFIED) });
  const lax = await runCli(["packet", "lint", t.path, "--json"]);
  assert.equal(lax.code, 0);
  assert.deepEqual([parseJsonOut(lax).errors, parseJsonOut(lax).warnings], [0, 1]);
  const strict = await runCli(["packet", "lint", t.path, "--strict", "--json"]);
  assert.equal(strict.code, 3);
  const doc = parseJsonOut(strict);
  assert.deepEqual([doc.strict, doc.pass, doc.errors, doc.warnings], [true, false, 1, 0]);
  assert.equal((doc.findings as { severity: string }[])[0]!.severity, "error");
});

Deno.test("packet lint passes the shipped SDK fixture and writes nothing", async () => {
  const dir = new URL("../fixtures/packets/sdk_recovery", import.meta.url).pathname;
  const before = await treeSnapshot(dir);
  const r = await runCli(["packet", "lint", dir]);
  assert.equal(r.code, 0, r.stdout);
  assert.match(r.stdout, /\n0 errors, \d+ warnings?\n$/);
  assert.deepEqual(await treeSnapshot(dir), before);
});

async function readyPacket(root: string): Promise<void> {
  await initRepo(`${root}/app`);
  await writePacket(root, "name: ready\nprofile: simulated-default\nrepos: {app: {path: ./app, default: true}}\n", {
    "01_a.prompt.md": promptText(`targets: [app]\n${VERIFIED}`),
  });
}

Deno.test("packet preflight reports a ready packet and exits 0", async () => {
  await using t = await tempDir();
  await readyPacket(t.path);
  const r = await runCli(["packet", "preflight", t.path, "--json"]);
  assert.equal(r.code, 0, r.stderr);
  const doc = parseJsonOut(r);
  assert.equal(doc.packet, "ready");
  assert.equal(doc.root, t.path);
  assert.equal(doc.manifest_path, `${t.path}/prompt_runner_packet.md`);
  assert.equal(doc.prompt_dir, `${t.path}/prompts`);
  assert.equal(doc.profile, "simulated-default");
  assert.equal(doc.provider, "simulated");
  assert.equal(doc.model, "simulated-demo");
  assert.equal((doc.lane as Record<string, unknown>).available, true);
  assert.deepEqual(doc.repos, [{
    name: "app",
    path: `${t.path}/app`,
    default: true,
    exists: true,
    directory: true,
    git: true,
    ready: true,
    errors: [],
  }]);
  assert.deepEqual(doc.readiness_errors, []);
  assert.equal(doc.runtime_ready, true);
  assert.deepEqual(doc.prompt_files, [`${t.path}/prompts/01_a.prompt.md`]);
  assert.deepEqual(doc.authoring_warnings, []);
  const human = await runCli(["packet", "preflight", t.path]);
  assert.equal(human.code, 0);
  assert.ok(human.stdout.startsWith(`Preflight: ${basename(t.path)} (${t.path})\n`), human.stdout);
  assert.match(human.stdout, /\n {2}prompts {3}1 file\n/, "one prompt file, in the singular");
  assert.match(human.stdout, /Runtime ready\.\n$/);
});

Deno.test("packet preflight exits 1 naming every repo problem", async () => {
  await using t = await tempDir();
  await Deno.mkdir(`${t.path}/plain`);
  await Deno.writeTextFile(`${t.path}/file`, "x");
  await writePacket(
    t.path,
    "name: broken\nprofile: simulated-default\nrepos:\n  plain: {path: ./plain}\n  gone: {path: ./gone}\n  file: {path: ./file}\n  nopath: {default: true}\n",
    {},
  );
  const r = await runCli(["packet", "preflight", t.path, "--json"]);
  assert.equal(r.code, 1);
  const doc = parseJsonOut(r);
  assert.equal(doc.runtime_ready, false);
  const errs = Object.fromEntries((doc.repos as { name: string; errors: string[] }[]).map((x) => [x.name, x.errors]));
  assert.deepEqual(errs, {
    file: ["not_a_directory"],
    gone: ["path_not_found"],
    nopath: ["missing_path"],
    plain: ["not_git_repo"],
  });
  const human = await runCli(["packet", "preflight", t.path]);
  assert.equal(human.code, 1);
  assert.match(human.stderr, /^error: preflight failed\n/);
  assert.match(
    human.stderr,
    new RegExp(
      `  repo plain \\(${t.path}/plain\\) is not inside a git work tree \\(make it a git repository: git -C \\S+ init && git -C \\S+ commit --allow-empty -m "initial commit"\\)\n`,
    ),
  );
});

Deno.test("packet preflight checks the packet dir when there are no repos", async () => {
  await using t = await tempDir();
  await writePacket(t.path, "name: norepo\nprofile: simulated-default\n", {});
  const r = await runCli(["packet", "preflight", t.path, "--json"]);
  assert.equal(r.code, 1);
  const repos = parseJsonOut(r).repos as { name: string; path: string; errors: string[] }[];
  assert.deepEqual(repos.map((x) => [x.name, x.path, x.errors]), [["default", t.path, ["not_git_repo"]]]);
});

Deno.test("packet doctor adds authoring warnings and exits 0", async () => {
  await using t = await tempDir();
  await initRepo(`${t.path}/app`);
  await initRepo(`${t.path}/lib`);
  await writePacket(
    t.path,
    "name: doc\nprofile: simulated-default\nrepos: {app: {path: ./app, default: true}, lib: {path: ./lib, default: true}}\n",
    {
      "01_a.prompt.md": promptText("", "# A\n\n<!-- prompt_runner:placeholder mission -->\n"),
    },
  );
  const r = await runCli(["packet", "doctor", t.path, "--json"]);
  assert.equal(r.code, 0, r.stderr);
  const doc = parseJsonOut(r);
  assert.deepEqual(
    (doc.authoring_warnings as { kind: string; prompt_id: string | null }[]).map((w) => [w.kind, w.prompt_id]),
    [["multiple_default_repos", null], ["prompt_no_targets", "01"], ["prompt_empty_verify", "01"], [
      "prompt_placeholder_body",
      "01",
    ]],
  );
  assert.equal(doc.authoring_ready, false);
  assert.equal(doc.runtime_ready, true);
  const human = await runCli(["packet", "doctor", t.path]);
  assert.ok(human.stdout.includes("  WARNING  prompts/01_a.prompt.md  prompt_placeholder_body\n"), human.stdout);
});

Deno.test("packet doctor reports no_prompts and no_default_repo, and exits 3 on a broken packet", async () => {
  await using t = await tempDir();
  await initRepo(`${t.path}/app`);
  await writePacket(t.path, "name: empty\nprofile: simulated-default\nrepos: {app: {path: ./app}}\n", {});
  const doc = parseJsonOut(await runCli(["packet", "doctor", t.path, "--json"]));
  assert.deepEqual((doc.authoring_warnings as { kind: string }[]).map((w) => w.kind), [
    "no_prompts",
    "no_default_repo",
  ]);
  await Deno.writeTextFile(`${t.path}/prompt_runner_packet.md`, "---\nname: [x\n---\n");
  const bad = await runCli(["packet", "doctor", t.path]);
  assert.equal(bad.code, 3);
  assert.match(bad.stderr, /^error: invalid YAML in prompt_runner_packet\.md at line \d+, column \d+/);
});

Deno.test("packet preflight and doctor write nothing to disk", async () => {
  await using t = await tempDir();
  await readyPacket(t.path);
  const before = await treeSnapshot(t.path);
  assert.equal((await runCli(["packet", "preflight", t.path])).code, 0);
  assert.equal((await runCli(["packet", "doctor", t.path, "--json"])).code, 0);
  assert.deepEqual(await treeSnapshot(t.path), before);
});

Deno.test("a packet that fails to load counts the errors it does not show, in the singular for one", async () => {
  for (const [n, more] of [[2, "1 more error;"], [3, "2 more errors;"]] as const) {
    await using t = await tempDir();
    const prompts: Record<string, string> = {};
    for (let i = 1; i <= n; i++) prompts[`0${i}_p.prompt.md`] = promptText(`id: ${i}\ntargets: [nope]\n`);
    await writePacket(t.path, "name: demo\nrepos: {app: {path: ./app}}\n", prompts);
    const r = await runCli(["list", t.path]);
    assert.equal(r.code, 3);
    assert.ok(r.stderr.includes(`  ${more} run: prompt_runner packet lint ${t.path}`), r.stderr);
  }
});

Deno.test("every command names a packet the same way: its directory, even when the manifest's name differs", async () => {
  await using t = await tempDir();
  await readyPacket(t.path); // the manifest says `name: ready`; the directory is the temp dir
  const label = basename(t.path);
  const heads: [string[], string][] = [
    [["plan", t.path], `Plan for ${label} (`],
    [["packet", "preflight", t.path], `Preflight: ${label} (`],
    [["packet", "doctor", t.path], `Doctor: ${label} (`],
    [["packet", "lint", t.path], `Packet lint: ${label} (`],
    [["list", t.path], `${label} (`],
    [["status", t.path], `  ${label} — NOT STARTED`],
  ];
  for (const [args, head] of heads) {
    const r = await runCli(args);
    assert.ok(r.stdout.startsWith(head), `${args.join(" ")}:\n${r.stdout}${r.stderr}`);
    assert.ok(!/\bready\b \(/.test(r.stdout), `${args.join(" ")} names the manifest's name: ${r.stdout}`);
  }
});

Deno.test("packet lint: validation as a lone string is an error (it would run no command); next to verify.commands a warning", async () => {
  await using dir = await tempDir();
  const str = await writePacket(`${dir.path}/a`, "name: a\nprovider: simulated\n", {
    "01_a.prompt.md": promptText('id: 1\nvalidation: "grep -q x f.txt"\n'),
  });
  const bad = await runCli(["packet", "lint", str, "--json"]);
  assert.equal(bad.code, 3, bad.stdout + bad.stderr);
  assert.match(bad.stdout, /validation must be a list of shell commands/);
  const both = await writePacket(`${dir.path}/b`, "name: b\nprovider: simulated\n", {
    "01_a.prompt.md": promptText('id: 1\nverify:\n  commands: [{exec: "true"}]\nvalidation: ["grep -q x f.txt"]\n'),
  });
  const warned = parseJsonOut(await runCli(["packet", "lint", both, "--json"])) as { findings?: { kind: string }[] };
  assert.ok(JSON.stringify(warned).includes("legacy_validation_ignored"), JSON.stringify(warned));
});
