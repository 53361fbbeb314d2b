/**
 * The user's files are the user's (docs/keep_going.md): run preflight refuses target repos with uncommitted changes,
 * listing them, unless `--allow-dirty`; with it, paths dirty before a prompt started stay out of
 * `changed_paths_only`, the commit, every repair prompt, and the keep-going preserve-and-reset.
 */
import assert from "node:assert/strict";
import { runCli, spawnCli } from "../support/cli.ts";
import { git, tempDir } from "../support/fs.ts";
import { history, makePacket, promptFile, readPrompts, readSnapshot } from "./support.ts";
import { waitFor } from "../support/wait.ts";

/** Make the user's own uncommitted changes: an untracked file, an unstaged edit and a staged new file. */
async function dirty(app: string): Promise<void> {
  await Deno.writeTextFile(`${app}/notes.txt`, "my notes\n");
  await Deno.writeTextFile(`${app}/README.md`, "# my edit\n");
  await Deno.writeTextFile(`${app}/staged.txt`, "staged by me\n");
  await git(app, "add", "staged.txt");
}

async function expectUserFilesIntact(app: string): Promise<void> {
  assert.equal(await Deno.readTextFile(`${app}/notes.txt`), "my notes\n");
  assert.equal(await Deno.readTextFile(`${app}/README.md`), "# my edit\n");
  assert.equal(await git(app, "diff", "--cached", "--name-only"), "staged.txt", "the user's staged file stays staged");
  assert.equal(await git(app, "diff", "--name-only"), "README.md", "the user's edit stays unstaged");
}

const PASSING = "verify:\n  files_exist: [a.txt]\nsimulate:\n  attempts:\n    - writes: [{path: a.txt}]";

Deno.test("run refuses a target repo with uncommitted changes, naming it and its paths; nothing runs", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, { "01_a.prompt.md": promptFile("1", PASSING) });
  const app = `${pkt}/app`;
  await dirty(app);
  for (const extra of [[], ["--skip-preflight"]]) {
    const r = await runCli(["run", pkt, ...extra]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /preflight failed/);
    assert.match(
      r.stderr,
      /repo app: 3 uncommitted path\(s\) that are not any prompt's work: README\.md, notes\.txt, staged\.txt; commit or stash them, or pass --allow-dirty/,
    );
    await assert.rejects(() => Deno.stat(`${app}/a.txt`), "no session ran");
    await assert.rejects(() => Deno.stat(`${pkt}/.prompt_runner/state.json`), "no state was written");
  }
  await expectUserFilesIntact(app);
  assert.equal(await git(app, "rev-list", "--count", "HEAD"), "1");
});

Deno.test("--allow-dirty keeps the user's paths out of changed_paths_only, the repair prompt and the commit", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile(
      "1",
      "verify:\n  files_exist: [a.txt, b.txt]\n  changed_paths_only: [a.txt, b.txt]\nsimulate:\n  attempts:\n" +
        "    - writes: [{path: a.txt, text: a}]\n    - writes: [{path: b.txt, text: b}]",
    ),
  });
  const app = `${pkt}/app`;
  await dirty(app);
  const r = await runCli(["run", pkt, "--allow-dirty"]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stdout,
    /Leaving the uncommitted paths already in app out of prompt 01: README\.md, notes\.txt, staged\.txt/,
  );
  const prompts = await readPrompts(pkt);
  assert.deepEqual(history(prompts["01"]), ["run:verification_failed", "repair:completed"]);
  // The first verification judged only the prompt's own paths: the user's are listed apart, not disallowed.
  const first = (prompts["01"]!.attempts[0] as unknown as { verification: { items: Record<string, unknown>[] } })
    .verification.items.find((i) => i.clause === "changed_paths_only")!;
  assert.equal(first.status, "pass", String(first.details));
  assert.deepEqual(first.changed_paths, ["a.txt"]);
  assert.deepEqual(first.preexisting_paths, ["README.md", "notes.txt", "staged.txt"]);
  // The repair prompt never asks the agent to deal with the user's files.
  const events = (await Deno.readTextFile(`${pkt}/.prompt_runner/control/events.jsonl`)).trim().split("\n")
    .map((l) => JSON.parse(l));
  const repair = events.find((e) => e.type === "message_sent" && e.attempt === 2);
  assert.match(repair.data.content, /## Repair pass 1 of 2/);
  for (const f of ["notes.txt", "README.md", "staged.txt"]) assert.ok(!repair.data.content.includes(f), f);
  // The commit holds the prompt's files only; the user's changes are exactly as they were.
  assert.equal(await git(app, "show", "--name-only", "--format=", "HEAD"), "a.txt\nb.txt");
  await expectUserFilesIntact(app);
});

Deno.test("--allow-dirty --keep-going: resetting a failed prompt never touches the user's paths", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile(
      "1",
      "verify:\n  files_exist: [never.txt]\nsimulate:\n  attempts:\n    - writes: [{path: junk.txt, text: j}]",
    ),
    "02_b.prompt.md": promptFile("2", PASSING),
  });
  const app = `${pkt}/app`;
  await dirty(app);
  const r = await runCli(["run", pkt, "--allow-dirty", "--keep-going", "--json"]);
  assert.equal(r.code, 1, r.stderr);
  const runId = JSON.parse(r.stdout.trim().split("\n").at(-1)!).run_id;
  const ref = `refs/prompt_runner/preserved/${runId}/01`;
  assert.equal(await git(app, "show", "--name-only", "--format=", ref), "junk.txt", "only the prompt's work is kept");
  await assert.rejects(() => Deno.stat(`${app}/junk.txt`));
  assert.equal(await git(app, "show", "--name-only", "--format=", "HEAD"), "a.txt");
  await expectUserFilesIntact(app);
});

Deno.test("packet preflight reports a dirty target repo as not runnable unless --allow-dirty", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, { "01_a.prompt.md": promptFile("1", PASSING) });
  await dirty(`${pkt}/app`);
  const r = await runCli(["packet", "preflight", pkt]);
  assert.equal(r.code, 1);
  assert.match(r.stdout, /Runtime not ready\./);
  assert.match(r.stderr, /repo app: 3 uncommitted path\(s\) that are not any prompt's work: README\.md, notes\.txt/);
  const json = JSON.parse((await runCli(["packet", "preflight", pkt, "--json"])).stdout);
  assert.deepEqual(json.readiness_errors.map((e: { kind: string; repo: string }) => [e.kind, e.repo]), [
    ["uncommitted_changes", "app"],
  ]);
  const allowed = await runCli(["packet", "preflight", pkt, "--allow-dirty"]);
  assert.equal(allowed.code, 0, allowed.stderr);
  assert.match(allowed.stdout, /Runtime ready\./);
});

Deno.test("an interrupted prompt's leftovers are its own: the resumed run is not refused and commits them", async () => {
  await using dir = await tempDir();
  const script = "verify:\n  files_exist: [part.txt, done.txt]\nsimulate:\n  attempts:\n" +
    "    - writes: [{path: part.txt, text: part}]\n      delay_ms: 300\n" +
    "      messages: [one, two, three, four, five, six, seven, eight, nine, ten]\n" +
    "  resume:\n    - writes: [{path: done.txt}]";
  const pkt = await makePacket(dir.path, { "01_a.prompt.md": promptFile("1", script) });
  const app = `${pkt}/app`;
  const child = spawnCli(["run", pkt]);
  await waitFor(async () => {
    const s = await readSnapshot(pkt);
    const written = await Deno.stat(`${app}/part.txt`).then(() => true, () => false);
    // The session id must be in state.json, not only in the snapshot, for the next run to resume it.
    const recorded =
      (await readPrompts(pkt).catch(() => ({})) as Record<string, { attempts?: { session_id?: string }[] }>)["01"]
        ?.attempts?.[0]?.session_id;
    return s?.session_live === true && recorded && written;
  });
  child.kill("SIGKILL");
  await child.output();
  const resumed = await runCli(["run", pkt, "--remaining"]);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.doesNotMatch(resumed.stdout, /Leaving the uncommitted paths/);
  assert.equal(await git(app, "show", "--name-only", "--format=", "HEAD"), "done.txt\npart.txt");
  // A user's file next to the leftovers is still refused by a later run.
  await Deno.writeTextFile(`${app}/notes.txt`, "mine\n");
  const later = await runCli(["run", pkt, "--new-run"]);
  assert.equal(later.code, 1);
  assert.match(later.stderr, /repo app: 1 uncommitted path\(s\) that are not any prompt's work: notes\.txt/);
});
