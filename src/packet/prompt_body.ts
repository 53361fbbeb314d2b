/**
 * A prompt file's body as it is now, read by its path in the packet — the text after its front matter, as the loader
 * reads it (./front_matter_split.ts), without decoding the YAML: a reader that knows which file a prompt was run from
 * (`replay`, from the attempt's log) never loads the YAML parser or the option code. Synchronous: `replay` reads one
 * header's file after another, and a round trip per file operation was most of a long replay's time.
 */
import { outsidePacketSync } from "./confine.ts";
import { FrontMatterSyntaxError, splitFrontMatter } from "./front_matter_split.ts";

/**
 * The body of the prompt file at `relFile` in the canonical packet dir `root` (`rewrite`: a workspace remap's
 * `rewriteText`), or null when that file does not read: missing, outside the packet (a link the loader would refuse
 * too), or with a front matter that is not closed.
 */
export function promptBodyAt(
  root: string,
  relFile: string,
  rewrite: ((text: string) => string) | null = null,
): { file: string; relFile: string; body: string } | null {
  if (relFile === "" || relFile.startsWith("/") || relFile.split("/").includes("..")) return null;
  const file = `${root}/${relFile}`;
  try {
    if (outsidePacketSync(root, file) !== null) return null;
    const { body } = splitFrontMatter(Deno.readTextFileSync(file));
    return { file, relFile, body: rewrite ? rewrite(body) : body };
  } catch (e) {
    if (e instanceof FrontMatterSyntaxError || e instanceof Deno.errors.NotFound) return null;
    if (e instanceof Deno.errors.NotADirectory || e instanceof Deno.errors.IsADirectory) return null;
    throw e;
  }
}
