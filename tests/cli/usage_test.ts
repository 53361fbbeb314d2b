/**
 * The CLI's own surface, black-box (issue #15 item 5): did-you-mean for commands and flags, two-line usage errors,
 * the version flags, group help and `help <group>`, `help <command>` for every command, errors that name the target
 * that did not resolve, and the completion scripts generated from the command table.
 */
import assert from "node:assert/strict";
import { runCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { COMMANDS } from "../../src/cli/registry.ts";
import { commandHelp } from "../../src/cli/frame.ts";
import { closest } from "../../src/util/edit_distance.ts";
import { VERSION } from "../../src/version.ts";
import { makePacket, promptFile } from "../run/support.ts";

/** `help`, the version flags and unknown words name no command: they run with what they are given, read and env. */
const BARE = { denoFlags: ["--allow-read", "--allow-env"] };

Deno.test("closest() suggests near words, unique prefixes, and nothing for far ones", () => {
  assert.equal(closest("rnu", ["run", "plan", "list"]), "run");
  assert.equal(closest("dryrun", ["dry-run", "strict"]), "dry-run");
  assert.equal(closest("verison", ["help", "version"]), "version");
  assert.equal(closest("stauts", ["status", "start", "stop"]), "status");
  assert.equal(closest("STATUS", ["status"]), "status");
  assert.equal(closest("compl", ["completions", "control"]), "completions");
  assert.equal(closest("x", ["run", "plan"]), null);
  assert.equal(closest("bogus", ["run", "plan", "list"]), null);
  assert.equal(closest("", ["run"]), null);
});

Deno.test("a mistyped command gets a did-you-mean in two lines and exit 2", async () => {
  const cases: [string[], RegExp][] = [
    [["rnu"], /^error: unknown command "rnu"; did you mean "run"\?\n {2}see `prompt_runner --help`\n$/],
    [["stauts"], /^error: unknown command "stauts"; did you mean "status"\?\n/],
    [
      ["control", "stauts"],
      /^error: unknown command "control stauts"; did you mean "control status"\?\n {2}see `prompt_runner control --help`\n$/,
    ],
    [["help", "rnu"], /^error: unknown command "rnu"; did you mean "run"\?\n/],
    [["nothing-like-it"], /^error: unknown command "nothing-like-it"\n {2}see `prompt_runner --help`\n$/],
  ];
  for (const [args, stderr] of cases) {
    const r = await runCli(args, BARE);
    assert.equal(r.code, 2, args.join(" "));
    assert.match(r.stderr, stderr, args.join(" "));
    assert.equal(r.stdout, "", args.join(" "));
  }
});

Deno.test("an unknown flag is a two-line error with a did-you-mean and where the help is, exit 2", async () => {
  await using dir = await tempDir();
  const r = await runCli(["run", dir.path, "--dryrun"]);
  assert.equal(r.code, 2);
  assert.equal(
    r.stderr,
    'error: unknown flag "--dryrun"; did you mean "--dry-run"?\n  see `prompt_runner run --help`\n',
  );
  assert.equal(r.stdout, "");
  const far = await runCli(["control", "status", "--bogus"]);
  assert.equal(far.code, 2);
  assert.equal(far.stderr, 'error: unknown flag "--bogus"\n  see `prompt_runner control status --help`\n');
  const json = await runCli(["list", "--jsn", "--json"]);
  assert.equal(json.code, 2);
  const err = JSON.parse(json.stdout).error;
  assert.equal(err.code, "unknown_flag");
  assert.equal(err.hint, "see `prompt_runner list --help`");
  const value = await runCli(["plan", "--phase"]);
  assert.equal(value.stderr, "error: --phase needs a value (N)\n  see `prompt_runner plan --help`\n");
});

Deno.test("--version, -V, -v and version print the version; --verison gets a did-you-mean", async () => {
  for (const flag of ["--version", "-V", "-v", "version"]) {
    const r = await runCli([flag], BARE);
    assert.equal(r.code, 0, flag);
    assert.equal(r.stdout, `prompt_runner ${VERSION}\n`, flag);
  }
  const typo = await runCli(["--verison"], BARE);
  assert.equal(typo.code, 2);
  assert.equal(
    typo.stderr,
    'error: unknown flag "--verison"; did you mean "--version"?\n  see `prompt_runner --help`\n',
  );
  const early = await runCli(["--json", "status"], BARE);
  assert.equal(early.code, 2);
  assert.match(early.stderr, /unknown flag "--json" before the command\n {2}flags follow the command/);
  // version takes only the output flags: anything else is a two-line error, --help its help.
  const bogus = await runCli(["version", "--bogus"], BARE);
  assert.equal(bogus.code, 2);
  assert.equal(bogus.stderr, 'error: unknown flag "--bogus" for version\n  see `prompt_runner version --help`\n');
  const extra = await runCli(["-V", "extra"], BARE);
  assert.equal(extra.code, 2);
  assert.match(extra.stderr, /^error: unexpected argument "extra"\n/);
  const json = await runCli(["version", "--color", "never", "--json"], BARE);
  assert.equal(json.code, 0, json.stderr);
  assert.equal(JSON.parse(json.stdout).version, VERSION);
  const help = await runCli(["version", "--help"], BARE);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^Usage: prompt_runner version\n/);
});

Deno.test("every command group lists its commands alone (exit 2), with --help and through help (exit 0)", async () => {
  const groups = [...new Set(COMMANDS.filter((c) => c.path.length > 1).map((c) => c.path[0]!))];
  assert.deepEqual(groups.sort(), ["checklist", "control", "packet", "profile", "prompt", "template", "workspace"]);
  for (const group of groups) {
    const subs = COMMANDS.filter((c) => c.path.length > 1 && c.path[0] === group);
    for (
      const [args, code] of [[[group], 2], [[group, "--help"], 0], [[group, "-h"], 0], [["help", group], 0]] as const
    ) {
      const r = await runCli([...args], BARE);
      assert.equal(r.code, code, args.join(" "));
      assert.match(r.stdout, new RegExp(`^Usage: prompt_runner ${group} <command>`), args.join(" "));
      for (const c of subs) {
        assert.match(r.stdout, new RegExp(`^ {2}${c.path[1]} +${c.summary.replace(/[()]/g, "\\$&")}$`, "m"));
      }
    }
    // A flag but no command: two lines naming the group's commands and its help, not the whole help.
    const flag = await runCli([group, "--dryrun"], BARE);
    assert.equal(flag.code, 2);
    assert.equal(flag.stdout, "");
    assert.equal(
      flag.stderr,
      `error: ${group} needs a command before "--dryrun": ${subs.map((c) => c.path[1]).join(", ")}\n` +
        `  see \`prompt_runner ${group} --help\`\n`,
    );
  }
});

Deno.test("help <command> prints that command's help for every registered command; help alone the program's", async () => {
  const top = await runCli(["help"], BARE);
  assert.equal(top.code, 0);
  for (const c of COMMANDS) assert.ok(top.stdout.includes(`  ${c.path.join(" ")} `), c.path.join(" "));
  await Promise.all(COMMANDS.map(async (c) => {
    const r = await runCli(["help", ...c.path], BARE);
    assert.equal(r.code, 0, c.path.join(" "));
    assert.match(r.stdout, new RegExp(`^Usage: prompt_runner ${c.path.join(" ")}`), c.path.join(" "));
    // The same text as `<command> --help` (both are commandHelp() of the entry).
    assert.equal(r.stdout, commandHelp(c, (await c.load()).spec), c.path.join(" "));
  }));
  const own = await runCli(["control", "steer", "--help"]);
  assert.equal(own.code, 0);
  assert.equal(own.stdout, (await runCli(["help", "control", "steer"], BARE)).stdout);
  const bare = await runCli([], BARE);
  assert.equal(bare.code, 2);
  assert.equal(bare.stdout, top.stdout);
});

Deno.test("a target that does not resolve is named in the error, not the directory around it", async () => {
  await using dir = await tempDir();
  for (const args of [["status", "nosuch"], ["control", "status", "nosuch"], ["list", "nosuch"]]) {
    const r = await runCli(args, { cwd: dir.path });
    assert.equal(r.code, 4, args.join(" "));
    assert.match(r.stderr, /^error: target not found: "nosuch" is not a packet directory/, args.join(" "));
    assert.ok(!r.stderr.includes(dir.path), `${args.join(" ")} names the word, not the cwd`);
  }
  // Inside a packet too: status takes nothing but a target, so the word is not silently an extra argument.
  const pkt = await makePacket(dir.path, { "01_a.prompt.md": promptFile("1", "verify:\n  files_exist: [a.txt]") });
  const inside = await runCli(["status", "nosuch"], { cwd: pkt });
  assert.equal(inside.code, 4);
  assert.match(inside.stderr, /"nosuch" is not a packet directory/);
  // Where the word may be a prompt id, the cwd is named with it.
  const run = await runCli(["run", "nosuch"], { cwd: dir.path });
  assert.equal(run.code, 4);
  assert.match(run.stderr, /no packet here: .* has no prompt_runner_packet\.md, and "nosuch" is not a packet/);
});

Deno.test("completions bash completes commands, group commands, flags and flag values when sourced", async () => {
  const r = await runCli(["completions", "bash"]);
  assert.equal(r.code, 0, r.stderr);
  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/c.bash`, r.stdout);
  const probe = `source ${dir.path}/c.bash
complete -p prompt_runner
t() { COMP_WORDS=("$@"); COMP_CWORD=$((\${#COMP_WORDS[@]}-1)); COMPREPLY=(); _prompt_runner; echo "\${COMPREPLY[*]}"; }
t prompt_runner ru
t prompt_runner contr
t prompt_runner control st
t prompt_runner run --dry
t prompt_runner control status --js
t prompt_runner run --color al
t prompt_runner help workspace
t prompt_runner completions z
`;
  const out = await new Deno.Command("bash", { args: ["--norc", "-c", probe], stdout: "piped", stderr: "piped" })
    .output();
  const lines = new TextDecoder().decode(out.stdout).split("\n");
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  assert.match(lines[0]!, /complete .*-F _prompt_runner prompt_runner/);
  assert.deepEqual(lines.slice(1, 9), [
    "run",
    "control",
    "status steer",
    "--dry-run",
    "--json",
    "always",
    "workspace",
    "zsh",
  ]);
});

Deno.test("completions zsh and fish name every command, group and flag of the table; a bad shell is exit 2", async () => {
  const specs = await Promise.all(COMMANDS.map((c) => c.load()));
  for (const shell of ["zsh", "fish"]) {
    const r = await runCli(["completions", shell]);
    assert.equal(r.code, 0, r.stderr);
    COMMANDS.forEach((c, i) => {
      assert.ok(r.stdout.includes(c.path[c.path.length - 1]!), `${shell}: ${c.path.join(" ")}`);
      for (const flag of Object.keys(specs[i]!.spec.flags)) {
        const spelled = shell === "fish" ? `-l ${flag}` : `--${flag}`;
        assert.ok(r.stdout.includes(spelled), `${shell}: ${c.path.join(" ")} ${flag}`);
      }
    });
    const syntax = await shellSyntax(shell, r.stdout);
    assert.notEqual(syntax, false, `${shell} -n rejects the script`);
  }
  const bad = await runCli(["completions", "tcsh"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^error: completions does not know the shell "tcsh"; allowed: bash, zsh, fish\n/);
});

/** `<shell> -n` on the script: true/false, or null when the shell is not installed. */
async function shellSyntax(shell: string, script: string): Promise<boolean | null> {
  try {
    const child = new Deno.Command(shell, { args: ["-n"], stdin: "piped", stdout: "null", stderr: "null" }).spawn();
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(script));
    await w.close();
    return (await child.status).success;
  } catch {
    return null;
  }
}
