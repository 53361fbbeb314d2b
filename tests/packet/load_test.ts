import assert from "node:assert/strict";
import { inspectPacket, loadPacket } from "../../src/packet/load.ts";
import { NotFoundError, PacketError, UsageError } from "../../src/errors.ts";
import { tempDir } from "../support/fs.ts";
import { promptText, writePacket } from "./_packet.ts";

const NO_ENV = { env: {} };

async function loadError(dir: string): Promise<PacketError> {
  try {
    await loadPacket(dir, NO_ENV);
  } catch (e) {
    if (e instanceof PacketError) return e;
    throw e;
  }
  throw new Error("loaded without error");
}

Deno.test("loadPacket() derives ids from id, num, the filename prefix, else 01, zero-padded", async () => {
  await using t = await tempDir();
  await writePacket(t.path, "name: ids\n", {
    "a.prompt.md": promptText("id: 7\n"),
    "b.prompt.md": promptText('num: "009"\n'),
    "123_c.prompt.md": promptText(""),
    "x.prompt.md": promptText(""),
  });
  const p = await loadPacket(t.path, NO_ENV);
  assert.deepEqual(p.prompts.map((q) => q.id), ["01", "07", "09", "123"]);
});

Deno.test("loadPacket() orders prompts numerically, not as strings", async () => {
  await using t = await tempDir();
  await writePacket(t.path, "name: order\n", {
    "100_c.prompt.md": promptText(""),
    "9_a.prompt.md": promptText(""),
    "10_b.prompt.md": promptText(""),
  });
  const p = await loadPacket(t.path, NO_ENV);
  assert.deepEqual(p.prompts.map((q) => q.id), ["09", "10", "100"]);
});

Deno.test("loadPacket() rejects a non-numeric id as invalid_prompt_id", async () => {
  await using t = await tempDir();
  await writePacket(t.path, "name: bad\n", { "01_a.prompt.md": promptText("id: abc\n") });
  const e = await loadError(t.path);
  assert.equal(e.code, "invalid_prompt_id");
  assert.match(e.message, /prompts\/01_a\.prompt\.md: prompt id "abc" is not numeric/);
});

Deno.test("loadPacket() falls back to *.md without checklists when there are no *.prompt.md files", async () => {
  await using t = await tempDir();
  await writePacket(t.path, "name: md\n", {
    "01_first.md": "# First\n",
    "01_first.prompt.checklist.md": "# Checklist\n",
    "02_second.md": "# Second\n",
  });
  const p = await loadPacket(t.path, NO_ENV);
  assert.deepEqual(p.prompts.map((q) => q.relFile), ["prompts/01_first.md", "prompts/02_second.md"]);
});

Deno.test("loadPacket() honours prompt_dir", async () => {
  await using t = await tempDir();
  await writePacket(t.path, "name: pd\nprompt_dir: work/items\n", {}, { "work/items/01_a.prompt.md": "# A\n" });
  const p = await loadPacket(t.path, NO_ENV);
  assert.equal(p.promptDir, `${t.path}/work/items`);
  assert.deepEqual(p.prompts.map((q) => q.relFile), ["work/items/01_a.prompt.md"]);
});

Deno.test("loadPacket() takes the name from front matter, else the first H1, else the file name", async () => {
  await using t = await tempDir();
  await writePacket(t.path, "name: names\n", {
    "01_x.prompt.md": promptText("name: Given\n", "# Heading\n"),
    "02_y.prompt.md": promptText("", "intro\n\n# From heading\n"),
    "03_write_the-guide.prompt.md": promptText("", "no heading\n"),
  });
  const p = await loadPacket(t.path, NO_ENV);
  assert.deepEqual(p.prompts.map((q) => q.name), ["Given", "From heading", "Write The Guide"]);
});

Deno.test("loadPacket() normalises depends_on entries like ids", async () => {
  await using t = await tempDir();
  await writePacket(t.path, "name: deps\n", {
    "01_a.prompt.md": promptText(""),
    "02_b.prompt.md": promptText('depends_on: [1, "001"]\n'),
    "03_c.prompt.md": promptText("depends_on: 2\n"),
  });
  const p = await loadPacket(t.path, NO_ENV);
  assert.deepEqual(p.prompts.map((q) => q.dependsOn), [[], ["01"], ["02"]]);
});

Deno.test("loadPacket() layers flags > prompt > manifest > profile > env > defaults", async () => {
  await using t = await tempDir();
  await writePacket(t.path, "name: layers\nprofile: simulated-default\nmodel: manifest-model\nlog_mode: verbose\n", {
    "01_a.prompt.md": promptText("model: prompt-model\n"),
    "02_b.prompt.md": promptText(""),
  });
  const env = { PROMPT_RUNNER_PROVIDER: "claude", PROMPT_RUNNER_MODEL: "env-model" };
  let p = await loadPacket(t.path, { env });
  assert.equal(p.prompts[0]!.options.model, "prompt-model");
  assert.equal(p.prompts[1]!.options.model, "manifest-model");
  assert.equal(p.prompts[0]!.options.provider, "simulated"); // profile beats env
  assert.equal(p.prompts[0]!.options.view.log_mode, "verbose");
  assert.equal(p.prompts[0]!.options.view.diff, "stat"); // default
  p = await loadPacket(t.path, { env, overrides: { model: "flag-model", log_mode: "studio" } });
  assert.equal(p.prompts[0]!.options.model, "flag-model");
  assert.equal(p.prompts[0]!.options.view.log_mode, "studio");
  assert.equal(p.options.model, "flag-model");
});

Deno.test("loadPacket() uses PROMPT_RUNNER_PROVIDER and _MODEL below the manifest", async () => {
  await using t = await tempDir();
  await writePacket(t.path, "name: env\n", { "01_a.prompt.md": promptText("") });
  const p = await loadPacket(t.path, { env: { PROMPT_RUNNER_PROVIDER: "codex", PROMPT_RUNNER_MODEL: "o-model" } });
  assert.equal(p.options.provider, "codex");
  assert.equal(p.options.model, "o-model");
  const d = await loadPacket(t.path, NO_ENV);
  assert.equal(d.options.provider, "claude");
  assert.equal(d.options.model, "haiku");
});

Deno.test("loadPacket() infers the provider from the model when none is set", async () => {
  await using t = await tempDir();
  await writePacket(t.path, "name: infer\nmodel: gpt-5-codex\n", {
    "01_a.prompt.md": promptText(""),
    "02_b.prompt.md": promptText("model: amp-large\n"),
    "03_c.prompt.md": promptText("model: sonnet\n"),
    "04_d.prompt.md": promptText("model: gpt-5\nprovider: CLAUDE_AGENT_SDK\n"),
  });
  const p = await loadPacket(t.path, NO_ENV);
  assert.deepEqual(p.prompts.map((q) => q.options.provider), ["codex", "amp", "claude", "claude"]);
});

Deno.test("loadPacket() accepts every provider alias", async () => {
  const aliases: Record<string, string> = {
    claude_agent: "claude",
    codex_sdk: "codex",
    amp_sdk: "amp",
    cursor_agent: "cursor",
    cursor_cli_sdk: "cursor",
    antigravity_cli_sdk: "antigravity",
    simulation: "simulated",
    Codex: "codex",
  };
  for (const [alias, lane] of Object.entries(aliases)) {
    await using t = await tempDir();
    await writePacket(t.path, `name: a\nprovider: ${alias}\n`, {});
    assert.equal((await loadPacket(t.path, NO_ENV)).options.provider, lane, alias);
  }
});

Deno.test("loadPacket() rejects an unknown provider as invalid_provider", async () => {
  await using t = await tempDir();
  await writePacket(t.path, "name: p\nprovider: gemini\n", {});
  const e = await loadError(t.path);
  assert.equal(e.code, "invalid_provider");
  assert.match(e.message, /provider is "gemini"; expected one of claude, codex, amp, cursor, antigravity, simulated/);
});

Deno.test("loadPacket() keeps unknown manifest keys as warnings", async () => {
  await using t = await tempDir();
  await writePacket(t.path, "name: w\ncolour: blue\n", {});
  const p = await loadPacket(t.path, NO_ENV);
  assert.deepEqual(p.warnings.map((w) => [w.kind, w.key]), [["unknown_manifest_key", "colour"]]);
  await writePacket(t.path, "name: w\nprovder: simulated\n", {});
  const typo = (await loadPacket(t.path, NO_ENV)).warnings.find((w) => w.key === "provder");
  assert.match(typo?.message ?? "", /unknown manifest key "provder" is ignored; did you mean "provider"\?/);
});

Deno.test("loadPacket() resolves built-in profiles and lets the config home override them", async () => {
  await using t = await tempDir();
  await writePacket(t.path, "name: prof\nprofile: codex-default\n", {});
  let p = await loadPacket(t.path, NO_ENV);
  assert.equal(p.options.provider, "codex");
  assert.equal(p.options.reasoning_effort, "xhigh");
  await Deno.mkdir(`${t.path}/home/profiles`, { recursive: true });
  await Deno.writeTextFile(`${t.path}/home/profiles/codex-default.md`, "---\nprovider: codex\nmodel: my-gpt\n---\n");
  p = await loadPacket(t.path, { env: { PROMPT_RUNNER_CONFIG_HOME: `${t.path}/home` } });
  assert.equal(p.options.model, "my-gpt");
  assert.equal(p.options.reasoning_effort, null);
});

Deno.test("loadPacket() finds the config home via XDG_CONFIG_HOME and HOME, and uses its default profile", async () => {
  await using t = await tempDir();
  await writePacket(t.path, "name: prof\n", {});
  const write = async (home: string) => {
    await Deno.mkdir(`${home}/profiles`, { recursive: true });
    await Deno.writeTextFile(`${home}/config.md`, "---\ndefault_profile: mine\n---\n");
    await Deno.writeTextFile(`${home}/profiles/mine.md`, "---\nmodel: mine-model\n---\n");
  };
  await write(`${t.path}/xdg/prompt_runner`);
  await write(`${t.path}/user/.config/prompt_runner`);
  assert.equal((await loadPacket(t.path, { env: { XDG_CONFIG_HOME: `${t.path}/xdg` } })).profile, "mine");
  const viaHome = await loadPacket(t.path, { env: { HOME: `${t.path}/user` } });
  assert.equal(viaHome.options.model, "mine-model");
  // A default profile that names nothing is an error naming config.md, the field and the profiles known (it used to
  // be skipped, and the packet ran on the built-in default lane, claude).
  await Deno.remove(`${t.path}/xdg/prompt_runner/profiles/mine.md`);
  const missing = await inspectPacket(t.path, { env: { XDG_CONFIG_HOME: `${t.path}/xdg` } });
  const f = missing.findings.find((f) => f.severity === "error");
  assert.equal(f?.kind, "unknown_profile");
  assert.equal(f?.file, `${t.path}/xdg/prompt_runner/config.md`);
  assert.equal(f?.key, "default_profile");
  assert.equal(
    f?.message,
    `${t.path}/xdg/prompt_runner/config.md: default_profile "mine" names no profile; known profiles: claude-default, ` +
      "codex-default, simulated-default",
  );
  await assert.rejects(() => loadPacket(t.path, { env: { XDG_CONFIG_HOME: `${t.path}/xdg` } }), PacketError);
  // No config.md, or one without default_profile: no profile, as before.
  await Deno.writeTextFile(`${t.path}/xdg/prompt_runner/config.md`, "---\n# default_profile: x\n---\n");
  const none = await loadPacket(t.path, { env: { XDG_CONFIG_HOME: `${t.path}/xdg` } });
  assert.equal(none.profile, null);
});

Deno.test("config home: unknown keys of config.md and of a profile are warnings with a hint; a FIFO profile refuses", async () => {
  await using t = await tempDir();
  const home = `${t.path}/home`;
  const env = { env: { PROMPT_RUNNER_CONFIG_HOME: home } };
  const prompts = { "01_a.prompt.md": promptText("verify: {files_exist: [a]}\n") };
  await Deno.mkdir(`${home}/profiles`, { recursive: true });
  await Deno.writeTextFile(`${home}/config.md`, "---\ndefault_profle: mine\n---\n");
  await Deno.writeTextFile(`${home}/profiles/mine.md`, "---\nprovider: simulated\nrecovry: {max_steers: 1}\n---\n");
  await writePacket(`${t.path}/a`, "name: a\n", prompts);
  const a = await inspectPacket(`${t.path}/a`, env);
  assert.deepEqual(a.findings.map((f) => [f.severity, f.kind, f.file, f.key, f.message]), [[
    "warning",
    "unknown_profile_key",
    `${home}/config.md`,
    "default_profle",
    `${home}/config.md: unknown key "default_profle" is ignored; did you mean "default_profile"?`,
  ]]);
  await writePacket(`${t.path}/b`, "name: b\nprofile: mine\n", prompts);
  const b = await inspectPacket(`${t.path}/b`, env);
  assert.deepEqual(b.findings.map((f) => [f.kind, f.file, f.key]), [
    ["unknown_profile_key", `${home}/profiles/mine.md`, "recovry"],
  ]);
  assert.match(b.findings[0]!.message, /unknown key "recovry" is ignored; did you mean "recovery"\?$/);
  const fifo = new Deno.Command("mkfifo", { args: [`${home}/profiles/p2.md`] });
  assert.equal((await fifo.output()).code, 0);
  await writePacket(`${t.path}/c`, "name: c\nprofile: p2\n", prompts);
  const c = await inspectPacket(`${t.path}/c`, env);
  assert.equal(c.findings[0]?.kind, "profile_unreadable");
  assert.equal(c.findings[0]?.file, `${home}/profiles/p2.md`);
  assert.match(c.findings[0]!.message, /p2\.md: it is not a regular file; expected a markdown file with front matter/);
});

Deno.test("loadPacket() rejects an unknown explicit profile listing the profiles found", async () => {
  await using t = await tempDir();
  await writePacket(t.path, "name: prof\nprofile: nope\n", {});
  await Deno.mkdir(`${t.path}/home/profiles`, { recursive: true });
  await Deno.writeTextFile(`${t.path}/home/profiles/team.md`, "---\nmodel: x\n---\n");
  try {
    await loadPacket(t.path, { env: { PROMPT_RUNNER_CONFIG_HOME: `${t.path}/home` } });
    assert.fail("expected an error");
  } catch (e) {
    assert.ok(e instanceof PacketError);
    assert.equal(e.code, "unknown_profile");
    assert.match(
      e.message,
      /unknown profile "nope"; known profiles: claude-default, codex-default, simulated-default, team/,
    );
  }
});

Deno.test("loadPacket() fills recovery defaults, keeps defaults for invalid integers with a warning", async () => {
  await using t = await tempDir();
  await writePacket(
    t.path,
    "name: rec\nrecovery:\n  resume_attempts: -1\n  retry:\n    max_attempts: '5'\n    jitter: 'FALSE'\n    class_attempts: {protocol_error: 9}\n  repair: {enabled: 'TRUE'}\n",
    { "01_a.prompt.md": promptText("recovery: {max_steers: 7, retry: {class_attempts: {unknown: 1}}}\n") },
  );
  const p = await loadPacket(t.path, NO_ENV);
  const r = p.prompts[0]!.options.recovery;
  assert.equal(r.resume_attempts, 2);
  assert.equal(r.retry.max_attempts, 5);
  assert.equal(r.retry.jitter, false);
  assert.equal(r.repair.enabled, true);
  assert.equal(r.max_steers, 7);
  assert.deepEqual(r.retry.class_attempts, {
    provider_capacity: 5,
    provider_rate_limit: 5,
    provider_auth_claim: 3,
    provider_config_claim: 3,
    provider_runtime_claim: 3,
    transport_disconnect: 4,
    transport_timeout: 4,
    protocol_error: 9,
    unknown: 1,
  });
  assert.deepEqual(p.warnings.map((w) => [w.kind, w.key]), [["invalid_recovery_value", "recovery.resume_attempts"]]);
});

Deno.test("recovery: a non-boolean where a boolean is expected is an error; an unknown key a warning with a hint", async () => {
  await using t = await tempDir();
  await writePacket(
    t.path,
    "name: rec\nrecovery:\n  max_steer: 1\n  retry: {jitter: 'yes', max_attempt: 2}\n  repair: {enabled: flase, max_attempts: 1}\n",
    { "01_a.prompt.md": promptText("recovery: {repair: {enabeld: true}}\nverify: {files_exist: [a]}\n") },
  );
  const r = await inspectPacket(t.path, NO_ENV);
  const got = r.findings.map((f) => [f.severity, f.kind, f.file, f.key]);
  assert.deepEqual(got, [
    ["warning", "unknown_recovery_key", "prompt_runner_packet.md", "recovery.max_steer"],
    ["warning", "unknown_recovery_key", "prompt_runner_packet.md", "recovery.retry.max_attempt"],
    ["error", "invalid_option_value", "prompt_runner_packet.md", "recovery.retry.jitter"],
    ["error", "invalid_option_value", "prompt_runner_packet.md", "recovery.repair.enabled"],
    ["warning", "unknown_recovery_key", "prompts/01_a.prompt.md", "recovery.repair.enabeld"],
  ]);
  const msg = (key: string) => r.findings.find((f) => f.key === key)!.message;
  assert.equal(
    msg("recovery.max_steer"),
    'prompt_runner_packet.md: recovery.max_steer is not a recovery key; it is ignored; did you mean "max_steers"?',
  );
  assert.match(msg("recovery.retry.max_attempt"), /did you mean "max_attempts"\?$/);
  assert.match(msg("recovery.repair.enabeld"), /did you mean "enabled"\?$/);
  assert.equal(
    msg("recovery.repair.enabled"),
    'prompt_runner_packet.md: recovery.repair.enabled is "flase"; expected true or false',
  );
  await assert.rejects(() => loadPacket(t.path, NO_ENV), PacketError);
  // Every spelling of the boolean rule is accepted without a finding.
  for (const v of ["true", "false", "'TRUE'", "'FALSE'", "'1'", "'0'", "1", "0"]) {
    await writePacket(`${t.path}/${v}`, `name: b\nrecovery: {repair: {enabled: ${v}}, retry: {jitter: ${v}}}\n`, {
      "01_a.prompt.md": promptText("verify: {files_exist: [a]}\n"),
    });
    assert.deepEqual((await inspectPacket(`${t.path}/${v}`, NO_ENV)).findings, [], v);
  }
});

Deno.test("loadPacket() applies --retry-attempts, --repair-attempts and --max-steers to every prompt", async () => {
  await using t = await tempDir();
  await writePacket(t.path, "name: b\n", {
    "01_a.prompt.md": promptText("recovery: {retry: {class_attempts: {transport_timeout: 8}}}\n"),
  });
  const p = await loadPacket(t.path, { env: {}, overrides: { retry_attempts: 1, repair_attempts: 0, max_steers: 4 } });
  const r = p.prompts[0]!.options.recovery;
  assert.equal(r.retry.max_attempts, 1);
  assert.ok(Object.values(r.retry.class_attempts).every((n) => n === 1));
  assert.equal(r.retry.class_attempts.transport_timeout, 1);
  assert.equal(r.repair.max_attempts, 0);
  assert.equal(r.max_steers, 4);
});

Deno.test("loadPacket() bounds timeouts to 7 days, treats unbounded as 7 days and reads the --timeout duration form", async () => {
  await using t = await tempDir();
  await writePacket(t.path, "name: to\ntimeout: 60000\n", {
    "01_a.prompt.md": promptText("timeout: unbounded\n"),
    "02_b.prompt.md": promptText("timeout: 999999999999\n"),
    "03_c.prompt.md": promptText("timeout: 10s\n"),
    "04_d.prompt.md": promptText(""),
    "05_e.prompt.md": promptText('timeout: "1.5m"\n'),
    "06_f.prompt.md": promptText('timeout: "2500"\n'),
  });
  const week = 7 * 24 * 3600 * 1000;
  const p = await loadPacket(t.path, NO_ENV);
  assert.deepEqual(p.prompts.map((q) => q.options.timeout_ms), [week, week, 10000, 60000, 90000, 2500]);
  const f = await loadPacket(t.path, { env: {}, overrides: { timeout_ms: 5000 } });
  assert.equal(f.prompts[0]!.options.timeout_ms, 5000);
});

Deno.test("an invalid timeout (manifest, prompt or profile) is an error naming the file, the field and the form", async () => {
  await using t = await tempDir();
  for (const [where, bad] of [["manifest", "soon"], ["manifest", "10 s"], ["prompt", "0"], ["prompt", "-5s"]]) {
    const manifest = where === "manifest" ? `name: to\ntimeout: ${bad}\n` : "name: to\n";
    await writePacket(`${t.path}/${bad}`, manifest, {
      "01_a.prompt.md": promptText(where === "prompt" ? `timeout: ${bad}\nverify: {files_exist: [a]}\n` : ""),
    });
    const r = await inspectPacket(`${t.path}/${bad}`, NO_ENV);
    const f = r.findings.find((f) => f.kind === "invalid_option_value");
    assert.ok(f, `${where} timeout ${bad}: ${JSON.stringify(r.findings)}`);
    assert.equal(f.severity, "error");
    assert.equal(f.key, "timeout");
    assert.equal(f.file, where === "manifest" ? "prompt_runner_packet.md" : "prompts/01_a.prompt.md");
    assert.match(
      f.message,
      /timeout is .*; expected milliseconds or a duration like 250ms, 30s, 10m, 4h, or unbounded/,
    );
  }
  const home = `${t.path}/home`;
  await Deno.mkdir(`${home}/profiles`, { recursive: true });
  await Deno.writeTextFile(`${home}/profiles/slow.md`, "---\nprovider: simulated\ntimeout: forever\n---\n");
  await writePacket(`${t.path}/prof`, "name: to\nprofile: slow\n", { "01_a.prompt.md": promptText("") });
  const r = await inspectPacket(`${t.path}/prof`, { env: { PROMPT_RUNNER_CONFIG_HOME: home } });
  assert.match(r.findings.find((f) => f.key === "timeout")?.message ?? "", /^profile slow: timeout is "forever"/);
});

Deno.test("loadPacket() rejects invalid override values as usage errors", async () => {
  await using t = await tempDir();
  await writePacket(t.path, "name: o\n", {});
  await assert.rejects(
    () => loadPacket(t.path, { env: {}, overrides: { diff: "everything" } }),
    (e: unknown) =>
      e instanceof UsageError && /--diff is "everything"; expected one of none, stat, full/.test(e.message),
  );
});

Deno.test("loadPacket() reads repos in list form, picks the default repo, warns on several defaults", async () => {
  await using t = await tempDir();
  await Deno.mkdir(`${t.path}/real`);
  await Deno.symlink(`${t.path}/real`, `${t.path}/link`);
  await writePacket(
    t.path,
    "name: r\nrepos:\n  - {name: zeta, path: ./link, default: true}\n  - {name: beta, path: /abs/beta, default: true}\n",
    {},
  );
  const p = await loadPacket(t.path, NO_ENV);
  assert.deepEqual(p.repos.map((r) => [r.name, r.path]), [["beta", "/abs/beta"], ["zeta", `${t.path}/real`]]);
  assert.equal(p.defaultRepo?.name, "beta");
  assert.deepEqual(p.warnings.map((w) => w.kind), ["multiple_default_repos"]);
});

Deno.test("loadPacket() falls back to the first repo by name without a default, and sets each cwd", async () => {
  await using t = await tempDir();
  await writePacket(t.path, "name: r\nrepos:\n  web: {path: ./web}\n  api: {path: ./api}\n", {
    "01_a.prompt.md": promptText("targets: [web, api]\n"),
    "02_b.prompt.md": promptText(""),
  });
  const p = await loadPacket(t.path, NO_ENV);
  assert.equal(p.defaultRepo?.name, "api");
  assert.deepEqual(p.prompts.map((q) => q.cwd), [`${t.path}/web`, `${t.path}/api`]);
});

Deno.test("loadPacket() uses the packet dir as cwd when there are no repos", async () => {
  await using t = await tempDir();
  await writePacket(t.path, "name: r\n", { "01_a.prompt.md": promptText("") });
  assert.equal((await loadPacket(t.path, NO_ENV)).prompts[0]!.cwd, t.path);
});

Deno.test("loadPacket() rejects repo groups in targets", async () => {
  await using t = await tempDir();
  await writePacket(t.path, "name: g\nrepos: {app: {path: ./app}}\n", {
    "01_a.prompt.md": promptText("targets: ['@all']\n"),
  });
  assert.equal((await loadError(t.path)).code, "repo_group_in_targets");
});

Deno.test("loadPacket() infers repos from Repository Root sections when the manifest has none", async () => {
  await using t = await tempDir();
  await writePacket(t.path, "name: legacy\n", {
    "01_a.prompt.md": promptText("", "# A\n\n## Repository Root\n\n- `./code/my-app`\n"),
  });
  const p = await loadPacket(t.path, NO_ENV);
  assert.deepEqual(p.repos.map((r) => [r.name, r.path, r.default]), [["my_app", `${t.path}/code/my-app`, true]]);
  assert.deepEqual(p.prompts[0]!.targets, ["my_app"]);
});

Deno.test("loadPacket() ignores non-integer phase keys with a warning", async () => {
  await using t = await tempDir();
  await writePacket(t.path, "name: ph\nphases:\n  '01': One\n  intro: Nope\n", {});
  const p = await loadPacket(t.path, NO_ENV);
  assert.deepEqual(p.phases, { "1": "One" });
  assert.deepEqual(p.warnings.map((w) => [w.kind, w.key]), [["invalid_phase_key", "phases.intro"]]);
});

Deno.test("loadPacket() keeps verify entries as lists and simulate raw", async () => {
  await using t = await tempDir();
  await writePacket(t.path, "name: v\n", {
    "01_a.prompt.md": promptText(
      "verify:\n  files_exist: a.txt\n  contains: [{path: a.txt, text: hi}]\n  glob:\nsimulate: {attempts: [{label: x}]}\n",
    ),
  });
  const q = (await loadPacket(t.path, NO_ENV)).prompts[0]!;
  assert.deepEqual(q.verify, { files_exist: ["a.txt"], contains: [{ path: "a.txt", text: "hi" }], glob: [] });
  assert.deepEqual(q.simulate, { attempts: [{ label: "x" }] });
  assert.equal(q.body, "# Prompt\n");
});

Deno.test("loadPacket() uses validation only when verify.commands is absent", async () => {
  await using t = await tempDir();
  await writePacket(t.path, "name: v\n", {
    "01_a.prompt.md": promptText("validation: [make test]\nverify: {commands: [{exec: deno}]}\n"),
    "02_b.prompt.md": promptText("validation: [make test, {run: make lint}]\n"),
  });
  const p = await loadPacket(t.path, NO_ENV);
  assert.deepEqual(p.prompts.map((q) => q.legacyCommands), [[], ["make test", "make lint"]]);
});

Deno.test("loadPacket() names a directory without a manifest as not found (exit 4)", async () => {
  await using t = await tempDir();
  await assert.rejects(() => loadPacket(t.path, NO_ENV), (e: unknown) => e instanceof NotFoundError && e.exit === 4);
});

Deno.test("inspectPacket() collects several errors instead of stopping at the first", async () => {
  await using t = await tempDir();
  await writePacket(t.path, "name: many\nthinking: loud\n", {
    "01_a.prompt.md": promptText("depends_on: [5]\n"),
    "02_b.prompt.md": promptText("id: x\n"),
  });
  const r = await inspectPacket(t.path, NO_ENV);
  assert.deepEqual(r.findings.map((f) => f.kind), ["invalid_option_value", "invalid_prompt_id", "unknown_dependency"]);
});

Deno.test("loadPacket() names a config-home file with invalid YAML or that cannot be read, instead of skipping it", async () => {
  await using t = await tempDir();
  await writePacket(t.path, "name: prof\n", {});
  const home = `${t.path}/home`;
  await Deno.mkdir(`${home}/profiles`, { recursive: true });
  const load = () => loadPacket(t.path, { env: { PROMPT_RUNNER_CONFIG_HOME: home } });
  const refusal = async (): Promise<PacketError> => {
    try {
      await load();
    } catch (e) {
      if (e instanceof PacketError) return e;
      throw e;
    }
    throw new Error("loaded without error");
  };
  // config.md with invalid YAML: was read as "no default profile"
  await Deno.writeTextFile(`${home}/config.md`, "---\ndefault_profile: [mine\n---\n");
  let e = await refusal();
  assert.equal(e.code, "profile_yaml_invalid");
  assert.match(e.message, new RegExp(`invalid YAML in config ${home}/config\\.md at line \\d+, column \\d+`));
  // config.md that is a directory (EISDIR): was read as "no default profile"
  await Deno.remove(`${home}/config.md`);
  await Deno.mkdir(`${home}/config.md`);
  e = await refusal();
  assert.equal(e.code, "profile_unreadable");
  assert.match(e.message, new RegExp(`cannot read ${home}/config\\.md: `));
  await Deno.remove(`${home}/config.md`);
  // the default profile's file with invalid YAML, then as a directory: was silently replaced by the built-in
  await Deno.writeTextFile(`${home}/config.md`, "---\ndefault_profile: claude-default\n---\n");
  await Deno.writeTextFile(`${home}/profiles/claude-default.md`, "---\nmodel: [x\n---\n");
  e = await refusal();
  assert.equal(e.code, "profile_yaml_invalid");
  assert.match(e.message, new RegExp(`invalid YAML in profile ${home}/profiles/claude-default\\.md at line`));
  await Deno.remove(`${home}/profiles/claude-default.md`);
  await Deno.mkdir(`${home}/profiles/claude-default.md`);
  e = await refusal();
  assert.equal(e.code, "profile_unreadable");
  assert.match(e.message, new RegExp(`cannot read ${home}/profiles/claude-default\\.md: `));
  // absent files stay quiet: the built-in is used
  await Deno.remove(`${home}/profiles/claude-default.md`);
  assert.equal((await load()).options.model, "haiku");
});

Deno.test("recovery: a class_attempts key that is no failure class warns with a hint and is ignored; the real class keeps its default", async () => {
  await using t = await tempDir();
  await writePacket(
    t.path,
    "name: rec\nrecovery:\n  retry:\n    class_attempts: {provider_capcity: 0, transport_timeout: 1, capacity: 2}\n",
    { "01_a.prompt.md": promptText("verify: {files_exist: [a]}\n") },
  );
  const r = await inspectPacket(t.path, NO_ENV);
  assert.deepEqual(r.findings.map((f) => [f.severity, f.kind, f.key]), [
    ["warning", "unknown_recovery_key", "recovery.retry.class_attempts.provider_capcity"],
    ["warning", "unknown_recovery_key", "recovery.retry.class_attempts.capacity"],
  ]);
  assert.equal(
    r.findings[0]!.message,
    "prompt_runner_packet.md: recovery.retry.class_attempts.provider_capcity is not a failure class; it is ignored; " +
      'did you mean "provider_capacity"?',
  );
  const budgets = (await loadPacket(t.path, NO_ENV)).prompts[0]!.options.recovery.retry.class_attempts;
  assert.equal(budgets.provider_capacity, 5, "the misspelt 0 did not apply, and the default is said to apply");
  assert.equal(budgets.transport_timeout, 1);
  assert.equal(Object.hasOwn(budgets, "provider_capcity"), false);
});
