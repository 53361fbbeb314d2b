/** Executable lookup on a `PATH` value, without spawning anything. */

/** The first executable regular file named `name` in the directories of `pathVar`, or null. */
export async function findOnPath(name: string, pathVar: string): Promise<string | null> {
  for (const dir of pathVar.split(":")) {
    if (dir === "") continue;
    const st = await Deno.stat(`${dir}/${name}`).catch(() => null);
    if (st?.isFile && ((st.mode ?? 0) & 0o111) !== 0) return `${dir}/${name}`;
  }
  return null;
}
