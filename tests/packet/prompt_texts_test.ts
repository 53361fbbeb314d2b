/**
 * `promptTexts()` (src/packet/packet_files.ts): the prompt files of a packet, id → file and body, read the way the
 * loader reads them but without its option layering — what `replay` shows in its headers.
 */
import assert from "node:assert/strict";
import { loadPacket } from "../../src/packet/load.ts";
import { promptTexts } from "../../src/packet/packet_files.ts";
import { tempDir } from "../support/fs.ts";
import { promptText, writePacket } from "./_packet.ts";

Deno.test("promptTexts() gives the loader's ids, files and bodies, with the rewrite applied to bodies", async () => {
  await using dir = await tempDir();
  const root = await writePacket(dir.path, "name: p\nprompt_dir: steps\n", {}, {
    "steps/01_a.prompt.md": promptText("id: 1\n", "# A\n\nWork in /author/repo.\n"),
    "steps/b.prompt.md": promptText('id: "03"\n', "# B\n"),
    "steps/02_c.prompt.md": promptText("", "# C\n"),
  });
  const packet = await loadPacket(root);
  const texts = await promptTexts(root);
  assert.equal(texts?.dir, packet.dir);
  const byId = (xs: { id: string; file: string; relFile: string; body: string }[]) =>
    Object.fromEntries(xs.map((p) => [p.id, { file: p.file, relFile: p.relFile, body: p.body }]));
  assert.deepEqual(byId(texts!.prompts), byId(packet.prompts));
  assert.deepEqual(Object.keys(byId(texts!.prompts)).sort(), ["01", "02", "03"]);
  const rewritten = await promptTexts(root, (t) => t.replaceAll("/author/repo", "/clone"));
  assert.match(rewritten!.prompts.find((p) => p.id === "01")!.body, /Work in \/clone\./);
});

Deno.test("promptTexts() keeps the first of a duplicated id, skips unreadable prompts and never reads outside the packet", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/secret.md`, "---\nid: 9\n---\nsecret\n");
  const root = await writePacket(`${dir.path}/pkt`, "name: p\n", {
    "01_a.prompt.md": promptText("id: 1\n", "first\n"),
    "02_b.prompt.md": promptText("id: 1\n", "second\n"),
    "03_c.prompt.md": "---\nid: [unclosed\n---\nbroken\n",
  });
  await Deno.symlink(`${dir.path}/secret.md`, `${root}/prompts/09_link.prompt.md`);
  const texts = await promptTexts(root);
  assert.deepEqual(texts!.prompts.map((p) => [p.id, p.body]), [["01", "first\n"]]);
});

Deno.test("promptTexts() is null for a directory that is not a packet or whose manifest does not parse", async () => {
  await using dir = await tempDir();
  assert.equal(await promptTexts(`${dir.path}/missing`), null);
  assert.equal(await promptTexts(dir.path), null);
  await Deno.writeTextFile(`${dir.path}/prompt_runner_packet.md`, "---\nname: [unclosed\n---\n");
  assert.equal(await promptTexts(dir.path), null);
});
