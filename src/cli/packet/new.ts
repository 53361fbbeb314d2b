/**
 * `prompt_runner packet new DIR [--profile NAME] [--provider P] [--model M] [--repo NAME=PATH]…
 * [--default-repo NAME] [--prompt-template T] [--json]` (docs/cli.md): a new packet that lints clean.
 */
import type { CommandSpec, FlagValues } from "../frame.ts";
import { PacketError, UsageError } from "../../errors.ts";
import { lintPacket } from "../../contract/packet_lint.ts";
import {
  loaderEnv,
  loadTemplate,
  manifestText,
  normalizeProvider,
  PROVIDERS,
  resolveProfileForNew,
} from "../../packet/mod.ts";
import { basename, relative, resolve } from "../../util/path.ts";
import { createNew } from "../../util/create_new.ts";
import { flagValues, refuseControlChars } from "../one_line.ts";
import { findingCode } from "../../errors.ts";

const MANIFEST = "prompt_runner_packet.md";
const REPO_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

function str(flags: FlagValues, name: string): string | null {
  const v = flags[name];
  return typeof v === "string" ? v : null;
}

/** `--repo NAME=PATH` values → repos, paths written relative to the packet dir. */
function reposOf(flags: FlagValues, dir: string): { name: string; path: string }[] {
  const raw = Array.isArray(flags.repo) ? flags.repo : [];
  const out: { name: string; path: string }[] = [];
  for (const r of raw) {
    const eq = r.indexOf("=");
    const name = eq > 0 ? r.slice(0, eq) : "";
    const path = eq > 0 ? r.slice(eq + 1) : "";
    if (!REPO_NAME.test(name) || path === "") {
      throw new UsageError(
        "invalid_value",
        `--repo "${r}": expected NAME=PATH (NAME of letters, digits, "-", "_", ".")`,
      );
    }
    if (out.some((o) => o.name === name)) throw new UsageError("invalid_value", `--repo: "${name}" is given twice`);
    out.push({ name, path: relative(dir, resolve(path)) || "." });
  }
  return out;
}

/** The `packet new` command. */
export const spec: CommandSpec = {
  usage:
    "DIR [--profile NAME] [--provider P] [--model M] [--repo NAME=PATH]… [--default-repo NAME] [--prompt-template T] [--json]",
  description: "Create a packet in DIR (its base name is the packet name): the manifest and an empty prompts/. " +
    "The profile, provider, repos and template are checked first, and the result passes packet lint --strict. " +
    "Refuses a DIR that already holds a packet (it is never overwritten). Repo paths are resolved against the " +
    "working directory and written relative to the packet.",
  flags: {
    profile: { type: "string", value: "NAME", description: "profile: NAME (home or built-in; see profile list)" },
    provider: { type: "string", value: "P", description: `provider: ${PROVIDERS.join("|")}` },
    model: { type: "string", value: "M", description: "model: (passed to the lane)" },
    repo: { type: "string", multiple: true, value: "NAME=PATH", description: "a target repo" },
    "default-repo": { type: "string", value: "NAME", description: "the default repo (default: the only one)" },
    "prompt-template": { type: "string", value: "T", description: "prompt_template: the default of prompt new" },
  },
  async run(ctx) {
    const [target, ...extra] = ctx.positionals;
    if (target === undefined) throw new UsageError("missing_argument", "packet new needs a DIR");
    if (extra.length > 0) throw new UsageError("unexpected_argument", `unexpected argument "${extra[0]}"`);
    const dir = resolve(target);
    const name = basename(dir);
    refuseControlChars([
      ["the packet name (the base name of DIR)", name],
      ...flagValues(ctx.flags, ["profile", "provider", "model", "repo", "default-repo", "prompt-template"]),
    ]);
    const env = loaderEnv();
    const profile = str(ctx.flags, "profile");
    if (profile !== null) await resolveProfileForNew(profile, env);
    const provider = str(ctx.flags, "provider");
    const lane = provider === null ? null : normalizeProvider(provider);
    if (provider !== null && lane === null) {
      throw new UsageError("invalid_value", `--provider is "${provider}"; expected one of ${PROVIDERS.join(", ")}`);
    }
    const repos = reposOf(ctx.flags, dir);
    let defaultRepo = str(ctx.flags, "default-repo");
    if (defaultRepo !== null && !repos.some((r) => r.name === defaultRepo)) {
      throw new UsageError(
        "unknown_repo",
        `--default-repo "${defaultRepo}" is not a --repo; given: ${repos.map((r) => r.name).join(", ") || "none"}`,
      );
    }
    if (defaultRepo === null && repos.length === 1) defaultRepo = repos[0]!.name;
    const template = str(ctx.flags, "prompt-template");
    if (template !== null) await loadTemplate(template, env, null);
    const existing = await Deno.stat(dir).catch(() => null);
    if (existing !== null && !existing.isDirectory) {
      throw new UsageError("invalid_value", `${dir} exists and is not a directory`);
    }
    await Deno.mkdir(`${dir}/prompts`, { recursive: true });
    const text = manifestText({
      name,
      profile,
      provider: lane,
      model: str(ctx.flags, "model"),
      promptTemplate: template,
      repos,
      defaultRepo,
    });
    const manifest = `${dir}/${MANIFEST}`;
    if (!(await createNew(manifest, text))) {
      throw new UsageError("invalid_value", `${dir} already holds a packet (${MANIFEST} exists; left unchanged)`);
    }
    // A new packet has no prompts yet (`prompt new` adds them): that one finding is expected here.
    const lint = await lintPacket(dir, { strict: true });
    lint.findings = lint.findings.filter((f) => f.kind !== "packet_without_prompts");
    if (lint.findings.length > 0) {
      await Deno.remove(manifest);
      const f = lint.findings[0]!;
      throw new PacketError(
        findingCode(f.kind),
        `the new manifest does not lint clean, so it was removed: ${f.message}`,
        {
          hints: lint.findings.slice(1).map((g) => g.message),
        },
      );
    }
    if (ctx.json) ctx.stdout.write(JSON.stringify({ packet: name, dir, manifest }) + "\n");
    else {
      ctx.stdout.write(
        `created packet ${name}: ${manifest}\n  add a prompt: prompt_runner prompt new 01 --packet ${target}\n`,
      );
    }
    return 0;
  },
};
