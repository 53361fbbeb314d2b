/** The hiding state of a repo and what changed in it (src/contract/hiding.ts): parsing and comparison, pure. */
import assert from "node:assert/strict";
import { FLAG_LIST_MAX, hidingChanges, type HidingState, parseConfig, parseFlags } from "../../src/contract/hiding.ts";

function state(lsFiles: string, over: Partial<HidingState> = {}): { state: HidingState; all: string[] } {
  const { flags, all } = parseFlags(lsFiles);
  return {
    state: {
      flags,
      sources: [{ kind: "info/exclude", path: "/r/.git/info/exclude", digest: "d1", text: "# mine\n" }],
      config: {},
      ignoreFiles: {},
      ...over,
    },
    all,
  };
}

Deno.test("parseFlags: lowercase tags (assume-unchanged) and S/s (skip-worktree) are flagged, H is not", () => {
  const { flags, all } = parseFlags("H a\0h b\0S c\0s d\0M e\0");
  assert.deepEqual(all, ["b", "c", "d"]);
  assert.equal(flags.count, 3);
  assert.deepEqual(flags.paths, ["b", "c", "d"]);
  assert.match(flags.digest, /^[0-9a-f]{64}$/);
});

Deno.test("parseFlags keeps the first paths of a large set and the digest of all", () => {
  const many = Array.from({ length: FLAG_LIST_MAX + 50 }, (_, i) => `S f${String(i).padStart(4, "0")}`);
  const { flags, all } = parseFlags(many.join("\0") + "\0");
  assert.equal(flags.count, FLAG_LIST_MAX + 50);
  assert.equal(flags.paths.length, FLAG_LIST_MAX);
  assert.equal(all.length, FLAG_LIST_MAX + 50);
});

Deno.test("hidingChanges: flags gained are named; flags cleared are not (they show more, never less)", () => {
  const before = state("S a\0H b\0").state;
  const gained = state("S a\0h b\0");
  assert.deepEqual(hidingChanges(before, gained.state, gained.all, "/r"), [
    "skip-worktree/assume-unchanged set on b (git no longer reports changes to them)",
  ]);
  const cleared = state("H a\0H b\0");
  assert.deepEqual(hidingChanges(before, cleared.state, cleared.all, "/r"), []);
  const same = state("S a\0H b\0");
  assert.deepEqual(hidingChanges(before, same.state, same.all, "/r"), []);
});

Deno.test("hidingChanges: past the kept names, a changed set is reported with its counts", () => {
  const names = Array.from({ length: FLAG_LIST_MAX + 5 }, (_, i) => `S f${String(i).padStart(4, "0")}`);
  const before = state(names.join("\0")).state;
  const after = state([...names, "S zz"].join("\0"));
  const changes = hidingChanges(before, after.state, after.all, "/r");
  assert.equal(changes.length, 1);
  assert.match(changes[0]!, /flags changed \(205 flagged entries at the prompt's start, 206 now/);
  const early = state([...names, "h a-first"].join("\0"));
  assert.match(hidingChanges(before, early.state, early.all, "/r")[0]!, /set on a-first/);
});

Deno.test("hidingChanges: sources by their lines, config keys by value, ignore files created or changed", () => {
  const before = state("", { ignoreFiles: { "keep/.gitignore": "x1" } }).state;
  const now = state("", {
    sources: [{ kind: "info/exclude", path: "/r/.git/info/exclude", digest: "d2", text: "# mine\n*.txt\n" }],
    config: { "core.excludesfile": ["/tmp/ign"] },
    ignoreFiles: { "keep/.gitignore": "x2", "new/.gitignore": "y" },
  });
  assert.deepEqual(hidingChanges(before, now.state, now.all, "/r"), [
    '.git/info/exclude changed (added "*.txt")',
    'git config core.excludesfile changed from unset to "/tmp/ign"',
    "ignored .gitignore created: new/.gitignore",
    "ignored or pre-existing .gitignore changed: keep/.gitignore",
  ]);
});

Deno.test("parseConfig: -z records, a key without a value, repeated keys", () => {
  assert.deepEqual(parseConfig("core.excludesfile\n/a\0core.fsmonitor\0filter.x.clean\ncat\0filter.x.clean\ntac\0"), {
    "core.excludesfile": ["/a"],
    "core.fsmonitor": [""],
    "filter.x.clean": ["cat", "tac"],
  });
});
