import assert from "node:assert/strict";
import { basename } from "node:path";
import { parseJsonOut, runCli } from "../support/cli.ts";
import { tempDir, writeFiles } from "../support/fs.ts";
import { promptText, treeSnapshot, writePacket } from "../packet/_packet.ts";
import { loadPacket } from "../../src/packet/load.ts";
import { packetFingerprint } from "../../src/packet/fingerprint.ts";

const RUN_ID = "20261130T120501Z-7QK2MD";

async function demo(root: string): Promise<string> {
  return await writePacket(root, "name: demo\nprofile: simulated-default\nrepos: {app: {path: ./app}}\n", {
    "01_setup.prompt.md": promptText("phase: 1\n", "# Setup\n"),
    "03_protocol_drop.prompt.md": promptText("phase: 3\n", "# Protocol drop\n"),
    "04_auth_claim.prompt.md": promptText("phase: 4\ndepends_on: [3]\n", "# Auth claim\n"),
    "05_model_unavailable.prompt.md": promptText("phase: 4\nmodel: gpt-5\nprovider: codex\n", "# Model unavailable\n"),
  });
}

async function writeRunRecord(root: string, state: string, fingerprint: string, ids: string[]) {
  await writeFiles(`${root}/.prompt_runner`, {
    "runs/current.json": JSON.stringify({ run_id: RUN_ID, path: `runs/${RUN_ID}/run.json` }),
    [`runs/${RUN_ID}/run.json`]: JSON.stringify({
      schema: "prompt_runner.run/v1",
      run_id: RUN_ID,
      state,
      packet_fingerprint: fingerprint,
      selection: { ids, selectors: { remaining: true } },
      created_at: "2026-11-30T12:05:01.000Z",
      updated_at: "2026-11-30T12:06:01.000Z",
      resumed_at: [],
      reason: "prompt_failed",
    }),
    "progress.log": "01:completed:2026-11-30T12:05:04.019Z:no_session\n",
  });
}

Deno.test("plan prints the header and the selected prompts in execution order", async () => {
  await using t = await tempDir();
  await demo(t.path);
  const r = await runCli(["plan", t.path, "4", "3", "5"]);
  assert.equal(r.stderr, "");
  assert.equal(r.code, 0);
  assert.equal(
    r.stdout,
    [
      `Plan for ${basename(t.path)} (${t.path})`,
      "  prompts   4 in packet, 3 selected (03, 04, 05)",
      "  provider  simulated / simulated-demo",
      `  store     ${t.path}/.prompt_runner`,
      "  run       would start a new run",
      "  allow-run  git,codex,cat,/bin/sh,kill",
      "  03  Protocol drop      phase 3  [app]",
      "  04  Auth claim         phase 4  [app]   depends on 03",
      "  05  Model unavailable  phase 4  [app]",
      "",
    ].join("\n"),
  );
});

Deno.test("plan --json gives packet, store_root, selected, prompts and run", async () => {
  await using t = await tempDir();
  await demo(t.path);
  const r = await runCli(["plan", "--json", "--phase", "4", "--model", "flag-model"], { cwd: t.path });
  assert.equal(r.code, 0);
  assert.deepEqual(parseJsonOut(r), {
    packet: "demo",
    store_root: `${t.path}/.prompt_runner`,
    selected: ["04", "05"],
    prompts: [
      {
        id: "04",
        name: "Auth claim",
        phase: 4,
        targets: ["app"],
        depends_on: ["03"],
        provider: "simulated",
        model: "flag-model",
      },
      {
        id: "05",
        name: "Model unavailable",
        phase: 4,
        targets: ["app"],
        depends_on: [],
        provider: "codex",
        model: "flag-model",
      },
    ],
    run: { action: "new", run_id: null },
    permissions: { run: ["git", "codex", "cat", "/bin/sh", "kill"] },
  });
});

Deno.test("plan --remaining says it would resume a failed run with an unchanged packet", async () => {
  await using t = await tempDir();
  await demo(t.path);
  const fp = await packetFingerprint(await loadPacket(t.path, { env: {} }));
  await writeRunRecord(t.path, "failed", fp, ["01", "03", "04", "05"]);
  const r = await runCli(["plan", t.path, "--remaining", "--json"]);
  assert.equal(r.code, 0, r.stderr);
  const doc = parseJsonOut(r);
  assert.deepEqual(doc.selected, ["03", "04", "05"]);
  assert.deepEqual(doc.run, { action: "resume", run_id: RUN_ID });
  const human = await runCli(["plan", t.path, "--remaining"]);
  assert.match(human.stdout, new RegExp(`  run       would resume ${RUN_ID}\n`));
  const fresh = await runCli(["plan", t.path, "--remaining", "--new-run", "--json"]);
  assert.deepEqual(parseJsonOut(fresh).run, { action: "new", run_id: null });
});

Deno.test("plan --remaining starts a new run when the packet changed since the failed run", async () => {
  await using t = await tempDir();
  await demo(t.path);
  await writeRunRecord(t.path, "failed", "stale-fingerprint", ["01", "03", "04", "05"]);
  const r = await runCli(["plan", t.path, "--remaining"]);
  assert.match(r.stdout, new RegExp(`  run       would start a new run \\(packet changed since run ${RUN_ID}\\)\n`));
});

Deno.test("plan exits 4 for an unknown prompt id and 2 for an invalid flag value", async () => {
  await using t = await tempDir();
  await demo(t.path);
  const unknown = await runCli(["plan", t.path, "12", "--json"]);
  assert.equal(unknown.code, 4);
  assert.equal(unknown.stderr, "error: unknown prompt 12; known: 01, 03, 04, 05\n");
  assert.deepEqual(parseJsonOut(unknown).error, {
    code: "unknown_prompt",
    message: "unknown prompt 12; known: 01, 03, 04, 05",
    hint: null,
    exit: 4,
    prompt: "12",
  });
  const bad = await runCli(["plan", t.path, "--log-mode", "loud"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^error: --log-mode does not take "loud"; allowed: compact, verbose, studio\n/);
  const phase = await runCli(["plan", t.path, "--phase", "x"]);
  assert.equal(phase.code, 2);
});

Deno.test("plan exits 3 on an invalid packet and 4 on a target that does not resolve", async () => {
  await using t = await tempDir();
  await writePacket(t.path, "name: bad\nprovider: nope\n", {});
  const r = await runCli(["plan", t.path]);
  assert.equal(r.code, 3);
  assert.match(r.stderr, /^error: prompt_runner_packet\.md: provider is "nope"; expected one of/);
  const missing = await runCli(["plan", `${t.path}/nowhere/`]);
  assert.equal(missing.code, 4);
  assert.equal(
    (parseJsonOut(await runCli(["plan", "x.yml", "--json"], { cwd: t.path })).error as { code: string }).code,
    "target_not_found",
  );
});

Deno.test("plan writes nothing to disk", async () => {
  await using t = await tempDir();
  await demo(t.path);
  await writeRunRecord(t.path, "failed", "x", ["01"]);
  const before = await treeSnapshot(t.path);
  assert.equal((await runCli(["plan", t.path, "--remaining"])).code, 0);
  assert.deepEqual(await treeSnapshot(t.path), before);
});

Deno.test("plan reads the store while the packet loads, yet reports the packet's error first, then the store's", async () => {
  await using t = await tempDir();
  await demo(t.path);
  await writeFiles(`${t.path}/.prompt_runner`, { "progress.log": "this is not a progress line\n" });
  const badProgress = await runCli(["plan", t.path, "--remaining"]);
  assert.notEqual(badProgress.code, 0);
  assert.match(badProgress.stderr, /progress\.log/);
  assert.doesNotMatch(badProgress.stderr, /unhandled|Uncaught/i);
  // The same store with a packet that does not load: the packet's error, as before the reads overlapped.
  await Deno.writeTextFile(`${t.path}/prompt_runner_packet.md`, "---\nname: bad\nprovider: nope\n---\n");
  const badPacket = await runCli(["plan", t.path, "--remaining"]);
  assert.equal(badPacket.code, 3);
  assert.match(badPacket.stderr, /^error: prompt_runner_packet\.md: provider is "nope"; expected one of/);
  assert.doesNotMatch(badPacket.stderr, /progress\.log|unhandled|Uncaught/i);
});

Deno.test("plan shows run's lint refusal: the plan, then the same error and exit 3; --json carries it as refused", async () => {
  await using t = await tempDir();
  await writePacket(t.path, "name: demo\nprofile: simulated-default\nrepos: {app: {path: ./app}}\n", {
    "01_ok.prompt.md": promptText("verify:\n  files_exist: [a.txt]\n", "# Ok\n"),
    "02_typo.prompt.md": promptText("verify:\n  file_exists: [b.txt]\n", "# Typo\n"),
  });
  const run = await runCli(["run", t.path, "--dry-run"]);
  assert.equal(run.code, 3, run.stderr);
  const plan = await runCli(["plan", t.path]);
  assert.equal(plan.code, 3, plan.stderr);
  assert.match(plan.stdout, /^ {2}run {7}would refuse to run \(exit 3; the refusal is below\)$/m);
  assert.match(plan.stdout, /^ {2}02 {2}Typo/m, "the plan is still shown whole");
  const firstLine = (s: string) => s.split("\n").find((l) => l.startsWith("error: "));
  assert.equal(firstLine(plan.stderr), firstLine(run.stderr), "the same refusal as run's");
  assert.match(
    plan.stderr,
    /02_typo\.prompt\.md: verify\.file_exists: "file_exists" is not a verify clause; did you mean "files_exist"\?/,
  );
  const json = await runCli(["plan", t.path, "--json"]);
  assert.equal(json.code, 3, json.stderr);
  const doc = parseJsonOut(json);
  const refused = doc.refused as Record<string, unknown>;
  assert.equal(refused.code, "unknown_verify_clause");
  assert.equal(refused.file, "prompts/02_typo.prompt.md");
  assert.equal(refused.key, "verify.file_exists");
  assert.equal(refused.exit, 3);
  assert.deepEqual(doc.selected, ["01", "02"]);
  // Selecting only the clean prompt: run would run it, and plan says so.
  const one = await runCli(["plan", t.path, "01", "--json"]);
  assert.equal(one.code, 0, one.stderr);
  assert.equal(parseJsonOut(one).refused, undefined);
  // --strict: warnings refuse too, as run --strict.
  const strict = await runCli(["plan", t.path, "01", "--strict"]);
  const runStrict = await runCli(["run", t.path, "01", "--strict", "--dry-run"]);
  assert.equal(strict.code, 3, strict.stderr);
  assert.equal(runStrict.code, 3, runStrict.stderr);
  assert.equal(firstLine(strict.stderr), firstLine(runStrict.stderr));
});
