/**
 * Packet files stay inside the packet (docs/reference/packet.md §1): a file the loader reads from a packet — the
 * manifest, each prompt file — and a checklist written next to a prompt may be a symlink, or lie under a linked
 * directory, only when its real path is inside the packet. A packet someone else wrote may otherwise turn a link
 * (`prompts/01.prompt.md -> ~/.ssh/id_rsa`) into a prompt sent to a provider, or a checklist into a write elsewhere.
 */
import { dirname, resolve } from "../util/path.ts";

/** Where a packet file really is, when that is outside the packet: its real path and the link that leads there. */
export interface OutsidePacket {
  real: string;
  /** The first symlink on the path (the file itself, or a directory above it) and its target. */
  link: { path: string; target: string } | null;
}

/** The first symlink on `file`'s path below `root` (the file itself or a directory), with its target. */
function firstLink(root: string, file: string): { path: string; target: string } | null {
  const parts = file.slice(root.length + 1).split("/");
  let at = root;
  for (const part of parts) {
    at = `${at}/${part}`;
    let info: Deno.FileInfo;
    try {
      info = Deno.lstatSync(at);
    } catch {
      return null;
    }
    if (info.isSymlink) return { path: at, target: Deno.readLinkSync(at) };
  }
  return null;
}

/**
 * Null when `file` (absolute, under the canonical packet dir `root`, or missing) really lies inside the packet; else
 * where it resolves. A missing file (or a dangling link) is left to the reader, which reports it. Synchronous: a few
 * path lookups, and a reader checking one file after another (`replay`'s headers) pays no round trip per check.
 */
export function outsidePacketSync(root: string, file: string): OutsidePacket | null {
  let real: string;
  try {
    real = Deno.realPathSync(file);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory) {
      // A dangling link still names a target: a write through it would create a file there.
      const link = file.startsWith(`${root}/`) ? firstLink(root, file) : null;
      if (!link) return null;
      const target = resolve(dirname(link.path), link.target);
      return inside(root, target) ? null : { real: target, link };
    }
    throw e;
  }
  if (inside(root, real)) return null;
  return { real, link: file.startsWith(`${root}/`) ? firstLink(root, file) : null };
}

/** {@link outsidePacketSync}, for callers that await it. */
export function outsidePacket(root: string, file: string): Promise<OutsidePacket | null> {
  try {
    return Promise.resolve(outsidePacketSync(root, file));
  } catch (e) {
    return Promise.reject(e);
  }
}

function inside(root: string, real: string): boolean {
  return real === root || real.startsWith(`${root}/`);
}

/** The refusal's words: `resolves to <real> (through the link <link> -> <target>), outside the packet <root>; …`. */
export function outsideMessage(root: string, where: OutsidePacket): string {
  const via = where.link ? ` (through the symlink ${where.link.path} -> ${where.link.target})` : "";
  return `resolves to ${where.real}${via}, outside the packet ${root}; expected a file inside the packet ` +
    "(a symlink in a packet may only point inside it)";
}
