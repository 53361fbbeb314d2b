/**
 * `completions bash|zsh|fish` loaded into the real shell and asked to complete, as a user's Tab would: bash calls the
 * sourced function the way `complete -F` does, zsh runs its completion system inside an interactive shell on a
 * pseudo-terminal (zsh/zpty) and records every match it adds, fish answers `complete -C`. The same cases hold in
 * every shell. A shell that is not installed ignores its test locally (named so) and fails it under CI, where
 * `.ci/run` installs zsh and fish.
 */
import assert from "node:assert/strict";
import { runCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";

/** What is typed (the cursor at its end) → the completions every shell must offer (sorted, a trailing `/` dropped). */
const CASES: [string, string[]][] = [
  ["prompt_runner con", ["control"]],
  ["prompt_runner control st", ["status", "steer"]],
  ["prompt_runner workspace pre", ["prepare"]],
  ["prompt_runner run --dry", ["--dry-run"]],
  ["prompt_runner status --wat", ["--watch"]],
  ["prompt_runner run --color al", ["always"]],
  ["prompt_runner run --log-mode ", ["compact", "studio", "verbose"]],
  ["prompt_runner run --provider co", ["codex"]],
  ["prompt_runner control view --diff ", ["full", "none", "stat"]],
  ["prompt_runner help wor", ["workspace"]],
  ["prompt_runner help control ", ["amend", "contract", "events", "log", "relax", "serve", "status", "steer", "view"]],
  ["prompt_runner completions ", ["bash", "fish", "zsh"]],
  ["prompt_runner status pk", ["pkt"]],
];

async function installed(shell: string): Promise<boolean> {
  try {
    const out = await new Deno.Command(shell, { args: ["-c", "exit 0"], stdout: "null", stderr: "null" }).output();
    return out.success;
  } catch {
    return false;
  }
}

/** Register one shell's test: ignored (and named so) when the shell is missing, failing when missing under CI. */
async function shellTest(shell: string, complete: (script: string, cwd: string) => Promise<string[][]>) {
  const present = await installed(shell);
  const ci = (Deno.env.get("CI") ?? "") !== "";
  Deno.test({
    name: `completions ${shell}: the script loaded into ${shell} completes commands, groups, flags, values and paths` +
      (present || ci ? "" : ` (${shell} not installed: ignored)`),
    ignore: !present && !ci,
    async fn() {
      assert.ok(present, `${shell} is not installed; CI must install it (.ci/run)`);
      const r = await runCli(["completions", shell]);
      assert.equal(r.code, 0, r.stderr);
      await using dir = await tempDir();
      await Deno.mkdir(`${dir.path}/pkt`);
      await Deno.writeTextFile(`${dir.path}/script.${shell}`, r.stdout);
      const got = await complete(`${dir.path}/script.${shell}`, dir.path);
      assert.equal(got.length, CASES.length, `one answer per case from ${shell}`);
      CASES.forEach(([typed, want], i) => {
        const words = [...new Set(got[i]!.map((w) => w.replace(/\/$/, "")))].sort();
        assert.deepEqual(words, want, `${shell}: ${JSON.stringify(typed)}`);
      });
    },
  });
}

async function output(cmd: string, args: string[], cwd: string): Promise<string> {
  const out = await new Deno.Command(cmd, {
    args,
    cwd,
    env: { HOME: cwd, TERM: "xterm" },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(120_000),
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  assert.ok(out.success, `${cmd} exited ${out.code}: ${new TextDecoder().decode(out.stderr)}\n${text}`);
  return text;
}

/** A case's answers split on a separator line. */
function answers(text: string, sep: string): string[][] {
  const parts = text.split(`${sep}\n`);
  parts.pop();
  return parts.map((p) => p.split("\n").filter((l) => l !== ""));
}

const SEP = "----8<----";

await shellTest("bash", async (script, cwd) => {
  // What `complete -F _prompt_runner` does on Tab: COMP_WORDS/COMP_CWORD set, the function fills COMPREPLY.
  const lines = CASES.map(([typed]) => {
    const words = typed.split(" ").map((w) => `'${w}'`).join(" ");
    return `t ${words}; echo '${SEP}'`;
  });
  const probe = `source '${script}'
complete -p prompt_runner >/dev/null || exit 9
t() { COMP_WORDS=("$@"); COMP_CWORD=$((\${#COMP_WORDS[@]}-1)); COMPREPLY=(); _prompt_runner; printf '%s\\n' "\${COMPREPLY[@]}"; }
${lines.join("\n")}
`;
  return answers(await output("bash", ["--norc", "--noprofile", "-c", probe], cwd), SEP);
});

await shellTest("zsh", async (script, cwd) => {
  // An interactive zsh on a pseudo-terminal: compinit, the script, and compadd wrapped to record what it adds. Each
  // case is typed followed by Tab; the line is then cleared and the next record file named. A prompt that counts its
  // commands (P<n>Q) says when the shell is back at its line editor, so keys never reach it in cooked mode.
  const driver = `zmodload zsh/zpty || exit 7
dir=$1; script=$2; shift 2
zpty z zsh -f -i
zpty -w z "setopt promptsubst; __n=0; precmd() { (( __n++ )) }; PS1='P\\\${__n}Q> '; __out=$dir/c0; autoload -U compinit; compinit -u -D; source \${(q)script}; compadd() { local -a __m; builtin compadd -O __m \\"\\$@\\"; print -rl -- \\$__m >> \\$__out; builtin compadd \\"\\$@\\"; }"
zpty -r z line '*P1Q> *' || exit 8
i=0
for typed in "$@"; do
  zpty -n -w z "$typed"$'\\t'
  zpty -n -w z $'\\C-u'
  zpty -w z "__out=$dir/c$((i + 1))"
  zpty -r z line "*P$((i + 2))Q> *" || exit 8
  i=$((i + 1))
done
zpty -d z
for ((j = 0; j < i; j++)); do [[ -f $dir/c$j ]] && cat $dir/c$j; print -r -- '${SEP}'; done
`;
  await Deno.writeTextFile(`${cwd}/driver.zsh`, driver);
  await Deno.mkdir(`${cwd}/rec`);
  const text = await output("zsh", ["-f", `${cwd}/driver.zsh`, `${cwd}/rec`, script, ...CASES.map(([t]) => t)], cwd);
  return answers(text, SEP);
});

await shellTest("fish", async (script, cwd) => {
  const lines = CASES.map(([typed]) => `complete -C '${typed}' | string replace -r '\\t.*' ''; echo '${SEP}'`);
  const text = await output("fish", ["--no-config", "-c", `source '${script}'\n${lines.join("\n")}`], cwd);
  return answers(text, SEP);
});
