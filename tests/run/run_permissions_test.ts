import assert from "node:assert/strict";
import {
  allowRunFlag,
  commandExecutable,
  neededExecutables,
  type PromptSpawns,
} from "../../src/run/run_permissions.ts";
import { DRIVER_EXECUTABLES } from "../../src/util/executables.ts";

const REPOS = { app: "/w/app", lib: "/w/lib", packet: "/w/pkt", "@artifact:tools": "/w/tools/run.sh" };

function prompt(over: Partial<PromptSpawns> = {}): PromptSpawns {
  return { id: "01", lane: null, cwd: "/w/app", scope: "/w/app", commands: [], ...over };
}

Deno.test("neededExecutables() is git alone for an in-process lane without commands", () => {
  const r = neededExecutables({ prompts: [prompt()], repos: REPOS });
  assert.deepEqual(r.run, ["git"]);
  assert.equal(allowRunFlag(r.run), "--allow-run=git");
});

Deno.test("neededExecutables() lists lane executables as spawned, then commands, then helpers", () => {
  const lane = (executable: string) => ({ name: "claude", executable, helpers: DRIVER_EXECUTABLES });
  const r = neededExecutables({
    prompts: [
      prompt({ lane: lane("claude"), commands: [{ exec: "deno", args: ["test"] }, "make check"] }),
      prompt({ id: "02", lane: lane("./bin/claude"), cwd: "/w/lib", commands: [{ exec: "deno", args: ["lint"] }] }),
    ],
    repos: REPOS,
  });
  assert.deepEqual(r.run, ["git", "claude", "/w/lib/bin/claude", "deno", "bash", "cat", "/bin/sh", "kill"]);
  assert.deepEqual(r.needs.find((n) => n.command === "deno")?.needed_by, [
    "verification 01 commands#1",
    "verification 02 commands#1",
  ]);
  assert.deepEqual(r.needs.find((n) => n.command === "bash")?.needed_by, ["verification 01 commands#2"]);
});

Deno.test("commandExecutable() follows the verifier's substitutions and lookup rules", () => {
  const exe = (entry: unknown) => commandExecutable(entry, "/w/app", REPOS);
  assert.equal(exe({ exec: "python3", args: ["-V"] }), "python3");
  assert.equal(exe({ program: "/usr/bin/env" }), "/usr/bin/env");
  assert.equal(exe({ exec: "./scripts/check.sh" }), "/w/app/scripts/check.sh");
  assert.equal(exe({ exec: "./check.sh", cwd: "scripts" }), "/w/app/scripts/check.sh");
  assert.equal(exe({ exec: "tools/x", repo: "lib" }), "/w/lib/tools/x");
  assert.equal(exe({ exec: "@repo:lib/bin/verify" }), "/w/lib/bin/verify");
  assert.equal(exe({ exec: "@artifact:tools" }), "/w/tools/run.sh");
  assert.equal(exe("deno task ok"), "bash");
  assert.equal(exe({ run: "deno task ok" }), "bash");
  // Never spawned: an invalid entry, an unknown repo.
  assert.equal(exe({ exec: "" }), null);
  assert.equal(exe({ exec: "x", repo: "nope" }), null);
});

Deno.test("neededExecutables() adds kill only when some command runs", () => {
  const r = neededExecutables({ prompts: [prompt({ commands: [{ exec: "" }] })], repos: REPOS });
  assert.deepEqual(r.run, ["git"]);
});
