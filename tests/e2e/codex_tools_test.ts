/**
 * The real `codex` CLI against the fake OpenAI server (docs/packets.md "Tool names"): `allowed_tools` in the generic
 * vocabulary covers codex's own tool calls — a shell call is `Bash`, an apply_patch file change is `Write`/`Edit` — so
 * an allowed call leaves no guardrail entry in the audit log and a disallowed one still does; and the built-in
 * `codex-default` profile asks for a model slug the pinned codex knows, which is offered the apply_patch tool.
 */
import assert from "node:assert/strict";
import { controlLog, describeRun, e2eSkipReason, events, modelRequests, runPacket, scenario } from "./_harness.ts";
import type { Scenario } from "./_harness.ts";

const skip = e2eSkipReason("codex");
if (skip) console.error(`SKIPPED: ${skip}`);

const test = (name: string, fn: () => Promise<void>) =>
  Deno.test({ name: `e2e codex: ${name}`, ignore: skip !== null, sanitizeOps: false, sanitizeResources: false, fn });

const guardrails = (s: Scenario) => controlLog(s).filter((e) => e.command === "guardrail");
const toolNames = (s: Scenario) =>
  events(s).filter((e) => e.type === "tool_call_started").map((e) => (e.data as Record<string, unknown>).tool_name);
/** The tool names the first model request offered (`custom:apply_patch`, `function:exec_command` …). */
const offeredTools = (s: Scenario) => {
  const body = (modelRequests(s)[0]?.body ?? {}) as { tools?: { type?: string; name?: string }[] };
  return (body.tools ?? []).map((t) => `${t.type}:${t.name ?? ""}`);
};
const GENERIC = ["Read", "Edit", "Write", "Bash"];

test("allowed_tools [Read, Edit, Write, Bash]: a shell call raises no guardrail entry", async () => {
  await using s = await scenario("codex", {
    body: "Run the command. [[e2e:bash echo ran > ran.txt]]",
    verify: { files_exist: ["ran.txt"] },
    manifest: { allowed_tools: GENERIC },
  });
  const r = await runPacket(s);
  assert.equal(r.code, 0, describeRun(s, r));
  assert.deepEqual(toolNames(s), ["shell"], "codex ran one shell call");
  assert.deepEqual(guardrails(s), [], "no guardrail entry");
});

test("allowed_tools [Read, Edit, Write, Bash]: an apply_patch edit raises no guardrail entry", async () => {
  await using s = await scenario("codex", {
    files: { "notes.txt": "alpha\nbeta\n" },
    body: "Uppercase beta. [[e2e:edit notes.txt beta => BETA]]",
    verify: { contains: [{ path: "notes.txt", text: "BETA" }] },
    manifest: { allowed_tools: GENERIC },
  });
  const r = await runPacket(s);
  assert.equal(r.code, 0, describeRun(s, r));
  assert.deepEqual(toolNames(s), ["file_change"], "codex made one file change");
  assert.deepEqual(guardrails(s), [], "no guardrail entry");
});

test("allowed_tools [Read]: the shell call is recorded as a guardrail entry naming Bash", async () => {
  await using s = await scenario("codex", {
    body: "Run the command. [[e2e:bash echo ran > ran.txt]]",
    verify: { files_exist: ["ran.txt"] },
    manifest: { allowed_tools: ["Read"] },
  });
  const r = await runPacket(s);
  assert.equal(r.code, 0, describeRun(s, r));
  const g = guardrails(s);
  assert.equal(g.length, 1, describeRun(s, r));
  const params = g[0]!.params as Record<string, unknown>;
  assert.equal(params.tool, "shell");
  assert.deepEqual(params.allowed_tools, ["Read"]);
  assert.match(String(g[0]!.reason), /needs Bash/);
  const logs = [...Deno.readDirSync(`${s.store}/logs`)].filter((e) => e.name.startsWith("prompt-01-"));
  const log = logs.map((e) => Deno.readTextFileSync(`${s.store}/logs/${e.name}`)).join("\n");
  assert.match(log, /GUARDRAIL tool=shell allowed_tools=Read/, "the attempt log carries the marker");
});

test("codex-default asks for a model codex knows: the request offers apply_patch and the turn uses it", async () => {
  await using s = await scenario("codex", {
    body: "Write the file. [[e2e:write made.txt made]]",
    verify: { files_exist: ["made.txt"] },
    manifest: { profile: "codex-default" },
    omitManifest: ["model"],
  });
  const r = await runPacket(s);
  assert.equal(r.code, 0, describeRun(s, r));
  const first = modelRequests(s)[0]?.body as Record<string, unknown> | undefined;
  assert.equal(first?.model, "gpt-5.5", "the profile's slug reached the model request");
  const started = events(s).find((e) => e.type === "run_started");
  const args = ((started?.data as Record<string, unknown> | undefined)?.args ?? []) as string[];
  assert.equal(args[args.indexOf("-m") + 1], "gpt-5.5", `codex ran with -m gpt-5.5: ${JSON.stringify(args)}`);
  assert.ok(offeredTools(s).includes("custom:apply_patch"), `apply_patch offered: ${offeredTools(s)}`);
  assert.deepEqual(toolNames(s), ["file_change"], "the turn's apply_patch ran");
  assert.equal(await Deno.readTextFile(`${s.repo}/made.txt`), "made\n");
  assert.deepEqual(guardrails(s), [], "the profile's [Read, Edit, Write, Bash] covers the file change");

  // The slug the profile used to name is unknown to this codex: no apply_patch tool is offered at all.
  await using old = await scenario("codex", {
    body: "Write the file. [[e2e:write made.txt made]]",
    manifest: { profile: "codex-default", model: "gpt-5.4" },
  });
  const o = await runPacket(old);
  assert.ok(modelRequests(old).length >= 1, describeRun(old, o));
  assert.ok(!offeredTools(old).includes("custom:apply_patch"), `no apply_patch for gpt-5.4: ${offeredTools(old)}`);
});
