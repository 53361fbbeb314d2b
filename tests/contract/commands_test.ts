import assert from "node:assert/strict";
import { tempDir, writeFiles } from "../support/fs.ts";
import { itemsOf, oneItem } from "./_helpers.ts";
import { displayArgv } from "../../src/contract/clauses/commands.ts";
import { substituteRepo } from "../../src/contract/entries.ts";
import { BACKUP_SUFFIX } from "../../src/contract/clauses/regenerate.ts";

async function processGone(pid: number): Promise<boolean> {
  try {
    const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
    return / Z /.test(stat.slice(stat.lastIndexOf(")")));
  } catch {
    return true;
  }
}

Deno.test("verifyContract() commands run argv directly, never through a shell", async () => {
  await using dir = await tempDir();
  const item = await oneItem(dir.path, {
    commands: { exec: "echo", args: ["$HOME", "a;b", "`id`"], timeout_ms: 5000 },
  });
  assert.equal(item.status, "pass");
  assert.equal(item.details, "$HOME a;b `id`");
  assert.equal(item.mode, "structured");
  assert.equal(item.command, "echo '$HOME' 'a;b' '`id`'");
  assert.deepEqual(item.argv, ["echo", "$HOME", "a;b", "`id`"]);
  assert.equal(item.exit_code, 0);
  assert.equal(item.output_truncated, false);
  assert.equal(item.cwd, dir.path);
});

Deno.test("verifyContract() commands merge stdout and stderr in arrival order", async () => {
  await using dir = await tempDir();
  const item = await oneItem(dir.path, {
    commands: { exec: "bash", args: ["-c", "echo a; sleep 0.1; echo b >&2; sleep 0.1; echo c"], timeout_ms: 5000 },
  });
  assert.equal(item.details, "a\nb\nc");
});

Deno.test("verifyContract() commands fail on non-zero exit with the trimmed output", async () => {
  await using dir = await tempDir();
  const item = await oneItem(dir.path, {
    commands: { exec: "bash", args: ["-c", "echo '  broken  '; exit 3"], timeout_ms: 5000 },
  });
  assert.equal(item.status, "fail");
  assert.equal(item.fault, null);
  assert.equal(item.details, "exit 3\nbroken");
  assert.equal(item.exit_code, 3);
});

Deno.test("verifyContract() commands treat declared fault exit codes as faults", async () => {
  await using dir = await tempDir();
  const item = await oneItem(dir.path, {
    commands: { exec: "bash", args: ["-c", "echo flaky; exit 75"], fault_exit_codes: [75], timeout_ms: 5000 },
  });
  assert.equal(item.status, "fault");
  assert.equal(item.fault, "verifier_fault");
  assert.equal(item.details, "exit 75 is declared a fault\nflaky");
});

Deno.test("verifyContract() commands check stdout_contains before stdout_matches", async () => {
  await using dir = await tempDir();
  const items = await itemsOf(dir.path, {
    commands: [
      {
        exec: "echo",
        args: ["All Tests Passed"],
        stdout_contains: "Tests Passed",
        stdout_matches: "nope",
        timeout_ms: 5000,
      },
      { exec: "echo", args: ["All Tests Passed"], stdout_contains: "tests passed", timeout_ms: 5000 },
      { exec: "echo", args: ["All Tests Passed"], stdout_matches: "tests\\s+passed", timeout_ms: 5000 },
      { exec: "echo", args: ["All Tests Passed"], stdout_matches: "^failed", timeout_ms: 5000 },
      { exec: "echo", args: ["x"], stdout_matches: "(", timeout_ms: 5000 },
    ],
  });
  assert.deepEqual(items.map((i) => i.status), ["pass", "fail", "pass", "fail", "fail"]);
  assert.equal(items[1]!.details, 'stdout missing "tests passed"\nAll Tests Passed');
  assert.equal(items[3]!.details, "stdout did not match /^failed/\nAll Tests Passed");
  assert.match(items[4]!.details, /^invalid stdout_matches regex: /);
});

Deno.test("verifyContract() commands get env additions, PROMPT_RUNNER_* and @repo substitutions", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, { "other/tool.txt": "t" });
  const item = await oneItem(dir.path, {
    commands: {
      exec: "bash",
      args: [
        "-c",
        'echo "$FOO|$PROMPT_RUNNER_PROMPT_ID|$PROMPT_RUNNER_RUN_ID|$PROMPT_RUNNER_PACKET_DIR|$1|$2"',
        "-",
        "@repo:other/tool.txt",
        "@repo:ghost",
      ],
      env: { FOO: 42 },
      timeout_ms: 5000,
    },
  }, {
    repos: { app: dir.path, other: `${dir.path}/other`, packet: `${dir.path}/packet` },
    runId: "20261130T120501Z-7QK2MD",
  });
  assert.equal(item.details, `42|01|20261130T120501Z-7QK2MD|${dir.path}/packet|${dir.path}/other/tool.txt|@repo:ghost`);
});

Deno.test("verifyContract() commands resolve cwd against the repo root", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, { "other/sub/marker": "m" });
  const item = await oneItem(dir.path, {
    commands: { repo: "other", exec: "ls", cwd: "sub", timeout_ms: 5000 },
  }, { repos: { app: dir.path, other: `${dir.path}/other`, packet: `${dir.path}/packet` } });
  assert.equal(item.details, "marker");
  assert.equal(item.cwd, `${dir.path}/other/sub`);
  assert.equal(item.repo, "other");
});

Deno.test("verifyContract() commands classify missing executables by form", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, { "bin/notexec.sh": "#!/bin/sh\necho hi\n" });
  const items = await itemsOf(dir.path, {
    commands: [
      { exec: "definitely-not-a-real-tool-x9", timeout_ms: 5000 },
      { exec: "/nonexistent/bin/tool", timeout_ms: 5000 },
      { exec: "bin/check_doc.sh", timeout_ms: 5000 },
      { exec: "bin/notexec.sh", timeout_ms: 5000 },
      { repo: "ghost", exec: "echo", timeout_ms: 5000 },
    ],
  });
  assert.deepEqual(items.map((i) => [i.status, i.fault]), [
    ["fault", "verifier_fault"],
    ["fault", "verifier_fault"],
    ["fail", null],
    ["fault", "verifier_fault"],
    ["fail", null],
  ]);
  assert.equal(items[0]!.details, "executable not found on PATH: definitely-not-a-real-tool-x9");
  assert.equal(items[1]!.details, "executable not found: /nonexistent/bin/tool");
  assert.equal(items[2]!.details, `executable not found: ${dir.path}/bin/check_doc.sh`);
  assert.match(items[3]!.details, /^could not launch: /);
  assert.equal(items[4]!.details, "unknown repo: ghost");
});

Deno.test("verifyContract() legacy commands run through bash -c and map 126/127/124 to faults", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, { "notexec.sh": "echo hi\n" });
  const items = await itemsOf(dir.path, {
    commands: [
      "echo $((1 + 2)) && echo piped | tr a-z A-Z",
      "definitely-not-a-real-tool-x9",
      "./notexec.sh",
      { run: "exit 124" },
      { command: "exit 4" },
    ],
  });
  assert.deepEqual(items.map((i) => [i.mode, i.status, i.fault, i.exit_code]), [
    ["legacy", "pass", null, 0],
    ["legacy", "fault", "verifier_fault", 127],
    ["legacy", "fault", "verifier_fault", 126],
    ["legacy", "fault", "verifier_timeout", 124],
    ["legacy", "fail", null, 4],
  ]);
  assert.equal(items[0]!.details, "3\nPIPED");
  assert.match(items[1]!.details, /^command not found\n/);
  assert.match(items[2]!.details, /^command found but not executable/);
  assert.equal(items[3]!.details, "killed by timeout");
  assert.equal(items[0]!.command, "echo $((1 + 2)) && echo piped | tr a-z A-Z");
  assert.deepEqual(items[0]!.argv, ["bash", "-c", "echo $((1 + 2)) && echo piped | tr a-z A-Z"]);
  assert.equal(items[0]!.timeout_ms, 600000);
});

Deno.test("verifyContract() legacy commands fault when bash itself is missing", async () => {
  await using dir = await tempDir();
  const item = await oneItem(dir.path, { commands: ["echo hi"] }, { env: { PATH: `${dir.path}/empty` } });
  assert.equal(item.status, "fault");
  assert.equal(item.details, "executable not found on PATH: bash");
});

Deno.test("verifyContract() a command deadline kills the whole process group with the output tail", async () => {
  await using dir = await tempDir();
  const item = await oneItem(dir.path, {
    commands: {
      exec: "bash",
      args: ["-c", "sleep 30 & echo $! > child.pid; echo started; wait"],
      timeout_ms: 400,
    },
  });
  assert.equal(item.status, "fault");
  assert.equal(item.fault, "verifier_timeout");
  assert.equal(item.details, "timed out after 400 ms\nstarted");
  const childPid = Number((await Deno.readTextFile(`${dir.path}/child.pid`)).trim());
  assert.ok(childPid > 0);
  assert.ok(await processGone(childPid), `child ${childPid} survived the deadline`);
});

Deno.test("verifyContract() a command ignoring SIGTERM is killed after the grace", async () => {
  await using dir = await tempDir();
  const started = Date.now();
  const item = await oneItem(dir.path, {
    commands: {
      exec: "bash",
      args: ["-c", "trap '' TERM; echo $$ > pid; while true; do sleep 0.05; done"],
      timeout_ms: 200,
    },
  });
  assert.equal(item.fault, "verifier_timeout");
  assert.ok(Date.now() - started >= 3000);
  assert.ok(await processGone(Number((await Deno.readTextFile(`${dir.path}/pid`)).trim())));
});

Deno.test("verifyContract() keeps only the last 1 MiB of output and says how much was dropped", async () => {
  await using dir = await tempDir();
  const total = 1024 * 1024 + 4096;
  const item = await oneItem(dir.path, {
    commands: {
      exec: "bash",
      args: ["-c", `head -c ${total - 4} /dev/zero | tr '\\0' 'a'; printf END1`],
      timeout_ms: 20000,
    },
  });
  assert.equal(item.status, "pass");
  assert.equal(item.output_truncated, true);
  assert.ok(item.details.startsWith("[output truncated: 4096 earlier bytes dropped]\n"), item.details.slice(0, 80));
  assert.ok(item.details.endsWith("aEND1"));
});

Deno.test("verifyContract() regenerates keeps new outputs when the command passes", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, { "gen/out.txt": "old\n" });
  const item = await oneItem(dir.path, {
    commands: {
      exec: "bash",
      args: ["-c", "test ! -e gen/out.txt && echo new > gen/out.txt"],
      regenerates: ["gen/out.txt"],
      timeout_ms: 5000,
    },
  });
  assert.equal(item.status, "pass");
  assert.deepEqual(item.regenerated, ["gen/out.txt"]);
  assert.equal(await Deno.readTextFile(`${dir.path}/gen/out.txt`), "new\n");
  await assert.rejects(Deno.stat(`${dir.path}/gen/out.txt${BACKUP_SUFFIX}`));
});

Deno.test("verifyContract() regenerates restores backups and fails when an output is missing or empty", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, { "a.txt": "A\n", "b.txt": "B\n" });
  const item = await oneItem(dir.path, {
    commands: { exec: "bash", args: ["-c", "touch a.txt"], regenerates: ["a.txt", "b.txt"], timeout_ms: 5000 },
  });
  assert.equal(item.status, "fail");
  assert.equal(item.details, "regenerated output missing or empty: a.txt, b.txt");
  assert.equal(await Deno.readTextFile(`${dir.path}/a.txt`), "A\n");
  assert.equal(await Deno.readTextFile(`${dir.path}/b.txt`), "B\n");
  assert.equal(item.regenerated, undefined);
});

Deno.test("verifyContract() regenerates restores a leftover backup first and faults when both exist", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, {
    [`left.txt${BACKUP_SUFFIX}`]: "saved\n",
    "both.txt": "x",
    [`both.txt${BACKUP_SUFFIX}`]: "y",
  });
  const restored = await oneItem(dir.path, {
    commands: {
      exec: "bash",
      args: ["-c", "cat left.txt 2>/dev/null; exit 1"],
      regenerates: ["left.txt"],
      timeout_ms: 5000,
    },
  });
  assert.equal(restored.status, "fail");
  assert.equal(await Deno.readTextFile(`${dir.path}/left.txt`), "saved\n");
  const clash = await oneItem(dir.path, {
    commands: { exec: "true", regenerates: ["both.txt"], timeout_ms: 5000 },
  });
  assert.equal(clash.status, "fault");
  assert.match(clash.details, /^could not stage regenerated outputs: /);
});

Deno.test("displayArgv() quotes only the elements that need it; substituteRepo() maps @repo names", () => {
  assert.equal(displayArgv(["deno", "test", "-A", "a b", "it's"]), `deno test -A 'a b' 'it'"'"'s'`);
  assert.equal(substituteRepo("@repo:app", { app: "/r" }), "/r");
  assert.equal(substituteRepo("@repo:app/x/y", { app: "/r" }), "/r/x/y");
  assert.equal(substituteRepo("@repo:nope/x", { app: "/r" }), "@repo:nope/x");
});

Deno.test("verifyContract() commands resolve an exec naming an @-prefixed repo-index key to its path", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, { "tools/hello.sh": "#!/bin/sh\necho from-artifact\n" });
  await Deno.chmod(`${dir.path}/tools/hello.sh`, 0o755);
  const item = await oneItem(dir.path, { commands: { exec: "@artifact:hello", timeout_ms: 5000 } }, {
    repos: { app: dir.path, packet: `${dir.path}/packet`, "@artifact:hello": `${dir.path}/tools/hello.sh` },
  });
  assert.equal(item.status, "pass");
  assert.equal(item.details, "from-artifact");
});
