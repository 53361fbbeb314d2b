import assert from "node:assert/strict";
import { inspectPacket, loadPacket } from "../../src/packet/load.ts";
import { PacketError } from "../../src/errors.ts";
import { fixture } from "./_packet.ts";

const ENV = { env: {} };

async function packetError(name: string): Promise<PacketError> {
  try {
    await loadPacket(fixture(name), ENV);
  } catch (e) {
    assert.ok(e instanceof PacketError, `expected PacketError, got ${e}`);
    assert.equal(e.exit, 3);
    return e;
  }
  throw new Error(`${name} loaded without error`);
}

Deno.test("loadPacket() loads the prompt_runner_sdk recovery packet unchanged", async () => {
  const p = await loadPacket(fixture("sdk_recovery"), ENV);
  assert.equal(p.name, "simulated-recovery-packet");
  assert.equal(p.profile, "simulated-default");
  assert.deepEqual(p.prompts.map((q) => q.id), ["01", "02", "07", "10"]);
  assert.deepEqual(p.phases, { "1": "Automatic Recovery", "2": "Verifier Override", "3": "Session Recovery" });
  assert.equal(p.defaultRepo?.name, "app");
  assert.equal(p.defaultRepo?.path, `${p.dir}/workspace`);
  const [first, , seventh, tenth] = p.prompts;
  assert.equal(first!.options.provider, "simulated");
  assert.equal(first!.options.model, "simulated-demo");
  assert.equal(first!.options.permission_mode, "bypass");
  assert.equal(first!.commit, "docs: add capacity retry example output");
  assert.deepEqual(first!.verify.files_exist, ["retry.txt"]);
  assert.equal((first!.simulate?.attempts as unknown[]).length, 2);
  assert.equal(seventh!.options.recovery.retry.class_attempts.provider_runtime_claim, 1);
  assert.equal(seventh!.options.recovery.retry.class_attempts.provider_capacity, 5);
  assert.deepEqual(seventh!.dependsOn, ["01"]);
  assert.equal(tenth!.phase, 2);
  assert.equal(tenth!.sp, 3);
  assert.deepEqual(tenth!.verify.files_exist, ["override.txt"]);
  assert.equal(tenth!.name, "Verifier override after provider error");
  assert.equal(first!.cwd, `${p.dir}/workspace`);
  assert.deepEqual(p.warnings, []);
});

Deno.test("loadPacket() loads the multi-repo packet with list repos, aliases and legacy sections", async () => {
  const p = await loadPacket(fixture("sdk_multi_repo"), ENV);
  assert.deepEqual(p.repos.map((r) => r.name), ["alpha", "beta"]);
  assert.equal(p.defaultRepo?.name, "alpha");
  assert.equal(p.options.provider, "codex");
  assert.equal(p.options.permission_mode, "bypass");
  assert.equal(p.options.reasoning_effort, "low");
  assert.deepEqual(p.options.provider_opts.codex_thread_opts?.additional_directories, [`${p.dir}/repos/beta`]);
  const [one, two, three] = p.prompts;
  assert.deepEqual(one!.targets, ["alpha", "beta"]);
  assert.deepEqual(one!.legacyCommands, ["test -f NOTES.md"]);
  assert.equal(one!.commit, "feat: Create NOTES.md in both repositories.");
  assert.equal(two!.options.provider, "claude");
  assert.equal(two!.options.model, "claude-sonnet");
  assert.deepEqual(three!.legacyCommands, ["test -f CHANGELOG.md", "grep -q beta CHANGELOG.md"]);
  assert.equal(three!.commit, "feat(beta): add the changelog");
  assert.equal(three!.name, "Legacy Sections");
  assert.equal(three!.cwd, `${p.dir}/repos/alpha`);
  assert.deepEqual(
    p.warnings.map((w) => `${w.prompt_id}:${w.kind}`),
    [
      "01:legacy_repository_root_section",
      "01:legacy_validation_section",
      "01:inert_front_matter_key",
      "03:legacy_validation_section",
    ],
  );
});

Deno.test("loadPacket() reports a manifest YAML error with file, line and column", async () => {
  const e = await packetError("broken_manifest_yaml");
  assert.equal(e.code, "manifest_yaml_invalid");
  assert.equal(
    e.message,
    "invalid YAML in prompt_runner_packet.md at line 6, column 4: bad indentation of a mapping entry",
  );
  assert.equal(e.file, "prompt_runner_packet.md");
});

Deno.test("loadPacket() reports a prompt YAML error with file, line and column", async () => {
  const e = await packetError("broken_prompt_yaml");
  assert.equal(e.code, "prompt_yaml_invalid");
  assert.match(e.message, /^invalid YAML in prompts\/02_broken\.prompt\.md at line \d+, column \d+: /);
  assert.equal(e.file, "prompts/02_broken.prompt.md");
});

Deno.test("loadPacket() rejects duplicate ids naming both files", async () => {
  const e = await packetError("duplicate_ids");
  assert.equal(e.code, "duplicate_prompt_id");
  assert.equal(e.message, "duplicate prompt id 03: prompts/03_first.prompt.md and prompts/03_second.prompt.md");
});

Deno.test("loadPacket() rejects an unknown dependency", async () => {
  const e = await packetError("unknown_dependency");
  assert.equal(e.code, "unknown_dependency");
  assert.equal(e.message, "prompts/01_one.prompt.md: depends_on names unknown prompt 09; known: 01");
});

Deno.test("loadPacket() rejects a dependency cycle listing its ids", async () => {
  const e = await packetError("dependency_cycle");
  assert.equal(e.code, "dependency_cycle");
  assert.equal(e.message, "dependency cycle: 02 → 03 → 02");
});

Deno.test("loadPacket() rejects an unknown target repo", async () => {
  const e = await packetError("unknown_target_repo");
  assert.equal(e.code, "unknown_target_repo");
  assert.equal(
    e.message,
    'prompts/01_one.prompt.md: target repo "lib" is not defined in prompt_runner_packet.md; known repos: app',
  );
});

Deno.test("loadPacket() rejects an invalid enum naming key, value and allowed values", async () => {
  const e = await packetError("bad_enum");
  assert.equal(e.code, "invalid_option_value");
  assert.equal(e.message, 'prompt_runner_packet.md: log_mode is "loud"; expected one of compact, verbose, studio');
  assert.equal(e.key, "log_mode");
});

Deno.test("inspectPacket() keeps loading the other prompts after a broken prompt", async () => {
  const r = await inspectPacket(fixture("broken_prompt_yaml"), ENV);
  assert.deepEqual(r.packet?.prompts.map((p) => p.id), ["01"]);
  assert.deepEqual(r.findings.map((f) => f.kind), ["prompt_yaml_invalid"]);
});
