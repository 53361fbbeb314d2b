/** Every failpoint in the code is documented in docs/failpoints.md and killed at by the failpoint tests. */
import assert from "node:assert/strict";
import { ROOT } from "../support/cli.ts";
import { FAILPOINT_CASES } from "../run/failpoint_cases.ts";

async function sourceFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory) out.push(...await sourceFiles(path));
    else if (e.name.endsWith(".ts")) out.push(path);
  }
  return out;
}

Deno.test("failpoints: code, docs/failpoints.md and the crash tests name the same points", async () => {
  const inCode = new Set<string>();
  for (const file of await sourceFiles(`${ROOT}/src`)) {
    const text = await Deno.readTextFile(file);
    for (const m of text.matchAll(/failpoint(?:\(|: )"([a-z_]+\.[a-z_]+)"/g)) inCode.add(m[1]!);
  }
  const docs = await Deno.readTextFile(`${ROOT}/docs/failpoints.md`);
  const documented = [...docs.matchAll(/^\| `([a-z_]+\.[a-z_]+)` +\|/gm)].map((m) => m[1]!);
  assert.deepEqual([...documented].sort(), documented, "docs/failpoints.md rows are sorted by name");
  const tested = new Set(FAILPOINT_CASES.map((c) => c.split("@")[0]!));
  assert.ok(inCode.size >= 11, `found only ${inCode.size} failpoints in src/`);
  assert.deepEqual([...inCode].sort(), [...new Set(documented)].sort(), "every failpoint in src/ is documented");
  // Points with a crash test of their own (the generic sweep cannot reach them: they need a failing prompt).
  const own: Record<string, string> = {
    "preserve.after_ref": "tests/run/keep_going_preserve_test.ts",
    "restore.after_apply": "tests/run/keep_going_preserve_test.ts",
  };
  for (const [point, file] of Object.entries(own)) {
    assert.ok((await Deno.readTextFile(`${ROOT}/${file}`)).includes(`"${point}"`), `${file} crashes at ${point}`);
  }
  const runnerPoints = [...inCode].filter((n) => !n.startsWith("control.") && !(n in own)).sort();
  assert.deepEqual([...tested].sort(), runnerPoints, "every runner failpoint is killed at by a crash test");
});
