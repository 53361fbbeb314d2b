/**
 * The OS user of this process, for the default author of control commands (docs/reference/control-plane.md §3.1): the uid comes
 * from `Deno.uid()` when `sys` is granted, else from the owner of a temporary file this process creates (commands
 * such as `control steer` keep only read/write/env), and its name from `/etc/passwd`. Permissions are queried first,
 * so no lookup can ever raise a Deno permission prompt.
 */

function granted(desc: Deno.PermissionDescriptor): boolean {
  try {
    return Deno.permissions.querySync(desc).state === "granted";
  } catch {
    return false;
  }
}

/** The effective uid of this process, or null when neither source is permitted (or the platform has no uids). */
function processUid(): number | null {
  if (granted({ name: "sys", kind: "uid" })) {
    try {
      const uid = Deno.uid();
      if (uid !== null) return uid;
    } catch { /* fall through to the file-owner source */ }
  }
  if (!granted({ name: "write" })) return null;
  let path: string | null = null;
  try {
    path = Deno.makeTempFileSync({ prefix: ".prompt-runner-uid-" });
    const uid = Deno.statSync(path).uid;
    return typeof uid === "number" ? uid : null;
  } catch {
    return null;
  } finally {
    if (path !== null) {
      try {
        Deno.removeSync(path);
      } catch { /* already gone */ }
    }
  }
}

/** The login name of `uid` in passwd-format text (`name:pw:uid:…` per line), or null when no line names it. */
export function passwdName(text: string, uid: number): string | null {
  for (const line of text.split("\n")) {
    if (line.startsWith("#")) continue;
    const fields = line.split(":");
    if (fields.length < 3 || fields[2] !== String(uid)) continue;
    const name = fields[0]!.trim();
    if (name !== "") return name;
  }
  return null;
}

let cached: string | null | undefined;

/**
 * The OS user of this process: its login name from `/etc/passwd`, else `uid:<n>`, else null when the uid cannot be
 * learned. Cached for the life of the process.
 */
export function osUser(): string | null {
  if (cached !== undefined) return cached;
  const uid = processUid();
  let name: string | null = null;
  if (uid !== null && granted({ name: "read", path: "/etc/passwd" })) {
    try {
      name = passwdName(Deno.readTextFileSync("/etc/passwd"), uid);
    } catch { /* unreadable: fall back to the number */ }
  }
  cached = uid === null ? null : name ?? `uid:${uid}`;
  return cached;
}
