/**
 * Cold start stays lazy (docs/bench.md, the `cli` case; not timed): what each read-only command evaluates before its
 * code runs — main.ts plus the command's module, through static value imports (tests/support/import_graph.ts,
 * `staticLoad`) — leaves out the heavy parts: the Node compatibility layer (any `node:` import), picomatch (a
 * CommonJS npm module), the renderer's npm modules, the lane processes, the runner and the verifier. `run` reaching
 * all of them proves the check can see them.
 */
import assert from "node:assert/strict";
import { COMMANDS, findCommand } from "../../src/cli/registry.ts";
import { packageImports, packageName, readSources, type StaticLoad, staticLoad } from "../support/import_graph.ts";

const ROOT = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

/** Heavy source modules no read-only command may evaluate up front. */
const HEAVY_FILES = [
  "src/lanes/process.ts",
  "src/lanes/cli_session.ts",
  "src/lanes/mod.ts",
  "src/run/runner.ts",
  "src/run/attempt.ts",
  "src/contract/verify.ts",
  "src/contract/clauses/commands.ts",
  "src/contract/clauses/git_clauses.ts",
  "src/control/plane.ts",
];
/** Packages no read-only command may load up front. */
const HEAVY_PACKAGES = ["picomatch", "tinyglobby"];
/** The renderer's packages and core: only `replay` renders. */
const RENDER_FILES = ["src/render/core.ts", "src/render/text.ts", "src/render/diff.ts"];
const RENDER_PACKAGES = ["diff", "string-width"];

/** The read-only commands (they write nothing; docs/cli.md), each with what it may not load besides the above. */
const READ_ONLY: { path: string[]; alsoNot: { files: string[]; packages: string[] } }[] = [
  // Front matter is read by the subset reader (src/util/yaml_subset.ts); js-yaml loads only for YAML outside it.
  { path: ["plan"], alsoNot: { files: RENDER_FILES, packages: [...RENDER_PACKAGES, "js-yaml"] } },
  { path: ["list"], alsoNot: { files: RENDER_FILES, packages: [...RENDER_PACKAGES, "js-yaml"] } },
  { path: ["status"], alsoNot: { files: RENDER_FILES, packages: [...RENDER_PACKAGES, "js-yaml"] } },
  { path: ["control", "status"], alsoNot: { files: RENDER_FILES, packages: [...RENDER_PACKAGES, "js-yaml"] } },
  { path: ["control", "events"], alsoNot: { files: RENDER_FILES, packages: [...RENDER_PACKAGES, "js-yaml"] } },
  { path: ["control", "log"], alsoNot: { files: RENDER_FILES, packages: [...RENDER_PACKAGES, "js-yaml"] } },
  // The contract view alone: not the control surface, its lease checks and their process-tree code.
  {
    path: ["control", "contract"],
    alsoNot: {
      files: [...RENDER_FILES, "src/control/mod.ts", "src/store/lease.ts", "src/util/proc_tree.ts"],
      packages: [...RENDER_PACKAGES, "js-yaml"],
    },
  },
  { path: ["packet", "lint"], alsoNot: { files: RENDER_FILES, packages: [...RENDER_PACKAGES, "js-yaml"] } },
  // A workspace manifest is read with js-yaml (src/workspace/manifest.ts).
  { path: ["workspace", "list"], alsoNot: { files: RENDER_FILES, packages: RENDER_PACKAGES } },
  // replay renders, but string-width (its Unicode tables compiled at load) only loads when some text needs it.
  { path: ["replay"], alsoNot: { files: [], packages: ["string-width", "js-yaml"] } },
];

/** The module a registry entry loads, read from its `load` function (`() => import("./plan.ts")`). */
function commandModule(path: string[]): string {
  const entry = findCommand(path)?.entry;
  assert.ok(entry && entry.path.join(" ") === path.join(" "), `no command ${path.join(" ")}`);
  const spec = /import\(\s*["']([^"']+)["']\s*\)/.exec(entry.load.toString())?.[1];
  assert.ok(spec, `cannot read the module of ${path.join(" ")} from ${entry.load.toString()}`);
  return new URL(spec, `file://${ROOT}/src/cli/registry.ts`).pathname.slice(ROOT.length + 1);
}

async function sources(): Promise<Map<string, string>> {
  const files = await readSources(ROOT);
  files.set("main.ts", await Deno.readTextFile(`${ROOT}/main.ts`));
  return files;
}

function offending(load: StaticLoad, files: readonly string[], packages: readonly string[]): string[] {
  const out = files.filter((f) => load.files.has(f));
  for (const [p, from] of load.packages) {
    if (p.startsWith("node:") || packages.includes(packageName(p))) out.push(`${p} (imported by ${from})`);
  }
  return out;
}

Deno.test("--help and version evaluate no command module and no package", async () => {
  const files = await sources();
  const load = staticLoad(files, ["main.ts"]);
  const commandModules = COMMANDS.map((c) => commandModule(c.path));
  assert.deepEqual(commandModules.filter((m) => load.files.has(m)), []);
  assert.deepEqual([...load.packages.keys()], []);
});

Deno.test("every read-only command leaves the heavy modules and packages unloaded until it asks for them", async () => {
  const files = await sources();
  for (const { path, alsoNot } of READ_ONLY) {
    const load = staticLoad(files, ["main.ts", commandModule(path)]);
    const bad = offending(load, [...HEAVY_FILES, ...alsoNot.files], [...HEAVY_PACKAGES, ...alsoNot.packages]);
    assert.deepEqual(bad, [], `${path.join(" ")} loads up front: ${bad.join(", ")}`);
  }
});

/** The process-tree code (spawning `/proc` readers, helpers with deadlines) and the run record's writers. */
const PROCESS_FILES = ["src/util/proc_tree.ts", "src/util/helper.ts", "src/util/spawn.ts"];
const RECORD_WRITERS = ["src/store/run_record.ts", "src/store/journal.ts"];
/** The clauses the lint checks patterns of (with the matcher and src/contract/clauses/patterns.ts alone). */
const CLAUSE_FILES = [
  "src/contract/clauses/glob.ts",
  "src/contract/clauses/glob_walk.ts",
  "src/contract/clauses/text.ts",
  "src/contract/clauses/source_absent.ts",
  "src/contract/clauses/_common.ts",
];

Deno.test("plan, list and packet lint evaluate neither the process-tree code nor the clauses", async () => {
  // The `--allow-run` list names `cat`, `/bin/sh` and `kill` (src/util/executables.ts); only a lane spawns them.
  const files = await sources();
  for (const path of [["plan"], ["list"], ["packet", "lint"]]) {
    const load = staticLoad(files, ["main.ts", commandModule(path)]);
    // plan reads progress.log only for `--remaining`, and loads its reader then.
    const planOnly = path[0] === "plan" ? [...RECORD_WRITERS, "src/store/progress.ts"] : [];
    const not = [...PROCESS_FILES, ...CLAUSE_FILES, ...planOnly];
    const bad = not.filter((f) => load.files.has(f));
    assert.deepEqual(bad, [], `${path.join(" ")} loads up front: ${bad.join(", ")}`);
  }
  // The check can see them: the lanes, the run opening and the verifier still reach them.
  const run = staticLoad(files, ["main.ts", commandModule(["run"])]);
  for (const f of [...PROCESS_FILES, ...RECORD_WRITERS, ...CLAUSE_FILES, "src/store/progress.ts"]) {
    assert.ok(run.files.has(f), `run should reach ${f}`);
  }
});

/** What `replay` needs of the packet is its prompt files: not the loader's option layering, profiles and checks. */
const PACKET_LOADER_FILES = [
  "src/packet/load.ts",
  "src/packet/assemble.ts",
  "src/packet/profiles.ts",
  "src/packet/options_intern.ts",
  "src/packet/repos.ts",
];
/** The render surface and the renderers' neighbours `replay` does not use (summaries, JUnit, CI commands, sinks). */
const RENDER_SURFACE_FILES = [
  "src/render/mod.ts",
  "src/render/junit.ts",
  "src/render/summary_markdown.ts",
  "src/render/ci_commands.ts",
  "src/render/sinks.ts",
  "src/render/status_line.ts",
];

/** The control surface's request, steering and lease code (src/control/mod.ts): a replay only reads files. */
const CONTROL_WRITE_FILES = [
  "src/control/mod.ts",
  "src/control/request.ts",
  "src/control/steer.ts",
  "src/control/refusal.ts",
  "src/store/lease.ts",
];

Deno.test("replay evaluates neither the packet loader, js-yaml, the control surface nor the render surface up front", async () => {
  const files = await sources();
  const load = staticLoad(files, ["main.ts", commandModule(["replay"])]);
  const bad = offending(
    load,
    [...PACKET_LOADER_FILES, ...RENDER_SURFACE_FILES, ...CONTROL_WRITE_FILES, "src/cli/selection_flags.ts"],
    ["js-yaml"],
  );
  assert.deepEqual(bad, [], `replay loads up front: ${bad.join(", ")}`);
  // A header's prompt file is the one its attempt's log names, its body read without decoding the front matter: no
  // YAML parser, no option code. Only a prompt without a log loads the packet's prompt files (and js-yaml), lazily.
  const yamlFree = ["src/packet/front_matter.ts", "src/packet/options.ts", "src/packet/packet_files.ts"];
  assert.deepEqual(yamlFree.filter((f) => load.files.has(f)), [], "replay reads prompt bodies without YAML");
  const fallback = staticLoad(files, ["src/packet/packet_files.ts"]);
  assert.deepEqual(PACKET_LOADER_FILES.filter((f) => fallback.files.has(f)), []);
  assert.ok(fallback.files.has("src/util/yaml_subset.ts"), "the prompt files' front matter is YAML");
  assert.ok(staticLoad(files, ["src/util/yaml.ts"]).packages.has("js-yaml"), "the check can see js-yaml");
  // The check can see them: run reaches every one.
  const run = staticLoad(files, ["main.ts", commandModule(["run"])]);
  for (const f of [...PACKET_LOADER_FILES, ...RENDER_SURFACE_FILES]) {
    assert.ok(run.files.has(f), `run should reach ${f}`);
  }
  const steer = staticLoad(files, ["main.ts", commandModule(["control", "steer"])]);
  for (const f of CONTROL_WRITE_FILES) assert.ok(steer.files.has(f), `control steer should reach ${f}`);
});

Deno.test("the check sees heavy loads: run reaches the lanes, the runner, the verifier and the renderer", async () => {
  const files = await sources();
  const load = staticLoad(files, ["main.ts", commandModule(["run"])]);
  for (const f of ["src/lanes/process.ts", "src/run/runner.ts", "src/contract/verify.ts", "src/render/core.ts"]) {
    assert.ok(load.files.has(f), `run should reach ${f}`);
  }
  const loaded = new Set([...load.packages.keys()].map(packageName));
  for (const p of ["diff", "js-yaml"]) assert.ok(loaded.has(p), `run should load ${p}`);
});

Deno.test("packageImports() reads static value imports of packages, not types, relative paths or dynamic imports", () => {
  const src = [
    'import picomatch from "picomatch";',
    'import type { X } from "diff";',
    'import { type Y } from "string-width";',
    'import { join } from "node:path";',
    'export { z } from "js-yaml";',
    'import "npm:side-effect@1";',
    'import { a } from "./a.ts";',
    'const lazy = await import("tinyglobby");',
    '// import nope from "commented";',
  ].join("\n");
  assert.deepEqual(packageImports(src), ["js-yaml", "node:path", "npm:side-effect@1", "picomatch"]);
});

Deno.test("control contract's view loads neither the amendment writers nor js-yaml", async () => {
  const files = await sources();
  // The command reaches the view through `import()` (src/control/mod.ts `contract()`).
  assert.match(files.get("src/control/mod.ts")!, /import\("\.\/contract_view\.ts"\)\)\.contract\(/);
  const writers = ["src/control/amend.ts", "src/control/persist.ts", "src/util/yaml.ts", "src/contract/history.ts"];
  const view = staticLoad(files, ["src/control/contract_view.ts"]);
  const bad = offending(view, writers, ["js-yaml"]);
  assert.deepEqual(bad, [], `the contract view loads: ${bad.join(", ")}`);
  // The check can see them: `control amend` reaches every one.
  const amend = staticLoad(files, ["src/control/amend.ts"]);
  assert.deepEqual(writers.filter((f) => !amend.files.has(f)), []);
  assert.ok(amend.packages.has("js-yaml"));
});

/**
 * Readers apart from writers (docs/bench.md, "Cold start"): every module a source run evaluates costs a cache lookup
 * and a compile, so a read-only command does not evaluate code it never calls — the lane session code (the
 * `--allow-run` list needs only the executable's name), the state and progress writers, the amendment folding
 * (`packet lint` needs only the packet contract), the store layout (for a run ref only), the event barrel and the
 * live runner's diff prefetch.
 */
const NOT_LOADED: { path: string[]; files: string[] }[] = [
  { path: ["plan"], files: ["src/run/state.ts", "src/util/held_append.ts", "src/run/state_entries.ts"] },
  { path: ["list"], files: ["src/store/progress_append.ts", "src/util/held_append.ts", "src/cli/selection_flags.ts"] },
  {
    path: ["packet", "lint"],
    files: [
      "src/contract/enforced.ts",
      "src/contract/persisted.ts",
      "src/util/safe_read.ts",
      "src/cli/selection_flags.ts",
    ],
  },
  { path: ["control", "contract"], files: ["src/store/layout.ts", "src/contract/entries.ts", "src/store/guard.ts"] },
  // replay diffs a path synchronously (src/render/git_diff_sync.ts): not the live prefetch's helper processes.
  {
    path: ["replay"],
    files: [
      "src/events/mod.ts",
      "src/events/json.ts",
      "src/events/run_summary.ts",
      "src/util/helper.ts",
      "src/util/spawn.ts",
    ],
  },
];
const LANE_SESSION_FILES = ["src/lanes/profile.ts", "src/lanes/tool_vocabulary.ts", "src/lanes/types.ts"];

Deno.test("read-only commands evaluate neither the lane session code nor the writers of what they read", async () => {
  const files = await sources();
  for (const { path, files: not } of NOT_LOADED) {
    const load = staticLoad(files, ["main.ts", commandModule(path)]);
    const lanes = path[0] === "replay" ? [] : LANE_SESSION_FILES;
    const bad = [...not, ...lanes].filter((f) => load.files.has(f));
    assert.deepEqual(bad, [], `${path.join(" ")} loads up front: ${bad.join(", ")}`);
  }
  // The check can see them: run and control amend reach every one.
  const run = staticLoad(files, ["main.ts", commandModule(["run"])]);
  const amend = staticLoad(files, ["main.ts", commandModule(["control", "amend"])]);
  const all = [...NOT_LOADED.flatMap((n) => n.files), ...LANE_SESSION_FILES];
  const unseen = all.filter((f) => !run.files.has(f) && !amend.files.has(f));
  assert.deepEqual(unseen, [], `neither run nor control amend reaches ${unseen.join(", ")}`);
});
