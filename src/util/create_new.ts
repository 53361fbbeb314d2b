/**
 * Create a file only when nothing is at its path, atomically: the text goes to a temp sibling first, then a hard link
 * names it. A crash leaves either no file or the whole file, and an existing file (the user's) is never replaced.
 */

/** Write `text` to `path` unless something is already there; true when this call created it. */
export async function createNew(path: string, text: string, mode = 0o644): Promise<boolean> {
  const slash = path.lastIndexOf("/");
  const dir = slash >= 0 ? path.slice(0, slash) : ".";
  const base = slash >= 0 ? path.slice(slash + 1) : path;
  const rand = crypto.getRandomValues(new Uint32Array(1))[0]!.toString(16);
  const tmp = `${dir}/.${base}.${Deno.pid}.${rand}.tmp`;
  const file = await Deno.open(tmp, { write: true, createNew: true, mode });
  try {
    const bytes = new TextEncoder().encode(text);
    let off = 0;
    while (off < bytes.length) off += await file.write(bytes.subarray(off));
    await file.sync();
  } finally {
    file.close();
  }
  try {
    await Deno.link(tmp, path);
    return true;
  } catch (e) {
    if (e instanceof Deno.errors.AlreadyExists) return false;
    throw e;
  } finally {
    await Deno.remove(tmp).catch(() => {});
  }
}
