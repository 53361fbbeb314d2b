/**
 * `promptTexts()` (src/packet/packet_files.ts): the prompt files of a packet, id → file and body, read the way the
 * loader reads them but without its option layering; `promptBodyAt()` (src/packet/prompt_body.ts): one prompt file's
 * body by its path, without decoding the front matter — what `replay` shows in its headers.
 */
import assert from "node:assert/strict";
import { loadPacket } from "../../src/packet/load.ts";
import { promptTexts } from "../../src/packet/packet_files.ts";
import { promptBodyAt } from "../../src/packet/prompt_body.ts";
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

Deno.test("promptBodyAt() gives the loader's body of the file it is named, never one outside the packet", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/secret.md`, "---\nid: 9\n---\nsecret\n");
  const root = await writePacket(`${dir.path}/pkt`, "name: p\n", {
    "01_a.prompt.md": promptText("id: 1\nverify: {files_exist: [a.txt]}\n", "# A\n\nIn /author/repo.\n"),
    "02_b.prompt.md": "no front matter at all\n",
    "03_c.prompt.md": "---\nid: 3\nnever closed\n",
    "04_d.prompt.md": promptText("id: [not, yaml: here\n", "# D\n"),
  });
  await Deno.symlink(`${dir.path}/secret.md`, `${root}/prompts/09_link.prompt.md`);
  const real = await Deno.realPath(root);
  const packet = await loadPacket(root).catch(() => null);
  assert.equal(packet, null, "04's YAML does not decode: the loader refuses the packet");
  const a = await promptBodyAt(real, "prompts/01_a.prompt.md");
  assert.deepEqual(a, {
    file: `${real}/prompts/01_a.prompt.md`,
    relFile: "prompts/01_a.prompt.md",
    body: "# A\n\nIn /author/repo.\n",
  });
  assert.equal((await promptBodyAt(real, "prompts/02_b.prompt.md"))?.body, "no front matter at all\n");
  assert.equal((await promptBodyAt(real, "prompts/04_d.prompt.md"))?.body, "# D\n", "the YAML is not decoded");
  assert.equal(
    (await promptBodyAt(real, "prompts/01_a.prompt.md", (t) => t.replace("/author/repo", "/c")))?.body,
    "# A\n\nIn /c.\n",
  );
  for (
    const rel of [
      "prompts/03_c.prompt.md",
      "prompts/09_link.prompt.md",
      "prompts/gone.prompt.md",
      "../secret.md",
      "/etc/hostname",
      "prompts",
      "",
    ]
  ) {
    assert.equal(await promptBodyAt(real, rel), null, rel);
  }
});
