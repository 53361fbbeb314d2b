/**
 * What the setup and authoring commands write (docs/cli.md `init`, `packet new`, `prompt new`): the config home's
 * starting files, a packet manifest, and a prompt file rendered from a template. Pure text builders plus the one
 * writer of the config home; every file is created only where nothing is (../util/create_new.ts).
 */
import { builtinProfile, builtinProfileNames } from "./profiles.ts";
import { profileFileText } from "./profile_store.ts";
import { BUILTIN_TEMPLATES, type LoadedTemplate, renderTemplateBody } from "./templates.ts";
import { stringifyYaml } from "../util/yaml.ts";
import { createNew } from "../util/create_new.ts";

/** One file `init` considered: created now, or kept as the user had it. */
export interface InitItem {
  file: string;
  action: "created" | "kept";
}

function configText(defaultProfile: string | null): string {
  const line = defaultProfile === null
    ? "# default_profile: simulated-default   # uncomment to give packets without `profile:` a profile"
    : `default_profile: ${defaultProfile}`;
  return `---\n${line}\n---\n\n# prompt_runner configuration\n\n` +
    "`default_profile` names the profile a packet without `profile:` uses (docs/reference/packet.md §9). Profiles " +
    "live in `profiles/<name>.md`, prompt templates in `templates/<name>.prompt.md`.\n";
}

/**
 * Create the config home's starting files (`config.md`, a copy of each built-in profile, each built-in template),
 * keeping every file that already exists byte for byte. Idempotent.
 */
export async function initHome(home: string, defaultProfile: string | null): Promise<InitItem[]> {
  await Deno.mkdir(`${home}/profiles`, { recursive: true });
  await Deno.mkdir(`${home}/templates`, { recursive: true });
  const files: [string, string][] = [[`${home}/config.md`, configText(defaultProfile)]];
  for (const name of builtinProfileNames()) {
    files.push([`${home}/profiles/${name}.md`, profileFileText(name, builtinProfile(name)!)]);
  }
  for (const [name, text] of Object.entries(BUILTIN_TEMPLATES)) {
    files.push([`${home}/templates/${name}.prompt.md`, text]);
  }
  const out: InitItem[] = [];
  for (const [file, text] of files) out.push({ file, action: (await createNew(file, text)) ? "created" : "kept" });
  return out;
}

/** A repo of a new packet: its name and its path as the manifest writes it (relative to the packet when it can). */
export interface NewRepo {
  name: string;
  path: string;
}

/** What `packet new` writes into the manifest. */
export interface ManifestFields {
  name: string;
  profile: string | null;
  provider: string | null;
  model: string | null;
  promptTemplate: string | null;
  repos: NewRepo[];
  defaultRepo: string | null;
}

/** The manifest text of a new packet: only the keys given, then a short body. */
export function manifestText(f: ManifestFields): string {
  const data: Record<string, unknown> = { name: f.name };
  if (f.profile !== null) data.profile = f.profile;
  if (f.provider !== null) data.provider = f.provider;
  if (f.model !== null) data.model = f.model;
  if (f.promptTemplate !== null) data.prompt_template = f.promptTemplate;
  if (f.repos.length > 0) {
    const repos: Record<string, unknown> = {};
    for (const r of f.repos) {
      repos[r.name] = r.name === f.defaultRepo ? { path: r.path, default: true } : { path: r.path };
    }
    data.repos = repos;
  }
  return `---\n${stringifyYaml(data)}---\n\n# ${f.name}\n\nAdd prompts with \`prompt_runner prompt new ID --packet ` +
    "<this directory>`; check them with `prompt_runner packet lint --strict`.\n";
}

/** The contract and script flags of `prompt new`. */
export interface PromptContract {
  files: string[];
  contains: { path: string; text: string }[];
  commands: { exec: string; args: string[]; timeout_ms: number }[];
  simulateWrites: { path: string; text: string }[];
}

/** What `prompt new` renders. */
export interface PromptFields {
  id: string;
  phase: number;
  name: string;
  targets: string[];
  commit: string;
  mission: string | null;
  dependsOn: string[];
  contract: PromptContract;
}

/** `Capture runtime boundaries` → `capture_runtime_boundaries` (for the file name). */
export function slug(name: string): string {
  const s = name.toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_+|_+$/g, "").slice(0, 48);
  return s === "" ? "prompt" : s;
}

function isMap(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** The template's `verify:` with empty lists dropped, then the flags' entries appended clause by clause. */
function mergedVerify(template: unknown, c: PromptContract): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  if (isMap(template)) {
    for (const [clause, v] of Object.entries(template)) {
      const list = v === null || v === undefined ? [] : Array.isArray(v) ? v : [v];
      if (list.length > 0) out[clause] = [...list];
    }
  }
  const add = (clause: string, items: unknown[]) => {
    if (items.length > 0) out[clause] = [...(out[clause] ?? []), ...items];
  };
  add("files_exist", c.files);
  add("contains", c.contains);
  add("commands", c.commands);
  return out;
}

function deliverables(verify: Record<string, unknown[]>): string {
  const lines: string[] = [];
  for (const e of verify.files_exist ?? []) lines.push(`- \`${typeof e === "string" ? e : JSON.stringify(e)}\` exists`);
  for (const e of verify.contains ?? []) {
    if (isMap(e)) lines.push(`- \`${e.path}\` contains \`${e.text ?? e.contains}\``);
  }
  for (const e of verify.commands ?? []) {
    if (isMap(e)) lines.push(`- \`${[e.exec, ...(Array.isArray(e.args) ? e.args : [])].join(" ")}\` passes`);
    else if (typeof e === "string") lines.push(`- \`${e}\` passes`);
  }
  return lines.length > 0
    ? lines.join("\n")
    : "<!-- prompt_runner:placeholder deliverables -->\n- List the exact files or behaviour required.";
}

/** The number of content checks (`contains`, `matches`, `commands`, `doc`: docs/lint.md) a rendered contract holds. */
export function contentChecks(verify: Record<string, unknown[]>): number {
  return ["contains", "matches", "commands", "doc"].reduce(
    (n, c) => n + (verify[c]?.length ?? 0),
    0,
  );
}

/** The rendered prompt file: generated keys, the template's other keys, the contract, the script, the body. */
export function promptFileText(
  t: LoadedTemplate,
  f: PromptFields,
): { text: string; verify: Record<string, unknown[]> } {
  const verify = mergedVerify(t.frontMatter.verify, f.contract);
  const data: Record<string, unknown> = { id: f.id, phase: f.phase, name: f.name };
  if (f.targets.length > 0) data.targets = f.targets;
  data.commit = f.commit;
  if (f.dependsOn.length > 0) data.depends_on = f.dependsOn;
  for (const [k, v] of Object.entries(t.frontMatter)) {
    if (!(k in data) && k !== "verify" && k !== "simulate" && k !== "num") data[k] = v;
  }
  if (t.name !== "default") data.template = t.name;
  if (Object.keys(verify).length > 0) data.verify = verify;
  if (f.contract.simulateWrites.length > 0) data.simulate = { attempts: [{ writes: f.contract.simulateWrites }] };
  else if (t.frontMatter.simulate !== undefined) data.simulate = t.frontMatter.simulate;
  const body = renderTemplateBody(t, {
    id: f.id,
    phase: String(f.phase),
    name: f.name,
    commit: f.commit,
    targets_csv: f.targets.join(", "),
    targets_bullets: f.targets.map((x) => `- ${x}`).join("\n"),
    mission: f.mission ?? "<!-- prompt_runner:placeholder mission -->\nDescribe the exact work to perform.",
    deliverables: deliverables(verify),
  });
  return { text: `---\n${stringifyYaml(data)}---\n\n${body.replace(/^\n+/, "")}`, verify };
}
