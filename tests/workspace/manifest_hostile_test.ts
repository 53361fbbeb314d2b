/**
 * Workspace manifest values that reach git's argv: a `remote` or `ref` that git would read as an option
 * (`--upload-pack=…` runs a command) or that is no ref name is refused at load, naming the file, the key and what was
 * expected; ordinary names load.
 */
import assert from "node:assert/strict";
import { parseWorkspaceManifest } from "../../src/workspace/manifest.ts";
import { PacketError } from "../../src/errors.ts";

const FILE = "/ops/workspace.yml";

function manifest(repo: string): string {
  return `schema: prompt_runner.workspace/v1\nid: ops\nrepositories:\n  app: ${repo}\n`;
}

function refusal(text: string): string {
  try {
    parseWorkspaceManifest(text, FILE);
  } catch (e) {
    assert.ok(e instanceof PacketError, String(e));
    return e.message;
  }
  assert.fail(`expected a refusal of ${text}`);
}

Deno.test("a remote or ref git would read as an option, or that is no ref name, is refused naming the key", () => {
  for (const remote of ["--upload-pack=touch /tmp/pwned", "-uhack", "git@h:a/b.git\nx"]) {
    const m = refusal(manifest(`{remote: ${JSON.stringify(remote)}}`));
    assert.ok(m.startsWith(`${FILE}: repositories.app.remote: `), m);
    assert.match(m, /expected a git URL or path \(not starting with "-", no control characters\)/);
  }
  for (const ref of ["--orphan=x", "-f", "a b", "a..b", "x\ny", "main.lock", "feat/", "HEAD@{1}", "a~1", "a:b"]) {
    const m = refusal(manifest(`{remote: /srv/app.git, ref: ${JSON.stringify(ref)}}`));
    assert.ok(m.startsWith(`${FILE}: repositories.app.ref: `), m);
    assert.match(m, /expected a branch, tag or commit name \(not starting with "-"/);
  }
});

Deno.test("ordinary remotes and refs load", () => {
  for (const ref of ["main", "release/1.2", "v1.0.0", "0123456789abcdef0123456789abcdef01234567", "feat-x_y"]) {
    const m = parseWorkspaceManifest(manifest(`{remote: "git@example.com:team/app.git", ref: ${ref}}`), FILE);
    assert.equal(m.repositories[0]!.ref, ref);
  }
  const local = parseWorkspaceManifest(manifest("{remote: /srv/git/app.git}"), FILE);
  assert.equal(local.repositories[0]!.remote, "/srv/git/app.git");
});
