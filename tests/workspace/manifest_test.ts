import assert from "node:assert/strict";
import { loadWorkspaceManifest, parseWorkspaceManifest } from "../../src/workspace/manifest.ts";
import { tempDir } from "../support/fs.ts";
import { PacketError } from "../../src/errors.ts";
import { workspacePaths } from "../../src/workspace/paths.ts";

const OK = `schema: prompt_runner.workspace/v1
id: operator-packet
repositories:
  app:
    remote: git@example.invalid:acme/app.git
    ref: main
    source: ../app
  docs:
    remote: git@example.invalid:acme/docs.git
packet:
  repo: app
  path: packets/operator-packet/
operator:
  workspace_root: auto
  runtime_root: /srv/state/op
failure_policy: continue_independent
`;

Deno.test("parseWorkspaceManifest() reads every key with defaults and resolves sources from the manifest dir", () => {
  const m = parseWorkspaceManifest(OK, "/home/ada/ops/workspace.yml");
  assert.equal(m.id, "operator-packet");
  assert.deepEqual(m.repositories.map((r) => [r.name, r.ref, r.source]), [
    ["app", "main", "/home/ada/app"],
    ["docs", "main", null],
  ]);
  assert.deepEqual(m.packet, { repo: "app", path: "packets/operator-packet" });
  assert.equal(m.runtimeRoot, "/srv/state/op");
  assert.equal(m.failurePolicy, "continue_independent");
});

function refusal(text: string): PacketError {
  try {
    parseWorkspaceManifest(text, "/w/workspace.yml");
  } catch (e) {
    assert.ok(e instanceof PacketError, String(e));
    assert.equal(e.exit, 3);
    return e;
  }
  assert.fail("expected a refusal");
}

Deno.test("parseWorkspaceManifest() refuses unknown keys at every level, naming the key", () => {
  assert.match(refusal(OK + "colour: blue\n").message, /colour: unknown key/);
  assert.match(
    refusal(OK.replace("ref: main", "ref: main\n    branch: x")).message,
    /repositories\.app\.branch: unknown key/,
  );
  assert.match(
    refusal(OK.replace("runtime_root: /srv/state/op", "runtime_root: /x\n  extra: 1")).message,
    /operator\.extra/,
  );
  assert.match(refusal(OK.replace("path: packets/operator-packet/", "path: p\n  name: n")).message, /packet\.name/);
});

Deno.test("parseWorkspaceManifest() refuses unsafe packet bindings and unknown repositories", () => {
  assert.match(
    refusal(OK.replace("path: packets/operator-packet/", "path: /abs/packet")).message,
    /packet\.path.*repository-relative/,
  );
  assert.match(refusal(OK.replace("path: packets/operator-packet/", "path: a/../../b")).message, /packet\.path/);
  assert.match(refusal(OK.replace("repo: app", "repo: nope")).message, /packet\.repo: "nope" is not one of/);
});

Deno.test("parseWorkspaceManifest() refuses bad values with what was expected", () => {
  assert.match(refusal(OK.replace("schema: prompt_runner.workspace/v1", "schema: v0")).message, /schema: expected/);
  assert.match(refusal(OK.replace("id: operator-packet", "id: -bad id")).message, /id: "-bad id" must match/);
  assert.match(
    refusal(OK.replace("failure_policy: continue_independent", "failure_policy: maybe")).message,
    /allowed: continue_independent, fail_fast/,
  );
  assert.match(
    refusal(OK.replace("    remote: git@example.invalid:acme/docs.git\n", "    ref: main\n")).message,
    /repositories\.docs\.remote: is required/,
  );
  assert.match(refusal(OK.replace("runtime_root: /srv/state/op", "runtime_root: rel/dir")).message, /absolute path/);
  assert.match(refusal("schema: [").message, /workspace\.yml:\d+:\d+: invalid YAML/);
});

Deno.test("workspacePaths() follows XDG homes with fallbacks and names store roots", () => {
  const m = parseWorkspaceManifest(OK.replace("runtime_root: /srv/state/op", "runtime_root: auto"), "/w/workspace.yml");
  const env = (vars: Record<string, string>) => (k: string) => vars[k];
  const p = workspacePaths(m, env({ HOME: "/home/ada", XDG_STATE_HOME: "/xs" }));
  assert.equal(p.workspaceRoot, "/home/ada/.local/share/prompt_runner/workspaces/operator-packet");
  assert.equal(p.boundStoreRoot, "/xs/prompt_runner/workspaces/operator-packet/packet");
  assert.equal(
    p.storeRootFor("app", "packets/other"),
    "/xs/prompt_runner/workspaces/operator-packet/packets/app--packets-other",
  );
  assert.equal(p.registryEntry, "/home/ada/.local/share/prompt_runner/workspace-references/operator-packet.json");
});

Deno.test("loadWorkspaceManifest() refuses a FIFO or a directory by name instead of blocking or an OS error", async () => {
  await using dir = await tempDir();
  const fifo = `${dir.path}/ws.yml`;
  assert.ok((await new Deno.Command("mkfifo", { args: [fifo] }).output()).success);
  await assert.rejects(loadWorkspaceManifest(fifo), /is not a regular file; expected a YAML file/);
  await Deno.mkdir(`${dir.path}/d.yml`);
  await assert.rejects(loadWorkspaceManifest(`${dir.path}/d.yml`), /is a directory; expected a YAML file/);
});
