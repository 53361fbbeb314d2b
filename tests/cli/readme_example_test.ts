/**
 * The README's packet example runs exactly as written: the test extracts the alias line, the setup commands, the two
 * files and the run commands from README.md and runs them with bash in an empty directory.
 */
import assert from "node:assert/strict";
import { childEnv, ROOT, runCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";

const README = Deno.readTextFileSync(`${ROOT}/README.md`);

/** The README's packet example, taken apart. */
export interface ReadmeExample {
  alias: string;
  setup: string;
  files: Record<string, string>;
  run: string;
}

/** Extract the packet example from the README text. */
export function readmeExample(text: string): ReadmeExample {
  const alias = /```bash\n(alias prompt_runner=.*)\n```/.exec(text)?.[1];
  assert.ok(alias, "README has no `alias prompt_runner=…` block");
  const start = text.indexOf("## A packet");
  const end = text.indexOf("\n## ", start + 1);
  assert.ok(start >= 0 && end > start, "README has no '## A packet' section");
  const section = text.slice(start, end);
  const bash = [...section.matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1]!);
  assert.ok(bash.length >= 2, "the packet section needs a setup block and a run block");
  const files: Record<string, string> = {};
  for (const m of section.matchAll(/^`([^`\s]+)`[^\n]*:\n\n```markdown\n([\s\S]*?)```/gm)) files[m[1]!] = m[2]!;
  return { alias, setup: bash[0]!, files, run: bash[bash.length - 1]! };
}

Deno.test("the README's packet example runs as written and commits the prompt's work", async () => {
  const ex = readmeExample(README);
  assert.deepEqual(Object.keys(ex.files).sort(), [
    "demo/prompt_runner_packet.md",
    "demo/prompts/01_create_hello.prompt.md",
  ]);
  assert.match(ex.run, /^prompt_runner run demo$/m);
  await using dir = await tempDir();
  const setup = await bash(dir.path, ex.setup);
  assert.equal(setup.code, 0, setup.err);
  for (const [path, text] of Object.entries(ex.files)) await Deno.writeTextFile(`${dir.path}/${path}`, text);
  const run = await bash(dir.path, `cd ${quote(ROOT)}\n${ex.alias}\ncd ${quote(dir.path)}\n${ex.run}`);
  assert.equal(run.code, 0, `${run.out}\n--- stderr ---\n${run.err}`);
  assert.match(run.out, /✓ Prompt 01 completed/);
  assert.match(run.out, /^[0-9a-f]{7,} feat: add hello$/m, "git log shows the prompt's commit");
  assert.equal(await Deno.readTextFile(`${dir.path}/app/hello.txt`), "hello\n");
});

Deno.test("run names the command that makes a target repo a git repository, and that command works", async () => {
  const ex = readmeExample(README);
  await using dir = await tempDir();
  await Deno.mkdir(`${dir.path}/demo/prompts`, { recursive: true });
  await Deno.mkdir(`${dir.path}/app`);
  for (const [path, text] of Object.entries(ex.files)) await Deno.writeTextFile(`${dir.path}/${path}`, text);
  const refused = await runCli(["run", `${dir.path}/demo`]);
  assert.notEqual(refused.code, 0);
  const hint =
    /is not inside a git work tree \(make it a git repository: (git -C .+ commit --allow-empty -m "initial commit")\)/
      .exec(refused.stderr);
  assert.ok(hint, refused.stderr);
  const preflight = await runCli(["packet", "preflight", `${dir.path}/demo`]);
  assert.ok(preflight.stderr.includes(hint[1]!), preflight.stderr);
  // The hint is runnable as printed (with an identity for the commit, as the README's setup configures).
  const fixed = await bash(dir.path, hint[1]!, {
    GIT_AUTHOR_NAME: "t",
    GIT_AUTHOR_EMAIL: "t@e.invalid",
    GIT_COMMITTER_NAME: "t",
    GIT_COMMITTER_EMAIL: "t@e.invalid",
  });
  assert.equal(fixed.code, 0, fixed.err);
  const again = await runCli(["packet", "preflight", `${dir.path}/demo`, "--json"]);
  assert.doesNotMatch(again.stdout, /not_git_repo/);
});

function quote(s: string): string {
  return `'${s.replaceAll("'", "'\\''")}'`;
}

async function bash(cwd: string, script: string, env: Record<string, string> = {}) {
  const out = await new Deno.Command("bash", {
    args: ["-euc", `shopt -s expand_aliases\n${script}`],
    cwd,
    clearEnv: true,
    // `deno` as the README's alias calls it: the one running this test, first on PATH.
    env: childEnv({ PATH: `${Deno.execPath().replace(/\/[^/]*$/, "")}:${Deno.env.get("PATH") ?? ""}`, ...env }),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, out: dec.decode(out.stdout), err: dec.decode(out.stderr) };
}
