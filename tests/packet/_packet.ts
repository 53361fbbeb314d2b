/** Helpers for packet tests: write a packet into a temp dir. */
import { writeFiles } from "../support/fs.ts";

/** Absolute path of a fixture packet. */
export function fixture(name: string): string {
  return new URL(`../fixtures/packets/${name}`, import.meta.url).pathname;
}

/** Write a packet: manifest front matter text (without fences) and prompt files (name → full text). */
export async function writePacket(
  root: string,
  manifest: string,
  prompts: Record<string, string>,
  extra: Record<string, string> = {},
): Promise<string> {
  const files: Record<string, string> = { "prompt_runner_packet.md": `---\n${manifest}---\n# Packet\n`, ...extra };
  for (const [name, text] of Object.entries(prompts)) files[`prompts/${name}`] = text;
  await writeFiles(root, files);
  return root;
}

/** A prompt file with the given front matter lines and body. */
export function promptText(frontMatter: string, body = "# Prompt\n"): string {
  return `---\n${frontMatter}---\n${body}`;
}

/** A listing of every path under a directory with its size and mtime, to prove a command wrote nothing. */
export async function treeSnapshot(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string) => {
    for await (const e of Deno.readDir(dir)) {
      const path = `${dir}/${e.name}`;
      const info = await Deno.lstat(path);
      out.push(`${path} ${info.size} ${info.mtime?.getTime()}`);
      if (e.isDirectory) await walk(path);
    }
  };
  await walk(root);
  return out.sort();
}
