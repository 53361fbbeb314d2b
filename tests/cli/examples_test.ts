import assert from "node:assert/strict";
import { EXAMPLE_NAMES, setupExample } from "../../examples/setup.ts";
import { parseJsonOut, runCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";

for (const name of EXAMPLE_NAMES) {
  Deno.test(`the shipped ${name} example passes packet lint --strict with no findings`, async () => {
    await using dir = await tempDir();
    const packet = await setupExample(name, dir.path);
    const r = await runCli(["packet", "lint", packet, "--strict", "--json"]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const doc = parseJsonOut(r);
    assert.equal(doc.pass, true);
    assert.deepEqual(doc.findings, []);
  });
}
