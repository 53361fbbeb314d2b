/** Parse one prompt file (docs/reference/packet.md §4–§6) into the fields the loader validates against the whole packet. */
import { normalizePromptId } from "../util/ids.ts";
import type { FindingSink } from "./findings.ts";
import type { Prompt } from "./types.ts";
import { FrontMatterSyntaxError, parseFrontMatter } from "./front_matter.ts";
import { PROMPT_EXECUTION_KEYS, PROVIDER_BAGS } from "./options.ts";
import {
  bodySection,
  deriveCommitMessage,
  filenamePrefix,
  firstHeading,
  nameFromFilename,
  sectionBullets,
} from "./prompt_text.ts";

/** A prompt as read from its file, before packet-level validation and option layering. */
export interface RawPrompt extends Omit<Prompt, "options" | "cwd"> {
  /** Target repo names (front matter); replaced from {@link legacyRoots} by the loader when those are used. */
  targets: string[];
  /** Paths from a legacy `## Repository Root` section (used only when `targets` is absent). */
  legacyRoots: string[];
}

const INERT_KEYS = ["references", "required_reading", "context_files"];

/** Every front-matter key a prompt file may have (docs/reference/packet.md §4); others get `unknown_front_matter_key`. */
export const PROMPT_KEYS: ReadonlySet<string> = new Set([
  "id",
  "num",
  "phase",
  "sp",
  "name",
  "targets",
  "commit",
  "depends_on",
  "verify",
  "simulate",
  "recovery",
  "template",
  "validation",
  ...INERT_KEYS,
  ...PROMPT_EXECUTION_KEYS,
  ...PROVIDER_BAGS,
]);

function isMap(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function intValue(v: unknown): number | null {
  if (typeof v === "number" && Number.isInteger(v)) return v;
  if (typeof v === "string" && /^\s*-?\d+\s*$/.test(v)) return Number(v);
  return null;
}

function commandText(v: unknown): string {
  if (typeof v === "string") return v;
  if (isMap(v)) {
    if (typeof v.run === "string") return v.run;
    if (typeof v.command === "string") return v.command;
  }
  return String(v);
}

/** Normalise a `verify:` map: every clause value becomes a list (single values wrapped, null → empty). */
export function normalizeVerify(raw: Record<string, unknown>): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const [clause, v] of Object.entries(raw)) {
    out[clause] = v === null || v === undefined ? [] : Array.isArray(v) ? v : [v];
  }
  return out;
}

/** Read and parse a prompt file; problems go to the sink. Returns null when the prompt cannot be used at all. */
export async function parsePromptFile(file: string, relFile: string, sink: FindingSink): Promise<RawPrompt | null> {
  const basename = file.slice(file.lastIndexOf("/") + 1);
  let fm: Record<string, unknown>;
  let body: string;
  try {
    const parsed = await parseFrontMatter(await Deno.readTextFile(file));
    fm = parsed.data;
    body = parsed.body;
  } catch (e) {
    if (!(e instanceof FrontMatterSyntaxError)) throw e;
    sink.error(
      "prompt_yaml_invalid",
      `invalid YAML in ${relFile} at line ${e.line}, column ${e.column}: ${e.message}`,
      { file: relFile },
    );
    return null;
  }
  const idSource = fm.id ?? fm.num ?? filenamePrefix(basename) ?? "01";
  const id = normalizePromptId(idSource);
  if (id === null) {
    sink.error(
      "invalid_prompt_id",
      `${relFile}: prompt id ${JSON.stringify(idSource)} is not numeric; expected an integer like 3 or "03"`,
      { file: relFile, key: fm.id !== undefined ? "id" : "num" },
    );
    return null;
  }
  const at = (key: string) => ({ file: relFile, key, prompt_id: id });

  let phase = 1;
  if (fm.phase !== undefined && fm.phase !== null) {
    const n = intValue(fm.phase);
    if (n === null) {
      sink.error(
        "invalid_option_value",
        `${relFile}: phase is ${JSON.stringify(fm.phase)}; expected an integer`,
        at("phase"),
      );
    } else phase = n;
  }
  let sp = 1;
  if (fm.sp !== undefined && fm.sp !== null) {
    const n = intValue(fm.sp);
    if (n === null) sink.warn("invalid_prompt_value", `${relFile}: sp is ${JSON.stringify(fm.sp)}; using 1`, at("sp"));
    else sp = n;
  }
  const name = typeof fm.name === "string" && fm.name.trim() !== ""
    ? fm.name.trim()
    : typeof fm.name === "number"
    ? String(fm.name)
    : firstHeading(body) ?? nameFromFilename(basename);

  let targets: string[] = [];
  let legacyRoots: string[] = [];
  if (fm.targets !== undefined && fm.targets !== null) {
    if (Array.isArray(fm.targets)) targets = fm.targets.map((t) => String(t));
    else if (typeof fm.targets === "string") targets = [fm.targets];
    else {
      sink.error("invalid_option_value", `${relFile}: targets must be a list of repo names`, at("targets"));
    }
  } else {
    const section = bodySection(body, "Repository Root");
    if (section !== null) {
      legacyRoots = sectionBullets(section);
      if (legacyRoots.length > 0) {
        sink.warn(
          "legacy_repository_root_section",
          `${relFile}: the "## Repository Root" section is used as targets; prefer the targets key`,
          at("targets"),
        );
      }
    }
  }

  const commit = typeof fm.commit === "string" && fm.commit.trim() !== "" ? fm.commit : deriveCommitMessage(body, name);

  const dependsOn: string[] = [];
  const deps = fm.depends_on === undefined || fm.depends_on === null
    ? []
    : Array.isArray(fm.depends_on)
    ? fm.depends_on
    : [fm.depends_on];
  for (const d of deps) {
    const n = normalizePromptId(d);
    if (n === null) {
      sink.error(
        "invalid_prompt_id",
        `${relFile}: depends_on entry ${JSON.stringify(d)} is not a prompt id`,
        at("depends_on"),
      );
    } else if (!dependsOn.includes(n)) dependsOn.push(n);
  }

  let verify: Record<string, unknown[]> = {};
  if (fm.verify !== undefined && fm.verify !== null) {
    if (isMap(fm.verify)) verify = normalizeVerify(fm.verify);
    else sink.error("invalid_option_value", `${relFile}: verify must be a map of clause → entries`, at("verify"));
  }
  const simulate = isMap(fm.simulate) ? fm.simulate : null;
  if (fm.simulate !== undefined && fm.simulate !== null && !isMap(fm.simulate)) {
    sink.error("invalid_option_value", `${relFile}: simulate must be a map`, at("simulate"));
  }

  let legacyCommands: string[] = [];
  if (fm.validation !== undefined && fm.validation !== null && !Array.isArray(fm.validation)) {
    // A lone string (or a map) would be read as no commands at all: the checks it stands for would not run.
    sink.error(
      "invalid_option_value",
      `${relFile}: validation must be a list of shell commands (e.g. validation: ["mix test"]), got ${
        typeof fm.validation === "string" ? "a string" : typeof fm.validation
      }`,
      at("validation"),
    );
  } else if (verify.commands !== undefined && Array.isArray(fm.validation) && fm.validation.length > 0) {
    sink.warn(
      "legacy_validation_ignored",
      `${relFile}: validation is ignored because verify.commands is set; move its commands into verify.commands`,
      at("validation"),
    );
  }
  if (verify.commands === undefined) {
    if (Array.isArray(fm.validation) && fm.validation.length > 0) {
      legacyCommands = fm.validation.map(commandText);
      sink.warn(
        "legacy_validation_section",
        `${relFile}: the validation key is used as legacy verify.commands; prefer structured verify.commands`,
        at("validation"),
      );
    } else {
      const section = bodySection(body, "Validation Commands");
      const bullets = section === null ? [] : sectionBullets(section);
      if (bullets.length > 0) {
        legacyCommands = bullets;
        sink.warn(
          "legacy_validation_section",
          `${relFile}: the "## Validation Commands" section is used as legacy verify.commands; prefer verify.commands`,
          at("validation"),
        );
      }
    }
  }
  for (const k of Object.keys(fm)) {
    if (!PROMPT_KEYS.has(k)) {
      sink.warn("unknown_front_matter_key", `${relFile}: unknown front-matter key "${k}" is ignored`, at(k));
    }
  }
  for (const k of INERT_KEYS) {
    if (fm[k] !== undefined) {
      sink.warn("inert_front_matter_key", `${relFile}: ${k} is accepted but never used or sent to the agent`, at(k));
    }
  }
  return {
    id,
    file,
    relFile,
    phase,
    sp,
    name,
    targets,
    legacyRoots,
    commit,
    dependsOn,
    verify,
    simulate,
    body,
    frontMatter: fm,
    legacyCommands,
  };
}
