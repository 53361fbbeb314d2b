/**
 * Prompt templates (docs/packets.md, "Templates"): markdown files with front matter that `prompt new` renders into a
 * prompt file. Three places, highest first: the packet's `templates/`, the config home's `templates/`, the built-ins.
 */
import { outsideMessage, outsidePacket } from "./confine.ts";
import { FrontMatterSyntaxError, parseFrontMatter } from "./front_matter.ts";
import { configHome } from "./profiles.ts";
import { findingCode, PacketError, UsageError } from "../errors.ts";
import { resolve } from "../util/path.ts";

/** Where a template comes from. */
export type TemplateSource = "packet" | "home" | "built-in";

/** Mission, deliverables and non-goals: the part every built-in template ends with. */
const MISSION_SECTIONS = `## Mission

{{mission}}

## Deliverables

{{deliverables}}

## Non-Goals

- Change nothing the deliverables do not name.
`;

const DEFAULT_BODY = `# {{name}}

${MISSION_SECTIONS}`;

const FROM_ADR_BODY = `# {{name}}

## Required Reading

<!-- prompt_runner:placeholder required_reading -->
- Add the ADRs and source docs that govern this prompt.

## Architecture Context

<!-- prompt_runner:placeholder architecture_context -->
- Summarize the decisions that matter from the required reading.

${MISSION_SECTIONS}`;

/** The built-in templates by name: no front matter of their own, so every contract comes from `prompt new`. */
export const BUILTIN_TEMPLATES: Readonly<Record<string, string>> = {
  "default": `---\n---\n${DEFAULT_BODY}`,
  "from-adr": `---\n---\n${FROM_ADR_BODY}`,
};

/** The placeholders a template body may use. */
export const TEMPLATE_PLACEHOLDERS = [
  "id",
  "phase",
  "name",
  "commit",
  "targets_csv",
  "targets_bullets",
  "mission",
  "deliverables",
] as const;

/** A template name: like a profile name. */
const TEMPLATE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** One template `template list` shows. */
export interface TemplateEntry {
  name: string;
  source: TemplateSource;
  /** The file, or null for a built-in. */
  file: string | null;
  /** Lower places that hold a template of the same name, which this one overrides. */
  overrides: TemplateSource[];
}

/** A template ready to render. */
export interface LoadedTemplate {
  name: string;
  source: TemplateSource | "file";
  file: string | null;
  frontMatter: Record<string, unknown>;
  body: string;
}

async function templateNames(dir: string): Promise<string[]> {
  const out: string[] = [];
  try {
    for await (const e of Deno.readDir(dir)) {
      if ((e.isFile || e.isSymlink) && e.name.endsWith(".prompt.md")) out.push(e.name.slice(0, -".prompt.md".length));
    }
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory)) throw e;
  }
  return out;
}

/** The template directories, highest first (the packet's only when a packet is given). */
function places(env: Record<string, string | undefined>, packetDir: string | null): [TemplateSource, string][] {
  const out: [TemplateSource, string][] = [];
  if (packetDir !== null) out.push(["packet", `${packetDir}/templates`]);
  const home = configHome(env);
  if (home !== null) out.push(["home", `${home}/templates`]);
  return out;
}

/** Every visible template, sorted by name, each with the place that wins and the places it overrides. */
export async function listTemplates(
  env: Record<string, string | undefined>,
  packetDir: string | null,
): Promise<TemplateEntry[]> {
  const found = new Map<string, { source: TemplateSource; file: string | null }[]>();
  const add = (name: string, source: TemplateSource, file: string | null) => {
    const list = found.get(name) ?? [];
    list.push({ source, file });
    found.set(name, list);
  };
  for (const [source, dir] of places(env, packetDir)) {
    for (const name of await templateNames(dir)) add(name, source, `${dir}/${name}.prompt.md`);
  }
  for (const name of Object.keys(BUILTIN_TEMPLATES)) add(name, "built-in", null);
  return [...found.entries()].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0).map(([name, list]) => ({
    name,
    source: list[0]!.source,
    file: list[0]!.file,
    overrides: list.slice(1).map((l) => l.source),
  }));
}

async function parseTemplate(
  name: string,
  source: LoadedTemplate["source"],
  file: string | null,
  text: string,
): Promise<LoadedTemplate> {
  try {
    const fm = await parseFrontMatter(text);
    return { name, source, file, frontMatter: fm.data, body: fm.body };
  } catch (e) {
    const where = e instanceof FrontMatterSyntaxError ? ` at line ${e.line}, column ${e.column}` : "";
    throw new PacketError(
      findingCode("template_invalid"),
      `invalid YAML in template ${file ?? name}${where}: ${(e as Error).message}`,
      {
        ...(file ? { file } : {}),
      },
    );
  }
}

/**
 * A template file's text, or null when nothing is there. Only a regular file is read (a FIFO would wait forever), and
 * with `confineTo` only one whose real path lies inside that directory: a packet someone else wrote may not turn a
 * link (`templates/x.prompt.md -> ~/.ssh/id_rsa`) or a path into a copy of another file in a new prompt.
 */
async function readTemplateFile(file: string, confineTo: string | null): Promise<string | null> {
  const info = await Deno.stat(file).catch((e) => {
    if (e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory) return null;
    throw e;
  });
  if (info === null) return null;
  const refuse = (what: string) =>
    new PacketError(findingCode("template_invalid"), `template ${file} ${what}`, { file });
  if (!info.isFile) throw refuse("is not a regular file; expected a .prompt.md file");
  if (confineTo !== null) {
    const root = await Deno.realPath(confineTo).catch(() => confineTo);
    const where = await outsidePacket(root, file);
    if (where !== null) throw refuse(outsideMessage(root, where));
  }
  return await Deno.readTextFile(file);
}

/**
 * The template `ref` names: a path (it contains `/` or ends in `.md`, resolved against the working directory), or a
 * name looked up in the packet's `templates/`, then the config home's, then the built-ins. An unknown name is a usage
 * error listing the visible ones. A packet's own templates, and a path the packet itself names (`confineTo`: the
 * packet, for a manifest's `prompt_template`), must be regular files inside the packet.
 */
export async function loadTemplate(
  ref: string,
  env: Record<string, string | undefined>,
  packetDir: string | null,
  opts: { confineTo?: string } = {},
): Promise<LoadedTemplate> {
  if (ref.includes("/") || ref.endsWith(".md")) {
    const file = resolve(ref);
    const text = await readTemplateFile(file, opts.confineTo ?? null);
    if (text === null) throw new UsageError("invalid_value", `--template: no template file at ${file}`);
    return await parseTemplate(ref, "file", file, text);
  }
  if (!TEMPLATE_NAME.test(ref)) {
    throw new UsageError("invalid_value", `--template "${ref}" is not a template name or a path to a .md file`);
  }
  for (const [source, dir] of places(env, packetDir)) {
    const file = `${dir}/${ref}.prompt.md`;
    const text = await readTemplateFile(file, source === "packet" ? packetDir : null);
    if (text !== null) return await parseTemplate(ref, source, file, text);
  }
  const builtin = BUILTIN_TEMPLATES[ref];
  if (builtin !== undefined) return await parseTemplate(ref, "built-in", null, builtin);
  const known = (await listTemplates(env, packetDir)).map((t) => t.name);
  throw new UsageError("invalid_value", `unknown template "${ref}"; known templates: ${known.join(", ")}`);
}

/**
 * Fill `{{placeholder}}`s (docs/packets.md, "Templates"). A placeholder that is not one of
 * {@link TEMPLATE_PLACEHOLDERS} is an error naming the template, so a typo never reaches an agent.
 */
export function renderTemplateBody(t: LoadedTemplate, vars: Record<string, string>): string {
  return t.body.replace(/\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g, (_m, key: string) => {
    const v = vars[key];
    if (v === undefined || !(TEMPLATE_PLACEHOLDERS as readonly string[]).includes(key)) {
      throw new UsageError(
        "invalid_value",
        `template ${t.file ?? t.name} uses {{${key}}}; expected one of ${
          TEMPLATE_PLACEHOLDERS.map((p) => `{{${p}}}`).join(", ")
        }`,
      );
    }
    return v;
  });
}
