/**
 * A run under GitHub Actions (docs/ci.md), black-box on the simulated provider: `GITHUB_ACTIONS=true` with a temp
 * `GITHUB_STEP_SUMMARY` — each prompt's output inside `::group::`/`::endgroup::`, the failing checks as `::error`
 * annotations (with `file=` relative to `GITHUB_WORKSPACE` when the clause names a path), the Markdown summary appended
 * to the step summary file, no colour; and under GitLab CI each prompt is a collapsible section.
 */
import assert from "node:assert/strict";
import { runCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { makePacket, promptFile } from "../run/support.ts";
import { readWorkflowCommands } from "../support/gh_commands.ts";

async function packet(root: string): Promise<string> {
  return await makePacket(root, {
    "01_a.prompt.md": promptFile(
      "1",
      "verify:\n  files_exist: [a.txt]\nsimulate:\n  attempts:\n    - writes: [{path: a.txt}]\n      messages: [hello]",
    ),
    "02_b.prompt.md": promptFile(
      "2",
      'verify:\n  files_exist: [never.txt]\n  commands: ["echo out; exit 3"]\nrecovery: {repair: {enabled: false}}',
    ),
  });
}

Deno.test("under GitHub Actions: groups per prompt, ::error annotations, the summary appended to GITHUB_STEP_SUMMARY", async () => {
  await using dir = await tempDir();
  const pkt = await packet(dir.path);
  const stepSummary = `${dir.path}/step_summary.md`;
  await Deno.writeTextFile(stepSummary, "earlier step\n");
  const r = await runCli(["run", pkt, "--keep-going"], {
    env: { GITHUB_ACTIONS: "true", GITHUB_STEP_SUMMARY: stepSummary, GITHUB_WORKSPACE: dir.path, NO_COLOR: "" },
  });
  assert.equal(r.code, 1, r.stderr);
  // deno-lint-ignore no-control-regex
  assert.doesNotMatch(r.stdout, /\x1b\[/, "no colour under CI");
  const lines = r.stdout.split("\n");
  const at = (l: string) => lines.indexOf(l);
  // Each prompt's output sits inside its group; the groups are closed before the summary table.
  assert.ok(at("::group::01 Prompt 1") >= 0, r.stdout);
  assert.ok(at("::group::01 Prompt 1") < lines.indexOf("✓ Prompt 01 completed"));
  const ends = lines.flatMap((l, i) => (l === "::endgroup::" ? [i] : []));
  assert.equal(ends.length, 2);
  assert.ok(ends[0]! < at("::group::02 Prompt 2"));
  assert.ok(at("::group::02 Prompt 2") < lines.indexOf("Verification failed for prompt 02"));
  assert.ok(lines.indexOf("Verification failed for prompt 02") < ends[1]!);
  assert.ok(ends[1]! < lines.findIndex((l) => l.startsWith("Run ")));
  // A path clause points at the file, relative to the checkout; a command's output tail is in the message.
  assert.ok(
    lines.includes(
      "::error file=pkt/app/never.txt,title=prompt 02 Prompt 2%3A verification failed::files_exist never.txt: missing",
    ),
    r.stdout,
  );
  assert.ok(lines.includes(
    "::error title=prompt 02 Prompt 2%3A verification failed::commands echo out; exit 3: exit 3 (expected 0)%0Aout",
  ));
  const md = await Deno.readTextFile(stepSummary);
  assert.ok(md.startsWith("earlier step\n## prompt_runner: scenario — ❌ failed"), "appended, never replaced");
  assert.match(md, /\| 02 Prompt 2 \| run \| ❌ verification failed \| — \|/);
  assert.match(md, /<details><summary>02 Prompt 2 — verification failed: 2 checks<\/summary>/);
});

Deno.test("under GitLab CI: each prompt is a collapsible section", async () => {
  await using dir = await tempDir();
  const pkt = await packet(dir.path);
  const r = await runCli(["run", pkt, "--keep-going"], { env: { GITLAB_CI: "true" } });
  assert.equal(r.code, 1, r.stderr);
  // deno-lint-ignore no-control-regex
  const starts = [...r.stdout.matchAll(/\x1b\[0Ksection_start:\d+:prompt_(\d+)\[collapsed=true\]\r\x1b\[0K(.*)\n/g)];
  assert.deepEqual(starts.map((m) => [m[1], m[2]]), [["01", "01 Prompt 1"], ["02", "02 Prompt 2"]]);
  // deno-lint-ignore no-control-regex
  const ends = [...r.stdout.matchAll(/\x1b\[0Ksection_end:\d+:prompt_(\d+)\r\x1b\[0K\n/g)];
  assert.deepEqual(ends.map((m) => m[1]), ["01", "02"]);
  assert.doesNotMatch(r.stdout, /::group::/);
});

Deno.test("under CI=true alone: no group or section markers", async () => {
  await using dir = await tempDir();
  const pkt = await packet(dir.path);
  const r = await runCli(["run", pkt, "--keep-going"], { env: { CI: "true", NO_COLOR: "" } });
  assert.equal(r.code, 1, r.stderr);
  assert.doesNotMatch(r.stdout, /::group::|section_start/);
  assert.match(r.stdout, /Verification failed for prompt 02/);
});

Deno.test("an amended prompt: the summary report lists the amendment from the audit records; ::notice under GitHub", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile(
      "1",
      'verify:\n  files_exist: [a.txt]\n  commands: ["exit 4"]\nrecovery: {repair: {enabled: false}}\n' +
        "simulate:\n  attempts:\n    - writes: [{path: a.txt}]",
    ),
  });
  const first = await runCli(["run", pkt]);
  assert.equal(first.code, 1, first.stderr);
  const relax = await runCli([
    "control",
    "relax",
    pkt,
    "01",
    "--drop",
    "commands",
    "--reason",
    "the check | is broken",
    "--confirm",
    "--author",
    "ana",
  ]);
  assert.equal(relax.code, 0, relax.stderr);
  const md = `${dir.path}/summary.md`;
  const r = await runCli(["run", pkt, "--remaining", "--report", `summary=${md}`], {
    env: { GITHUB_ACTIONS: "true", GITHUB_STEP_SUMMARY: `${dir.path}/step.md` },
  });
  assert.equal(r.code, 0, r.stderr);
  const text = await Deno.readTextFile(md);
  assert.match(text, /\| 01 Prompt 1 \| run( → \w+)* \| ✅ completed \| `[0-9a-f]{8}` \| [^|]+ \| amended ×1 \|/);
  assert.match(text, /\| 01 \| [0-9T:.Z-]+ \| ana \| amendment: relax commands drop: the check \\\| is broken \|/);
  assert.equal(await Deno.readTextFile(`${dir.path}/step.md`), text + "\n", "the step summary is the same Markdown");
  assert.match(r.stdout, /^::notice title=contract amended::prompt 01 Prompt 1 ran under 1 contract amendment/m);
});

Deno.test("under GitHub Actions with --json: the markers go to stderr, stdout stays JSON lines", async () => {
  await using dir = await tempDir();
  const pkt = await packet(dir.path);
  const r = await runCli(["run", pkt, "--keep-going", "--json"], { env: { GITHUB_ACTIONS: "true" } });
  assert.equal(r.code, 1, r.stderr);
  const lines = r.stdout.trimEnd().split("\n");
  for (const l of lines) JSON.parse(l);
  assert.equal(JSON.parse(lines.at(-1)!).type, "run_summary");
  assert.match(r.stderr, /^::group::01 Prompt 1$/m);
  assert.match(r.stderr, /^::endgroup::$/m);
  assert.match(r.stderr, /^::error file=.*never\.txt,title=prompt 02 Prompt 2%3A verification failed::/m);
});

Deno.test("under GitHub Actions: an agent's, a tool's or a file's text cannot issue a workflow command", async () => {
  await using dir = await tempDir();
  const hostile = [
    "::error title=pwned::from the agent",
    "  ::add-mask::secret",
    "::stop-commands::guess",
    "::endgroup::",
    "##[warning]old form",
  ];
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile(
      "1",
      "verify:\n  files_exist: [a.txt, '::error::missing.txt']\nrecovery: {repair: {enabled: false}}\n" +
        "simulate:\n  attempts:\n    - writes: [{path: a.txt}]\n" +
        `      thinking: [${JSON.stringify("\n" + hostile.join("\n"))}]\n` +
        `      messages: [${JSON.stringify("line one\n" + hostile.join("\n"))}]\n` +
        "      tools:\n        - name: Bash\n          input: { command: ls }\n" +
        `          output: ${JSON.stringify(hostile.join("\n"))}`,
    ) + "::error::from the prompt body\n",
  });
  for (const mode of ["compact", "verbose", "studio"]) {
    const r = await runCli(["run", pkt, "--no-commit", "--log-mode", mode], { env: { GITHUB_ACTIONS: "true" } });
    assert.equal(r.code, 1, r.stderr);
    for (const [name, log] of [["stdout", r.stdout], ["stderr", r.stderr]] as const) {
      const { commands, text } = readWorkflowCommands(log);
      // Only what the runner minted: the group, its end, the stops around hostile lines, the failing check.
      const ours = commands.filter((c) => !/^::stop-commands::[0-9a-f-]{36}$/.test(c));
      if (name === "stdout") {
        assert.deepEqual(
          ours.map((c) => /^::([a-z]+)/.exec(c)?.[1]),
          ["group", "endgroup", "error"],
          `${mode}: ${ours.join("\n")}`,
        );
        assert.match(
          ours[2]!,
          /^::error file=.*%3A%3Aerror%3A%3Amissing\.txt,title=prompt 01 Prompt 1%3A verification failed::/,
        );
        // The hostile lines are still there for a reader, as they were written.
        assert.ok(text.some((l) => l.includes("::error title=pwned::from the agent")), `${mode}:\n${log}`);
      } else assert.deepEqual(ours, [], `${mode} stderr: ${ours.join("\n")}`);
    }
  }
  // Any command's output: replay prints the same text again.
  const replay = await runCli(["replay", pkt], { env: { GITHUB_ACTIONS: "true" } });
  assert.equal(replay.code, 0, replay.stderr);
  const read = readWorkflowCommands(replay.stdout);
  assert.ok(read.commands.length > 0 && read.commands.every((c) => /^::stop-commands::[0-9a-f-]{36}$/.test(c)));
  assert.ok(read.text.some((l) => l.includes("::error title=pwned::from the agent")), replay.stdout);
});
