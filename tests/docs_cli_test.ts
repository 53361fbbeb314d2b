/** docs/cli.md cannot rot: every registered command, with each of its flags and its permissions, is documented. */
import assert from "node:assert/strict";
import { ROOT } from "./support/cli.ts";
import { COMMANDS } from "../src/cli/registry.ts";

/** The `## <command>` sections of docs/cli.md, by command path. */
function sections(markdown: string): Map<string, string> {
  const out = new Map<string, string>();
  const parts = markdown.split(/^## /m).slice(1);
  for (const part of parts) {
    const nl = part.indexOf("\n");
    out.set(part.slice(0, nl).trim(), part.slice(nl + 1));
  }
  return out;
}

Deno.test("docs/cli.md documents every registered command with its usage, flags, permissions and exit codes", async () => {
  const docs = sections(await Deno.readTextFile(`${ROOT}/docs/cli.md`));
  const missing: string[] = [];
  for (const entry of COMMANDS) {
    const name = entry.path.join(" ");
    const body = docs.get(name);
    if (body === undefined) {
      missing.push(`command "${name}" has no "## ${name}" section`);
      continue;
    }
    const { spec } = await entry.load();
    if (!body.includes(`prompt_runner ${name} ${spec.usage}`)) missing.push(`${name}: usage line`);
    for (const flag of Object.keys(spec.flags)) {
      if (!body.includes(`\`--${flag}\``)) missing.push(`${name}: flag --${flag}`);
    }
    const perms = entry.permissions.map((p) => `\`--allow-${p}\``).join(", ");
    if (!body.includes(`**Permissions:** ${perms}.`)) missing.push(`${name}: permissions ${perms}`);
    if (!/\*\*Exit codes:\*\* \d/.test(body)) missing.push(`${name}: exit codes`);
  }
  const registered = new Set(COMMANDS.map((c) => c.path.join(" ")));
  for (const name of docs.keys()) {
    if (!registered.has(name)) missing.push(`docs/cli.md documents "${name}", which is not a registered command`);
  }
  assert.deepEqual(missing, [], `docs/cli.md is out of date:\n${missing.join("\n")}`);
});

Deno.test("the README links the contributor docs", async () => {
  const readme = await Deno.readTextFile(`${ROOT}/README.md`);
  for (const link of ["docs/architecture.md", "docs/cli.md", "docs/reference/", "docs/control-protocol.md"]) {
    assert.ok(readme.includes(`](${link}`), `README.md links ${link}`);
  }
});

Deno.test("the README's command reference names every registered command and every command of each group", async () => {
  const readme = await Deno.readTextFile(`${ROOT}/README.md`);
  const start = readme.indexOf("## Command reference");
  const section = readme.slice(start, readme.indexOf("\n## ", start + 1));
  // The first code span of each row, as words: "`control status\|events …`" → control, status, events, …
  const rows = section.split("\n").map((l) => /^\| `([^`]+)`/.exec(l)?.[1]).filter((c) => c !== undefined)
    .map((c) => c.replaceAll("\\|", " ").split(/[ |]+/));
  const missing = COMMANDS.filter(({ path: [first, sub] }) =>
    !rows.some((words) => words[0] === first && (sub === undefined || words.includes(sub)))
  ).map((c) => c.path.join(" "));
  assert.deepEqual(missing, [], `README.md's command reference lacks: ${missing.join(", ")}`);
});
