/**
 * Workspace fixtures for tests: an author's checkout holding a packet, a bare "remote" cloned from it, a workspace
 * manifest, and private XDG homes — all inside one temp dir.
 */
import { git, initRepo, writeFiles } from "../support/fs.ts";

/** A prepared-able workspace fixture. */
export interface WorkspaceFixture {
  root: string;
  /** The author's checkout (`source`). */
  author: string;
  remote: string;
  manifest: string;
  /** Environment with private HOME and XDG dirs (plus a fixed git identity). */
  env: Record<string, string>;
  /** Where `workspace prepare` puts the clone of `app`. */
  clone: string;
  /** The bound packet's store root. */
  store: string;
}

/** A simulated step that keeps a session live for `n × delay` ms. */
export function slowStep(n: number, delayMs: number, extra = ""): string {
  const msgs = Array.from({ length: n }, (_, i) => `"working ${i + 1}"`).join(", ");
  return `{delay_ms: ${delayMs}, messages: [${msgs}]${extra}}`;
}

/** The packet manifest of the fixture (repo `app` relative to the packet). */
export const PACKET_MANIFEST =
  "---\nname: op\nprofile: simulated-default\nrepos:\n  app: {path: ../.., default: true}\n---\n";

/** Build the fixture under `root`. `manifestExtra` is appended to the workspace manifest. */
export async function workspaceFixture(
  root: string,
  opts: { id?: string; bind?: boolean; files?: Record<string, string>; manifestExtra?: string } = {},
): Promise<WorkspaceFixture> {
  const id = opts.id ?? "op-ws";
  const author = `${root}/author/app`;
  await initRepo(author, {
    "README.md": "# app\n",
    "packets/op/prompt_runner_packet.md": PACKET_MANIFEST,
    "packets/op/prompts/01_hello.prompt.md":
      `---\nverify:\n  files_exist: [hello.txt]\nsimulate:\n  attempts:\n    - {writes: [{path: hello.txt, text: "hi"}]}\n---\n# Hello\n\nWork in ${author} only.\n`,
    ...opts.files,
  });
  const remote = `${root}/remote/${id}.git`;
  await git(root, "clone", "-q", "--bare", author, remote);
  const manifest = `${root}/ops/${id}.yml`;
  const binding = opts.bind === false ? "" : "packet:\n  repo: app\n  path: packets/op\n";
  await writeFiles(root, {
    [`ops/${id}.yml`]: `schema: prompt_runner.workspace/v1\nid: ${id}\nrepositories:\n  app:\n    remote: ${remote}\n` +
      `    source: ../author/app\n${binding}${opts.manifestExtra ?? ""}`,
  });
  const env = {
    HOME: `${root}/home`,
    XDG_DATA_HOME: `${root}/data`,
    XDG_STATE_HOME: `${root}/state`,
    XDG_CONFIG_HOME: `${root}/config`,
    GIT_AUTHOR_NAME: "Test",
    GIT_AUTHOR_EMAIL: "test@example.invalid",
    GIT_COMMITTER_NAME: "Test",
    GIT_COMMITTER_EMAIL: "test@example.invalid",
    GIT_CONFIG_NOSYSTEM: "1",
  };
  return {
    root,
    author,
    remote,
    manifest,
    env,
    clone: `${root}/data/prompt_runner/workspaces/${id}/repos/app`,
    store: `${root}/state/prompt_runner/workspaces/${id}/packet`,
  };
}

/** sha256 of every file outside `.git` plus `git status --porcelain`: equal digests mean an untouched checkout. */
export async function treeDigest(dir: string): Promise<string> {
  const out = await new Deno.Command("bash", {
    args: [
      "-c",
      "find . -path ./.git -prune -o -type f -print0 | sort -z | xargs -0 sha256sum; git status --porcelain",
    ],
    cwd: dir,
    stdout: "piped",
  }).output();
  return new TextDecoder().decode(out.stdout);
}

/** Every file path under `dir` (relative), for "nothing was written here" checks. */
export async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string, rel: string) => {
    for await (const e of Deno.readDir(d)) {
      if (e.name === ".git") continue;
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory) await walk(`${d}/${e.name}`, r);
      else out.push(r);
    }
  };
  await walk(dir, "");
  return out.sort();
}
