/**
 * POSIX path helpers with the results of `node:path` (tests/util/path_test.ts checks them against it). They exist
 * for start-up time: the first `node:` import of a process loads Deno's Node compatibility layer (about 25 ms for
 * `node:path`, 45 ms for `node:fs`, measured in a CPU profile of `plan`), which a read-only command should not pay for
 * a string join (docs/bench.md, the `cli` case).
 */

/** The path segment separator. */
export const sep = "/";

/** Whether `p` is absolute. */
export function isAbsolute(p: string): boolean {
  return p.startsWith("/");
}

/** Resolve `.` and `..` segments and repeated slashes; a trailing slash is kept; `""` is `"."`. */
export function normalize(p: string): string {
  if (p === "") return ".";
  const abs = p.startsWith("/");
  const trailing = p.endsWith("/");
  const out: string[] = [];
  for (const seg of p.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg !== "..") out.push(seg);
    else if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
    else if (!abs) out.push("..");
  }
  const body = out.join("/");
  if (abs) return "/" + body + (trailing && body !== "" ? "/" : "");
  if (body === "") return trailing ? "./" : ".";
  return body + (trailing ? "/" : "");
}

/** Join the non-empty parts with `/` and normalize; no parts is `"."`. */
export function join(...parts: string[]): string {
  const joined = parts.filter((p) => p !== "").join("/");
  return joined === "" ? "." : normalize(joined);
}

/** The absolute, normalized form of `parts` resolved right to left, against the working directory last. */
export function resolve(...parts: string[]): string {
  let path = "";
  for (let i = parts.length - 1; i >= -1 && !path.startsWith("/"); i--) {
    const part = i >= 0 ? parts[i]! : Deno.cwd();
    if (part !== "") path = path === "" ? part : `${part}/${path}`;
  }
  const n = normalize(path);
  return n.length > 1 && n.endsWith("/") ? n.slice(0, -1) : n;
}

/** The path from `from` to `to` (both resolved against the working directory); `""` when they are the same. */
export function relative(from: string, to: string): string {
  if (from === to) return "";
  const a = resolve(from).split("/").filter(Boolean);
  const b = resolve(to).split("/").filter(Boolean);
  let common = 0;
  while (common < a.length && common < b.length && a[common] === b[common]) common++;
  return [...Array(a.length - common).fill(".."), ...b.slice(common)].join("/");
}

/** Everything before the last segment (trailing slashes ignored); `"."` when there is none. */
export function dirname(p: string): string {
  if (p === "") return ".";
  let end = p.length;
  while (end > 1 && p[end - 1] === "/") end--;
  const slash = p.lastIndexOf("/", end - 1);
  if (slash < 0) return ".";
  if (slash === 0) return "/";
  if (slash === 1 && p[0] === "/") return "//";
  return p.slice(0, slash);
}

/** The last segment (trailing slashes ignored). */
export function basename(p: string): string {
  let end = p.length;
  while (end > 0 && p[end - 1] === "/") end--;
  return p.slice(p.lastIndexOf("/", end - 1) + 1, end);
}

/** Whether something exists at `p` (false when it cannot be stat'ed, like `node:fs`'s `existsSync`). */
export function existsSync(p: string): boolean {
  try {
    Deno.statSync(p);
    return true;
  } catch {
    return false;
  }
}
