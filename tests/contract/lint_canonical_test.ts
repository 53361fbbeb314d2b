/** `packet lint` resolves the prompts' shared working directory and repos once per packet, not once per prompt. */
import assert from "node:assert/strict";
import { tempDir } from "../support/fs.ts";
import { writeScalePacket } from "../../scripts/bench/_scale_packet.ts";
import { lintPacket } from "../../src/contract/packet_lint.ts";
import { rememberedCanonicalPath } from "../../src/contract/lint.ts";

/** realpath calls made while linting a generated packet of `count` prompts (the test's own seam over `Deno`). */
async function realpathsOfLint(count: number): Promise<number> {
  await using dir = await tempDir();
  await writeScalePacket(dir.path, count);
  const realPathSync = Deno.realPathSync;
  let calls = 0;
  Deno.realPathSync = (p) => (calls++, realPathSync(p));
  try {
    const r = await lintPacket(dir.path);
    assert.equal(r.errors, 0, JSON.stringify(r.findings));
    assert.equal(r.packet?.prompts.length, count);
  } finally {
    Deno.realPathSync = realPathSync;
  }
  return calls;
}

Deno.test("packet lint: each further prompt costs one realpath (its 2 entries name one missing file; out/ is remembered)", async () => {
  const four = await realpathsOfLint(4);
  const eight = await realpathsOfLint(8);
  assert.equal((eight - four) / 4, 1, `4 prompts: ${four} realpaths, 8 prompts: ${eight}`);
});

Deno.test("rememberedCanonicalPath() resolves a path once and answers what canonicalPath answers", async () => {
  await using dir = await tempDir();
  const real = Deno.realPathSync(dir.path);
  await Deno.symlink(real, `${real}/link`);
  const canonical = rememberedCanonicalPath();
  const realPathSync = Deno.realPathSync;
  let calls = 0;
  Deno.realPathSync = (p) => (calls++, realPathSync(p));
  try {
    assert.equal(canonical(`${real}/link`), real);
    assert.equal(canonical(`${real}/link`), real);
    assert.equal(canonical(`${real}/link/missing.txt`), `${real}/missing.txt`);
    assert.equal(canonical(`${real}/link/gone/deeper.txt`), `${real}/gone/deeper.txt`);
  } finally {
    Deno.realPathSync = realPathSync;
  }
  // The link once; the missing file itself (its parent is the remembered link); the deeper file and gone/ (then link).
  assert.equal(calls, 4, "one for the link, one for each missing path; a remembered parent is not asked again");
});
