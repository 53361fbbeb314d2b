/**
 * Bearer tokens of `control serve` (docs/reference/http_api.md §2): the tokens file, a generated token, and the
 * lookup of a presented token (compared by SHA-256 digest in constant time, never by string equality).
 */
import { UsageError } from "../../errors.ts";

/** What a token may do: `read` (every GET), `steer` (+ view, steer), `amend` (+ amend, relax). */
export type Role = "read" | "steer" | "amend";

/** The roles in increasing power. */
export const ROLES: readonly Role[] = ["read", "steer", "amend"];

/** One token: its name is the author on every record it causes. */
export interface TokenEntry {
  name: string;
  role: Role;
}

/** The shortest token a tokens file may hold (characters). */
export const MIN_TOKEN_CHARS = 16;

/** Whether `have` grants what `need` asks. */
export function roleAllows(have: Role, need: Role): boolean {
  return ROLES.indexOf(have) >= ROLES.indexOf(need);
}

async function digest(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < a.length && i < b.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

/** The tokens a server accepts. */
export class TokenTable {
  private constructor(private readonly rows: { hash: Uint8Array; entry: TokenEntry }[]) {}

  /** A table of `[token, entry]` pairs. */
  static async of(pairs: readonly (readonly [string, TokenEntry])[]): Promise<TokenTable> {
    const rows = await Promise.all(pairs.map(async ([t, entry]) => ({ hash: await digest(t), entry })));
    return new TokenTable(rows);
  }

  /** The entry of a presented token, or null. Every row is compared, so the time does not tell which matched. */
  async lookup(presented: string): Promise<TokenEntry | null> {
    const h = await digest(presented);
    let found: TokenEntry | null = null;
    for (const row of this.rows) if (sameBytes(row.hash, h)) found = row.entry;
    return found;
  }

  /** How many tokens the table holds. */
  get size(): number {
    return this.rows.length;
  }

  /** The names whose token `next` no longer accepts: gone, or given another token (a role change keeps its streams). */
  revokedIn(next: TokenTable): string[] {
    const keys = new Map(next.rows.map((r) => [r.entry.name, r.hash]));
    return this.rows.filter((r) => {
      const now = keys.get(r.entry.name);
      return now === undefined || !sameBytes(now, r.hash);
    }).map((r) => r.entry.name);
  }

  /** A table that accepts no token (a tokens file that became invalid: closed, not the old tokens). */
  static empty(): TokenTable {
    return new TokenTable([]);
  }
}

/**
 * The tokens of a `--tokens` file as it is now (docs/reference/http_api.md §2, "Revoking a token"): each request
 * compares the file's identity (inode, size, modification time) with the one read last, a `stat` and nothing more,
 * and reads it again when it changed. A file that no longer parses accepts no token until it is fixed — a revocation
 * must not fail open — and `warn` says so once per change, naming the file and the field.
 */
export class TokenFile {
  #table: TokenTable;
  #seen: string;
  /** The latest read of the file (each waits for the one before), or null before the first change. */
  #reading: Promise<TokenTable> | null = null;
  /** Told the names whose token was revoked by a change (the server ends their streams). */
  onRevoked: (names: string[]) => void = () => {};

  private constructor(
    private readonly file: string,
    table: TokenTable,
    seen: string,
    private readonly warn: (line: string) => void,
  ) {
    this.#table = table;
    this.#seen = seen;
  }

  /** Read `file` now (as {@link loadTokensFile}: an invalid file refuses to start the server). */
  static async open(file: string, warn: (line: string) => void): Promise<TokenFile> {
    const seen = identity(file);
    const table = await TokenTable.of(await loadTokensFile(file));
    return new TokenFile(file, table, seen, warn);
  }

  /**
   * The table to check a request against, read again first when the file changed. Every call made while a read is
   * under way waits for it: none is checked against the table the change replaces.
   */
  current(): Promise<TokenTable> {
    const now = identity(this.file);
    if (now !== this.#seen) {
      this.#seen = now;
      this.#reading = this.#read(this.#reading ?? Promise.resolve(this.#table));
    }
    return this.#reading ?? Promise.resolve(this.#table);
  }

  async #read(previous: Promise<TokenTable>): Promise<TokenTable> {
    const before = await previous;
    let table: TokenTable;
    try {
      table = await TokenTable.of(await loadTokensFile(this.file));
      this.warn(`${this.file} changed: ${table.size} token(s) accepted from now on`);
    } catch (e) {
      table = TokenTable.empty();
      this.warn(`${(e as Error).message}; no token is accepted until ${this.file} is fixed`);
    }
    this.#table = table;
    const gone = before.revokedIn(table);
    if (gone.length > 0) this.onRevoked(gone);
    return table;
  }
}

/** A file's identity for {@link TokenFile}: inode, size and modification time (`absent` when it cannot be read). */
function identity(file: string): string {
  try {
    const st = Deno.statSync(file);
    return `${st.ino}:${st.size}:${st.mtime?.getTime()}:${st.ctime?.getTime()}`;
  } catch {
    return "absent";
  }
}

/** A fresh random token: 32 bytes, base64url (43 characters). */
export function generateToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function invalid(file: string, field: string, expected: string): UsageError {
  return new UsageError("tokens_file_invalid", `${file}: ${field}: expected ${expected}`, {
    hints: ['a tokens file is {"tokens": [{"name": "ada", "role": "steer", "token": "<at least 16 characters>"}]}'],
  });
}

/**
 * Parse a tokens file: `{"tokens": [{"name", "role", "token"}, …]}`. Every problem names the file, the field and
 * what was expected (`tokens_file_invalid`, exit 2); names and tokens are unique.
 */
export function parseTokensFile(file: string, text: string): [string, TokenEntry][] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw invalid(file, "(document)", `a JSON object (${(e as Error).message})`);
  }
  const list = (doc as { tokens?: unknown } | null)?.tokens;
  if (typeof doc !== "object" || doc === null || Array.isArray(doc) || !Array.isArray(list)) {
    throw invalid(file, "tokens", "an array of {name, role, token}");
  }
  if (list.length === 0) throw invalid(file, "tokens", "at least one token");
  const out: [string, TokenEntry][] = [];
  const names = new Set<string>();
  const tokens = new Set<string>();
  list.forEach((row: unknown, i: number) => {
    const at = `tokens[${i}]`;
    if (typeof row !== "object" || row === null || Array.isArray(row)) throw invalid(file, at, "an object");
    const r = row as Record<string, unknown>;
    for (const key of Object.keys(r)) {
      if (!["name", "role", "token"].includes(key)) {
        throw invalid(file, `${at}.${key}`, "no such key (name, role, token)");
      }
    }
    if (typeof r.name !== "string" || !/^[A-Za-z0-9._@-]{1,64}$/.test(r.name)) {
      throw invalid(file, `${at}.name`, "1–64 characters of letters, digits, '.', '_', '@' or '-'");
    }
    if (typeof r.role !== "string" || !(ROLES as readonly string[]).includes(r.role)) {
      throw invalid(file, `${at}.role`, "read, steer or amend");
    }
    if (typeof r.token !== "string" || r.token.length < MIN_TOKEN_CHARS || /\s/.test(r.token)) {
      throw invalid(file, `${at}.token`, `a string of at least ${MIN_TOKEN_CHARS} characters without spaces`);
    }
    if (names.has(r.name)) throw invalid(file, `${at}.name`, `a name not used before ("${r.name}" is)`);
    if (tokens.has(r.token)) throw invalid(file, `${at}.token`, "a token not used before");
    names.add(r.name);
    tokens.add(r.token);
    out.push([r.token, { name: r.name, role: r.role as Role }]);
  });
  return out;
}

/**
 * A warning when the tokens file can be read by users other than its owner (group or other read bits): each of them
 * could act with every token in it. Null when it cannot (or the platform has no modes).
 */
export async function tokensFileExposure(file: string): Promise<string | null> {
  const mode = (await Deno.stat(file).catch(() => null))?.mode ?? null;
  if (mode === null || (mode & 0o044) === 0) return null;
  const octal = (mode & 0o777).toString(8).padStart(4, "0");
  return `${file} is readable by other users (mode ${octal}): anyone who can read it can act with its tokens; ` +
    `chmod 600 it`;
}

/** Read and parse a tokens file (`tokens_file_invalid` when unreadable). */
export async function loadTokensFile(file: string): Promise<[string, TokenEntry][]> {
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (e) {
    throw invalid(file, "(file)", `a readable file (${(e as Error).message})`);
  }
  return parseTokensFile(file, text);
}
