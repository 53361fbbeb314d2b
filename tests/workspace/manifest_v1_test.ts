import assert from "node:assert/strict";
import { parseWorkspaceManifest } from "../../src/workspace/manifest.ts";
import { PacketError } from "../../src/errors.ts";
import { parseRequirement, satisfies } from "../../src/util/version_range.ts";
import { SDK_COMPAT } from "../../src/version.ts";

/** A manifest using every sdk v1 key, as the sdk's workspace guide shows one (our own copy, also used black-box). */
const FULL = await Deno.readTextFile(new URL("../fixtures/workspace/sdk_v1_full.yml", import.meta.url));

const FILE = "/ops/workspace.yml";

function refusal(text: string): string {
  try {
    parseWorkspaceManifest(text, FILE);
  } catch (e) {
    assert.ok(e instanceof PacketError, String(e));
    assert.equal(e.exit, 3);
    assert.ok(e.message.startsWith(`${FILE}: `), `the error names the file: ${e.message}`);
    return e.message;
  }
  assert.fail("expected a refusal");
}

Deno.test("the sdk guide's full workspace manifest (requires, operator, commits, failure_policy, contracts) loads", () => {
  const m = parseWorkspaceManifest(FULL, FILE);
  assert.equal(m.id, "nightly-ops");
  assert.deepEqual(m.requires, {
    promptRunner: ">= 0.13.0 and < 0.14.0",
    capabilities: ["verifier.argv", "agent_control.linear", "containment.systemd_user", "workspace.independent_clone"],
  });
  assert.equal(m.containment, "systemd_user");
  assert.deepEqual(m.commits, { mode: "session", push: "explicit" });
  assert.equal(m.failurePolicy, "continue_independent");
  assert.deepEqual(m.artifacts, [
    { id: "nightly_checks", repo: "service", project: "tools/nightly_checks", type: "escript" },
  ]);
});

Deno.test("defaults: no requires, process_group containment, runner commits with explicit push, fail_fast, no artifacts", () => {
  const m = parseWorkspaceManifest(
    "schema: prompt_runner.workspace/v1\nid: w\nrepositories:\n  app: {remote: r}\n",
    FILE,
  );
  assert.deepEqual(m.requires, { promptRunner: null, capabilities: [] });
  assert.equal(m.containment, "process_group");
  assert.deepEqual(m.commits, { mode: "runner", push: "explicit" });
  assert.equal(m.failurePolicy, "fail_fast");
  assert.deepEqual(m.artifacts, []);
});

Deno.test("requires.prompt_runner: a met range loads; an unmet or malformed one is refused naming the field", () => {
  for (const ok of ["~> 0.13", ">= 0.12.0", "== 0.13.0 or == 1.0.0", "0.13.0", "< 1.0.0 and != 0.12.1"]) {
    parseWorkspaceManifest(FULL.replace(">= 0.13.0 and < 0.14.0", ok), FILE);
  }
  assert.match(
    refusal(FULL.replace(">= 0.13.0 and < 0.14.0", ">= 0.14.0")),
    /requires\.prompt_runner: ">= 0\.14\.0" is not met: this prompt_runner implements the sdk's 0\.13\.0/,
  );
  assert.match(
    refusal(FULL.replace(">= 0.13.0 and < 0.14.0", "newest please")),
    /requires\.prompt_runner: "newest please" is not OP VERSION/,
  );
  assert.match(
    refusal(FULL.replace('">= 0.13.0 and < 0.14.0"', "13")),
    /requires\.prompt_runner: expected a non-empty/,
  );
});

Deno.test("an unmet requirement is reported before keys this release does not know", () => {
  const newer = FULL.replace(">= 0.13.0 and < 0.14.0", ">= 0.20.0") + "telemetry: {}\n";
  assert.match(refusal(newer), /requires\.prompt_runner: .* is not met/);
});

Deno.test("requires.capabilities: installed ones load; a missing one is refused naming it", () => {
  assert.match(
    refusal(FULL.replace("    - verifier.argv\n", "    - verifier.argv\n    - teleport.v2\n")),
    /requires\.capabilities: not installed: teleport\.v2 \(installed: .*verifier\.argv/,
  );
  assert.match(refusal(FULL.replace(/ {2}capabilities:\n( {4}- .*\n)+/, "  capabilities: all\n")), /expected a list/);
  assert.match(
    refusal(FULL.replace("  capabilities:", "  features: []\n  capabilities:")),
    /requires\.features: unknown/,
  );
  // Checked against what is installed (injectable).
  assert.throws(
    () => parseWorkspaceManifest(FULL, FILE, { sdkCompat: SDK_COMPAT, capabilities: ["verifier.argv"] }),
    /not installed: agent_control\.linear, containment\.systemd_user, workspace\.independent_clone/,
  );
});

Deno.test("operator.containment: process_group, systemd_user (and the older none); anything else refused", () => {
  const c = (v: string) => parseWorkspaceManifest(FULL.replace("containment: systemd_user", `containment: ${v}`), FILE);
  assert.equal(c("process_group").containment, "process_group");
  assert.equal(c("none").containment, "process_group");
  assert.match(
    refusal(FULL.replace("containment: systemd_user", "containment: docker")),
    /operator\.containment: does not take "docker"; allowed: process_group, systemd_user/,
  );
});

Deno.test("commits: mode runner|session, push explicit; other values and keys refused", () => {
  assert.deepEqual(parseWorkspaceManifest(FULL.replace("mode: session", "mode: runner"), FILE).commits, {
    mode: "runner",
    push: "explicit",
  });
  assert.match(
    refusal(FULL.replace("mode: session", "mode: agent")),
    /commits\.mode: does not take "agent"; allowed: runner, session/,
  );
  assert.match(
    refusal(FULL.replace("push: explicit", "push: always")),
    /commits\.push: does not take "always"; allowed: explicit/,
  );
  assert.match(refusal(FULL.replace("push: explicit", "push: explicit\n  sign: true")), /commits\.sign: unknown key/);
  assert.match(
    refusal(FULL.replace("commits:\n  mode: session\n  push: explicit", "commits: yes")),
    /commits: expected a map/,
  );
});

Deno.test("failure_policy: fail_fast and continue_independent; anything else refused", () => {
  assert.equal(
    parseWorkspaceManifest(FULL.replace("continue_independent", "fail_fast"), FILE).failurePolicy,
    "fail_fast",
  );
  assert.match(refusal(FULL.replace("continue_independent", "retry")), /failure_policy: does not take "retry"/);
});

Deno.test("contracts.artifacts: escript and command accepted; bad entries refused naming the entry and field", () => {
  const cmd = parseWorkspaceManifest(FULL.replace("type: escript", "type: command"), FILE);
  assert.equal(cmd.artifacts[0]!.type, "command");
  const noType = parseWorkspaceManifest(FULL.replace("      type: escript\n", ""), FILE);
  assert.equal(noType.artifacts[0]!.type, "escript", "the sdk's default type");
  const bad: [string, string, RegExp][] = [
    ["type: escript", "type: jar", /contracts\.artifacts\[0\]\.type: does not take "jar"; allowed: command, escript/],
    [
      "repo: service\n      project",
      "repo: web\n      project",
      /contracts\.artifacts\[0\]\.repo: "web" is not one of/,
    ],
    [
      "project: tools/nightly_checks",
      "project: ../elsewhere",
      /contracts\.artifacts\[0\]\.project: .*repository-relative/,
    ],
    ["project: tools/nightly_checks", "project: /abs", /contracts\.artifacts\[0\]\.project/],
    ["- id: nightly_checks\n      repo:", "- repo:", /contracts\.artifacts\[0\]\.id: is required/],
    ["id: nightly_checks", "id: -x", /contracts\.artifacts\[0\]\.id: "-x" must match/],
    ["type: escript", "type: escript\n      build: make", /contracts\.artifacts\[0\]\.build: unknown key/],
  ];
  for (const [from, to, re] of bad) assert.match(refusal(FULL.replace(from, to)), re, to);
  const twice = FULL + "    - {id: nightly_checks, repo: service, project: tools/other}\n";
  assert.match(refusal(twice), /contracts\.artifacts\[1\]\.id: "nightly_checks" is declared twice/);
  assert.match(
    refusal(FULL.replace("contracts:\n  artifacts:", "contracts:\n  modules: [A]\n  artifacts:")),
    /contracts\.modules: is not supported/,
  );
  parseWorkspaceManifest(FULL.replace("contracts:\n  artifacts:", "contracts:\n  modules: []\n  artifacts:"), FILE);
  assert.match(
    refusal(FULL.replace("contracts:\n  artifacts:", "contracts:\n  binaries: []\n  artifacts:")),
    /contracts\.binaries: unknown key/,
  );
  assert.match(
    refusal(`${FULL.slice(0, FULL.indexOf("contracts:"))}contracts:\n  artifacts: tools\n`),
    /contracts\.artifacts: expected a list/,
  );
});

Deno.test("version requirements follow the sdk's syntax (and binds tighter than or; ~> bounds the next level)", () => {
  const ok = (v: string, r: string) => {
    const req = parseRequirement(r);
    assert.ok(typeof req !== "string", req as string);
    return satisfies(v, req);
  };
  assert.equal(ok("0.13.0", "~> 0.13"), true);
  assert.equal(ok("0.99.1", "~> 0.13"), true);
  assert.equal(ok("1.0.0", "~> 0.13"), false);
  assert.equal(ok("0.13.5", "~> 0.13.2"), true);
  assert.equal(ok("0.14.0", "~> 0.13.2"), false);
  assert.equal(ok("0.14.0-rc.1", "< 0.14.0"), true);
  assert.equal(ok("0.13.0", "> 1.0.0 and < 2.0.0 or == 0.13.0"), true);
  assert.equal(ok("1.5.0", "> 1.0.0 and < 2.0.0 or == 0.13.0"), true);
  assert.equal(ok("2.5.0", "> 1.0.0 and < 2.0.0 or == 0.13.0"), false);
  assert.equal(typeof parseRequirement(">= 0.13"), "string", "a full version is required except after ~>");
});

Deno.test("operator roots: auto, or an absolute path (normalised); a relative one is refused", () => {
  const m = parseWorkspaceManifest(
    FULL.replace("workspace_root: auto", "workspace_root: /srv/ops/../ws/").replace(
      "runtime_root: auto",
      "runtime_root: /srv/state",
    ),
    FILE,
  );
  assert.deepEqual([m.workspaceRoot, m.runtimeRoot], ["/srv/ws", "/srv/state"]);
  assert.match(
    refusal(FULL.replace("runtime_root: auto", "runtime_root: state")),
    /operator\.runtime_root: expected "auto" or an absolute path, got "state"/,
  );
});
