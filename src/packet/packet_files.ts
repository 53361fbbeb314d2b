/**
 * Reading a packet's files (docs/reference/packet.md): the manifest, the prompt directory and the prompt files, each
 * confined to the packet (src/packet/confine.ts). No option layering, profile or cross-prompt validation: those are
 * the loader's (./load.ts). {@link promptTexts} is the light read for a reader that only shows prompt files and bodies
 * (`replay`): it never evaluates the option code the loader runs.
 */
import { findingCode, NotFoundError, PacketError } from "../errors.ts";
import { FindingSink } from "./findings.ts";
import { FrontMatterSyntaxError, parseFrontMatter } from "./front_matter.ts";
import { joinPath, MANIFEST_OPTION_KEYS } from "./options.ts";
import { parsePromptFile, type RawPrompt } from "./prompt_file.ts";
import { outsideMessage, outsidePacket } from "./confine.ts";
import { closest } from "../util/edit_distance.ts";

/** The manifest file name. */
export const MANIFEST_FILE = "prompt_runner_packet.md";

/** Every top-level manifest key the loader knows (docs/packets.md); others are `unknown_manifest_key` warnings. */
export const MANIFEST_KEYS: ReadonlySet<string> = new Set([
  "name",
  "profile",
  "prompt_dir",
  "prompt_template",
  "repos",
  "phases",
  ...MANIFEST_OPTION_KEYS,
]);

/** The packet directory's real path; a missing directory or a file is `target_not_found` (exit 4). */
export async function canonicalDir(dir: string): Promise<string> {
  try {
    const real = await Deno.realPath(dir);
    if (!(await Deno.stat(real)).isDirectory) throw new Deno.errors.NotFound(dir);
    return real;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory) {
      throw new NotFoundError("target_not_found", `packet directory not found: ${dir}`);
    }
    throw e;
  }
}

/** Discover prompt files: `*.prompt.md`, else `*.md` without `*.checklist.md` (absolute, sorted by name). */
export async function discoverPromptFiles(promptDir: string): Promise<string[]> {
  return (await discoverPromptEntries(promptDir)).files;
}

/** An entry of the prompt directory that looks meant as a prompt but is not read as one, and why. */
export interface IgnoredPromptEntry {
  name: string;
  why: string;
}

/** What discovery found: the prompt files, those that are symlinks, and the entries that look like missed prompts. */
interface PromptEntries {
  files: string[];
  links: Set<string>;
  ignored: IgnoredPromptEntry[];
}

/** A name with `.prompt` (or `.promt`, `.prmpt` …) as one of its extensions: `02_x.prompt.txt`, `02_x.promt`. */
const PROMPT_LIKE = /\.pro?mp?t(\.|$)/i;

/**
 * {@link discoverPromptFiles}, with the files that are symlinks and the entries that look like prompts but are not
 * read (`prompt_file_ignored`): a `*.prompt.md` that is not a file (a directory, a FIFO), a `.md` file beside
 * `*.prompt.md` files (`02_x.promt.md`), a name with a `.prompt`-like extension that does not end in `.md`
 * (`02_x.prompt.txt`). Dot files, backups (`~`), `*.checklist.md` and `README.md` are never flagged.
 */
async function discoverPromptEntries(promptDir: string): Promise<PromptEntries> {
  const names: string[] = [];
  const linked = new Set<string>();
  const others: { name: string; kind: string }[] = [];
  try {
    for await (const e of Deno.readDir(promptDir)) {
      if (e.isFile || e.isSymlink) names.push(e.name);
      else {others.push({
          name: e.name,
          kind: e.isDirectory ? "a directory" : "not a regular file (a FIFO, socket or device)",
        });}
      if (e.isSymlink) linked.add(e.name);
    }
  } catch (e) {
    if (e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory) {
      return { files: [], links: linked, ignored: [] };
    }
    throw e;
  }
  names.sort();
  let picked = names.filter((n) => n.endsWith(".prompt.md") && !n.endsWith(".checklist.md"));
  const byPromptSuffix = picked.length > 0;
  if (!byPromptSuffix) picked = names.filter((n) => n.endsWith(".md") && !n.endsWith(".checklist.md"));
  const files = picked.map((n) => `${promptDir}/${n}`);
  const pickedSet = new Set(picked);
  const ignored: IgnoredPromptEntry[] = [];
  const neverPrompt = (n: string) =>
    n.startsWith(".") || n.endsWith("~") || n.endsWith(".checklist.md") || /^readme\.md$/i.test(n);
  for (const { name, kind } of others) {
    if (!neverPrompt(name) && name.endsWith(".prompt.md")) {
      ignored.push({ name, why: `is ${kind}, not a prompt file; it is not read` });
    }
  }
  for (const name of names) {
    if (pickedSet.has(name) || neverPrompt(name)) continue;
    if (name.endsWith(".md")) {
      // Only reached beside *.prompt.md files: without them every .md file is a prompt.
      ignored.push({ name, why: "is not read as a prompt: this directory's prompts are its *.prompt.md files" });
    } else if (PROMPT_LIKE.test(name)) {
      ignored.push({ name, why: "looks like a prompt file but is not read: prompt files are named NN_name.prompt.md" });
    }
  }
  ignored.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  return { files, links: new Set(picked.filter((n) => linked.has(n)).map((n) => `${promptDir}/${n}`)), ignored };
}

/**
 * Why a packet file cannot be read as a document, or null when it is a regular file (links followed). A FIFO would
 * block the read forever, a directory or a symlink loop would end it with a bare OS error.
 */
export async function notARegularFile(path: string): Promise<string | null> {
  try {
    const info = await Deno.stat(path);
    if (info.isFile) return null;
    const type = info.isDirectory
      ? "a directory"
      : info.isFifo
      ? "a FIFO"
      : info.isSocket
      ? "a socket"
      : "a special file";
    return `is ${type}; expected a regular file`;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null; // the caller reports a missing file itself
    if (e instanceof Deno.errors.FilesystemLoop) return "is a symbolic link loop; expected a regular file";
    return `cannot be read: ${(e as Error).message}`;
  }
}

function relTo(dir: string, path: string): string {
  return path.startsWith(dir + "/") ? path.slice(dir.length + 1) : path;
}

/**
 * How many prompt files are read and parsed at once. Bounded: with every file of a 10,000-prompt packet in flight at
 * once, each one's text, YAML tree and pending read were alive together, and the heap grew to several times what the
 * loaded packet keeps (docs/bench.md `scale`, peak RSS).
 */
export const PROMPT_READ_CONCURRENCY = 16;

/** Discover the prompt files and parse them concurrently, each into its own sink (merged later in file order). */
export async function readPromptFiles(
  root: string,
  promptDir: string,
): Promise<
  { promptFiles: string[]; parsed: { raw: RawPrompt | null; own: FindingSink }[]; ignored: IgnoredPromptEntry[] }
> {
  const { files: promptFiles, links, ignored } = await discoverPromptEntries(promptDir);
  // One real-path check for the directory; then only the files that are links need their own.
  const dirInside = promptFiles.length === 0 || (await outsidePacket(root, promptDir)) === null;
  const parsed: { raw: RawPrompt | null; own: FindingSink }[] = new Array(promptFiles.length);
  let next = 0;
  const worker = async () => {
    while (next < promptFiles.length) {
      const i = next++;
      const file = promptFiles[i]!;
      const own = new FindingSink();
      const rel = relTo(root, file);
      // The listing said what each plain entry is (only regular files were picked); a link is checked where it leads.
      const special = links.has(file) ? await notARegularFile(file) : null;
      if (special) {
        own.error("packet_file_invalid", `${rel} ${special}`, { file: rel });
        parsed[i] = { raw: null, own };
        continue;
      }
      // A prompt file (or the prompt dir) linked outside the packet is never read: it would be sent to a provider.
      const outside = dirInside && !links.has(file) ? null : await outsidePacket(root, file);
      if (outside) {
        own.error("outside_packet", `${rel}: ${outsideMessage(root, outside)}`, { file: rel });
        parsed[i] = { raw: null, own };
        continue;
      }
      parsed[i] = { raw: await parsePromptFile(file, rel, own), own };
    }
  };
  await Promise.all(Array.from({ length: Math.min(PROMPT_READ_CONCURRENCY, promptFiles.length) }, worker));
  return { promptFiles, parsed, ignored };
}

/** The manifest's text; a directory without one is not a packet (exit 4). */
export async function readManifest(root: string): Promise<string> {
  const special = await notARegularFile(`${root}/${MANIFEST_FILE}`);
  if (special) {
    throw new PacketError(findingCode("packet_file_invalid"), `${MANIFEST_FILE} ${special}`, { file: MANIFEST_FILE });
  }
  const outside = await outsidePacket(root, `${root}/${MANIFEST_FILE}`);
  if (outside) {
    const message = `${MANIFEST_FILE}: ${outsideMessage(root, outside)}`;
    throw new PacketError(findingCode("outside_packet"), message, { file: MANIFEST_FILE });
  }
  try {
    return await Deno.readTextFile(`${root}/${MANIFEST_FILE}`);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) {
      throw new NotFoundError("target_not_found", `${root} is not a packet: ${MANIFEST_FILE} not found`);
    }
    throw e;
  }
}

/** The manifest's front matter, or null after a `manifest_yaml_invalid` finding. */
export async function parseManifest(text: string, sink: FindingSink): Promise<Record<string, unknown> | null> {
  try {
    return (await parseFrontMatter(text)).data;
  } catch (e) {
    if (!(e instanceof FrontMatterSyntaxError)) throw e;
    sink.error(
      "manifest_yaml_invalid",
      `invalid YAML in ${MANIFEST_FILE} at line ${e.line}, column ${e.column}: ${e.message}`,
      { file: MANIFEST_FILE },
    );
    return null;
  }
}

/** Unknown manifest keys (warnings), the packet name (default: the directory's) and its prompt dir. */
export function manifestBasics(root: string, manifest: Record<string, unknown>, sink: FindingSink) {
  const mf = MANIFEST_FILE;
  for (const key of Object.keys(manifest)) {
    if (!MANIFEST_KEYS.has(key)) {
      const near = closest(key, [...MANIFEST_KEYS]);
      const hint = near ? `; did you mean "${near}"?` : "";
      sink.warn("unknown_manifest_key", `${mf}: unknown manifest key "${key}" is ignored${hint}`, { file: mf, key });
    }
  }
  const name = typeof manifest.name === "string" && manifest.name.trim() !== ""
    ? manifest.name
    : root.slice(root.lastIndexOf("/") + 1);
  const promptDirRel = typeof manifest.prompt_dir === "string" && manifest.prompt_dir !== ""
    ? manifest.prompt_dir
    : "prompts";
  return { name, promptDir: joinPath(root, promptDirRel) };
}

/** One prompt of {@link promptTexts}: its id, file (absolute and relative to the packet) and body. */
export interface PromptText {
  id: string;
  file: string;
  relFile: string;
  body: string;
}

/**
 * The prompt files of a packet as they are now, id → file and body, read without the loader's option layering,
 * profile or packet-wide checks: each prompt file that reads and parses is there (with a duplicated id, the first in
 * file order, as the loader keeps it). `rewrite` maps the body as a workspace remap does (`RepoRemap.rewriteText`).
 * Null when the packet's manifest does not read or parse. Throws only what file access throws unexpectedly.
 */
export async function promptTexts(
  dir: string,
  rewrite: ((text: string) => string) | null = null,
): Promise<{ dir: string; prompts: PromptText[] } | null> {
  let root: string;
  let manifest: Record<string, unknown> | null;
  try {
    root = await canonicalDir(dir);
    manifest = await parseManifest(await readManifest(root), new FindingSink());
  } catch (e) {
    if (e instanceof NotFoundError || e instanceof PacketError) return null;
    throw e;
  }
  if (manifest === null) return null;
  const { promptDir } = manifestBasics(root, manifest, new FindingSink());
  const { parsed } = await readPromptFiles(root, promptDir);
  const seen = new Set<string>();
  const prompts: PromptText[] = [];
  for (const { raw } of parsed) {
    if (raw === null || seen.has(raw.id)) continue;
    seen.add(raw.id);
    prompts.push({ id: raw.id, file: raw.file, relFile: raw.relFile, body: rewrite ? rewrite(raw.body) : raw.body });
  }
  return { dir: root, prompts };
}
