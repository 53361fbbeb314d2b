/**
 * A session may not hide its work from `git status` (src/contract/hiding.ts, docs/reference/contract.md §5.1): an
 * agent that flags index entries skip-worktree or assume-unchanged, adds exclude patterns (`.git/info/exclude`,
 * `core.excludesFile`) or writes a `.gitignore` that ignores itself makes `changed_paths_only` and `repos_clean` fail,
 * naming the repo and what changed, and nothing is committed. Flags and sources already there when the prompt
 * started (a sparse checkout) are the user's and never count.
 *
 * The simulated agent writes files (into `.git/` too). What needs git itself (`git update-index`) is run by a script
 * the agent wrote outside the repo and the contract's `commands` runs — anything a session leaves behind that runs
 * before the git clauses is the session's work too.
 */
import assert from "node:assert/strict";
import { runCli } from "../support/cli.ts";
import { git, initRepo, tempDir, writeFiles } from "../support/fs.ts";
import { commitCount, makePacket, promptFile, readPrompts } from "./support.ts";
import { loadPacket } from "../../src/packet/load.ts";
import type { Prompt } from "../../src/packet/mod.ts";
import { packetContract } from "../../src/contract/packet_contract.ts";
import { captureBaseline } from "../../src/run/dirty.ts";
import { captureHiding, hidingRoots, startHidingReads } from "../../src/run/hiding_baseline.ts";
import { spawnTotals } from "../../src/util/read_meter.ts";

type Clause = "changed_paths_only" | "repos_clean";

/** A write of the simulated agent (YAML flow map). */
function write(path: string, text: string, append = false): string {
  return `{path: ${JSON.stringify(path)}, text: ${JSON.stringify(text)}${append ? ", append: true" : ""}}`;
}

/**
 * One prompt whose agent makes `writes`, judged by `clause` (`changed_paths_only: [a.txt]`, or `repos_clean: [app]`
 * where a.txt is not written), with `script` (if any) run by the contract's commands before the git clauses.
 */
function hidingPrompt(clause: Clause, writes: string[], script: string | null = null): string {
  const verify = clause === "changed_paths_only"
    ? "  files_exist: [a.txt]\n  changed_paths_only: [a.txt]\n"
    : "  repos_clean: [app]\n";
  const own = clause === "changed_paths_only" ? [write("a.txt", "a\n")] : [];
  const commands = script === null ? "" : `  commands: [{exec: sh, args: [${JSON.stringify(script)}]}]\n`;
  const all = [...own, ...writes].map((w) => `        - ${w}`).join("\n");
  return promptFile(
    "1",
    `verify:\n${verify}${commands}recovery: {repair: {enabled: false}}\nsimulate:\n  attempts:\n    - writes:\n${all}`,
  );
}

/** Run the packet; expect the clause to fail naming repo app and `what`, and no commit. Returns stderr. */
async function expectHidden(pkt: string, clause: Clause, what: RegExp): Promise<string> {
  const app = `${pkt}/app`;
  const commits = await commitCount(app);
  const r = await runCli(["run", pkt]);
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stderr, /verification failed/);
  assert.match(r.stderr, new RegExp(`${clause}[^\\n]*repo app: what git status hides changed during the prompt: `));
  assert.match(r.stderr, what);
  assert.equal(await commitCount(app), commits, "nothing is committed");
  const prompts = await readPrompts(pkt);
  assert.equal(prompts["01"]!.status, "verification_failed");
  const report = prompts["01"]!.result!.last_verifier as { items: Record<string, unknown>[] };
  const item = report.items.find((i) => i.clause === clause)!;
  assert.equal(item.status, "fail");
  assert.ok(Array.isArray(item.hiding_changes) && item.hiding_changes.length > 0, JSON.stringify(item));
  // The failed prompt's reset cannot undo what it hid: the run says so.
  assert.match(r.stderr, /warning: repo app: what git status hides changed[^\n]*prompt 01 failed/);
  return r.stderr;
}

for (const clause of ["changed_paths_only", "repos_clean"] as const) {
  Deno.test(`${clause}: a pattern appended to .git/info/exclude during the prompt fails it`, async () => {
    await using dir = await tempDir();
    const pkt = await makePacket(dir.path, {
      "01_a.prompt.md": hidingPrompt(clause, [
        write(".git/info/exclude", "secret.txt\n", true),
        write("secret.txt", "hidden work\n"),
      ]),
    });
    await expectHidden(pkt, clause, /\.git\/info\/exclude changed \(added "secret\.txt"\)/);
  });

  Deno.test(`${clause}: core.excludesFile set in .git/config during the prompt fails it`, async () => {
    await using dir = await tempDir();
    const ignore = `${dir.path}/agent-ignore`;
    const pkt = await makePacket(dir.path, {
      "01_a.prompt.md": hidingPrompt(clause, [
        write(ignore, "secret.txt\n"),
        write(".git/config", `[core]\n\texcludesFile = ${ignore}\n`, true),
        write("secret.txt", "hidden work\n"),
      ]),
    });
    const err = await expectHidden(pkt, clause, /core\.excludesFile now points at \S*agent-ignore/);
    assert.match(err, /git config core\.excludesfile changed from unset to "\S*agent-ignore"/);
  });

  Deno.test(`${clause}: an untracked .gitignore that ignores itself fails it`, async () => {
    await using dir = await tempDir();
    const pkt = await makePacket(dir.path, {
      "01_a.prompt.md": hidingPrompt(clause, [write("vendor/.gitignore", "*\n"), write("vendor/blob.bin", "x\n")]),
    });
    await expectHidden(pkt, clause, /ignored \.gitignore created: vendor\/\.gitignore/);
  });

  Deno.test(`${clause}: a root .gitignore of '*' (none was tracked) fails it`, async () => {
    await using dir = await tempDir();
    const pkt = await makePacket(dir.path, {
      "01_a.prompt.md": hidingPrompt(clause, [write(".gitignore", "*\n"), write("secret.txt", "x\n")]),
    });
    await expectHidden(pkt, clause, /ignored \.gitignore created: \.gitignore/);
  });

  for (const flag of ["--skip-worktree", "--assume-unchanged"]) {
    Deno.test(`${clause}: git update-index ${flag} on an edited tracked file fails it`, async () => {
      await using dir = await tempDir();
      const script = `${dir.path}/hide.sh`;
      const pkt = await makePacket(dir.path, {
        "01_a.prompt.md": hidingPrompt(
          clause,
          [write(script, `git update-index ${flag} README.md\n`), write("README.md", "# rewritten by the agent\n")],
          script,
        ),
      });
      await expectHidden(pkt, clause, /skip-worktree\/assume-unchanged set on README\.md/);
    });
  }

  Deno.test(`${clause}: a tracked .gitignore made skip-worktree and edited fails it`, async () => {
    await using dir = await tempDir();
    const script = `${dir.path}/hide.sh`;
    const pkt = await makePacket(dir.path, {
      "01_a.prompt.md": hidingPrompt(
        clause,
        [
          write(script, "git update-index --skip-worktree .gitignore\n"),
          write(".gitignore", "*.log\nsecret.txt\n"),
          write("secret.txt", "x\n"),
        ],
        script,
      ),
    });
    const app = `${pkt}/app`;
    await Deno.writeTextFile(`${app}/.gitignore`, "*.log\n");
    await git(app, "add", ".gitignore");
    await git(app, "commit", "-q", "-m", "ignore logs");
    await expectHidden(pkt, clause, /skip-worktree\/assume-unchanged set on \.gitignore/);
  });
}

Deno.test("flags and exclude sources already there when the prompt starts (a sparse checkout) pass", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile(
      "1",
      "verify:\n  files_exist: [keep/a.txt]\n  changed_paths_only: [keep/a.txt]\nsimulate:\n  attempts:\n" +
        `    - writes: [${write("keep/a.txt", "a\n")}]`,
    ),
    "02_b.prompt.md": promptFile(
      "2",
      "verify:\n  repos_clean: [app]\nsimulate:\n  attempts:\n    - writes: []",
    ),
  });
  const app = `${pkt}/app`;
  // More flagged entries than a baseline names (it keeps their digest), an assume-unchanged one, and the user's
  // own exclude patterns.
  const files: Record<string, string> = { "keep/README.md": "k\n", "self.txt": "s\n" };
  for (let i = 0; i < 260; i++) files[`far/f${i}.txt`] = `${i}\n`;
  await writeFiles(app, files);
  await git(app, "add", "-A");
  await git(app, "commit", "-q", "-m", "tree");
  await git(app, "sparse-checkout", "set", "--no-cone", "/*", "!/far/");
  await git(app, "update-index", "--assume-unchanged", "self.txt");
  await Deno.writeTextFile(`${app}/.git/info/exclude`, "*.tmp\n");
  await Deno.writeTextFile(`${app}/scratch.tmp`, "mine\n");
  const flagged = (await git(app, "ls-files", "-v")).split("\n").filter((l) => /^(S|[a-z]) /.test(l));
  assert.ok(flagged.length > 260, `${flagged.length} flagged`);
  const r = await runCli(["run", pkt]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.doesNotMatch(r.stderr, /what git status hides/);
  assert.equal(await git(app, "show", "--name-only", "--format=", "HEAD"), "keep/a.txt");
});

Deno.test("past the flags a baseline names, one more flagged entry still fails", async () => {
  await using dir = await tempDir();
  const script = `${dir.path}/hide.sh`;
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": hidingPrompt(
      "repos_clean",
      [write(script, "git update-index --assume-unchanged README.md\n"), write("README.md", "# changed\n")],
      script,
    ),
  });
  const app = `${pkt}/app`;
  const files: Record<string, string> = {};
  for (let i = 0; i < 260; i++) files[`far/f${i}.txt`] = `${i}\n`;
  await writeFiles(app, files);
  await git(app, "add", "-A");
  await git(app, "commit", "-q", "-m", "tree");
  // (A sparse checkout's git clears skip-worktree from a file that is present in its cone: assume-unchanged stays.)
  await git(app, "sparse-checkout", "set", "--no-cone", "/*", "!/far/");
  const err = await expectHidden(pkt, "repos_clean", /skip-worktree\/assume-unchanged/);
  // README.md sorts before far/…: the kept names tell it was not flagged at the start.
  assert.match(err, /set on README\.md/);
});

Deno.test("a linked worktree: the exclude file of its common git dir is watched", async () => {
  await using dir = await tempDir();
  const main = `${dir.path}/main`;
  await initRepo(main);
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": hidingPrompt("changed_paths_only", [
      write(`${main}/.git/info/exclude`, "secret.txt\n", true),
      write("secret.txt", "hidden work\n"),
    ]),
  });
  const app = `${pkt}/app`;
  await Deno.remove(app, { recursive: true });
  await git(main, "worktree", "add", "-q", app, "-b", "feature");
  await git(app, "config", "user.name", "Test");
  await git(app, "config", "user.email", "test@example.invalid");
  assert.ok((await Deno.stat(`${app}/.git`)).isFile, "a linked worktree's .git is a file");
  await expectHidden(pkt, "changed_paths_only", /info\/exclude changed \(added "secret\.txt"\)/);
});

Deno.test("a visible .gitignore the contract allows is no hiding", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile(
      "1",
      "verify:\n  changed_paths_only: [.gitignore, a.txt]\n  files_exist: [a.txt]\nsimulate:\n  attempts:\n" +
        `    - writes: [${write(".gitignore", "*.log\n")}, ${write("a.txt", "a\n")}, ${write("x.log", "l\n")}]`,
    ),
  });
  const r = await runCli(["run", pkt]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.equal(await git(`${pkt}/app`, "show", "--name-only", "--format=", "HEAD"), ".gitignore\na.txt");
});

Deno.test("the baseline reads hiding state only for a contract with a git clause: one git, else three", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile("1", "verify:\n  files_exist: [a.txt]"),
    "02_b.prompt.md": promptFile("2", "verify:\n  files_exist: [a.txt]\n  changed_paths_only: [a.txt]"),
  });
  const packet = await loadPacket(pkt);
  const [trivial, judged] = packet.prompts;
  const startOf = async (prompt: Prompt) => {
    const before = spawnTotals("git");
    const roots = hidingRoots(packet, prompt, packetContract(prompt));
    const reads = startHidingReads(roots);
    const baseline = await captureBaseline(packet, prompt, null, null, null, null, new Set(reads.keys()));
    const hiding = await captureHiding(reads, baseline);
    return { spawns: spawnTotals("git") - before, roots, hiding };
  };
  const t = await startOf(trivial!);
  assert.deepEqual(t.roots, [], "files_exist only: no root is judged");
  assert.equal(t.spawns, 1, "its baseline's git status, nothing more");
  assert.deepEqual(t.hiding, {});
  const j = await startOf(judged!);
  assert.deepEqual(j.roots, [await Deno.realPath(`${pkt}/app`)]);
  assert.equal(j.spawns, 3, "git status (with the ignored paths), ls-files -v and config --get-regexp");
  const state = j.hiding[j.roots[0]!]!;
  assert.equal(state.flags.count, 0);
  assert.deepEqual(state.sources.map((s) => s.kind), [
    "info/exclude",
    "core.excludesFile",
    "info/attributes",
    "core.attributesFile",
  ]);
});
