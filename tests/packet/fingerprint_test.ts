import assert from "node:assert/strict";
import { canonicalJson, packetFingerprint } from "../../src/packet/fingerprint.ts";
import { loadPacket } from "../../src/packet/load.ts";
import { tempDir } from "../support/fs.ts";
import { promptText, writePacket } from "./_packet.ts";

Deno.test("canonicalJson() sorts keys at every depth", () => {
  assert.equal(
    canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: null } }),
    '{"a":{"c":null,"d":[{"y":2,"z":1}]},"b":1}',
  );
});

Deno.test("packetFingerprint() is stable across loads and ignores key order and CLI flags", async () => {
  await using a = await tempDir();
  await using b = await tempDir();
  await writePacket(a.path, "name: f\nmodel: m\nlog_mode: verbose\n", {
    "01_a.prompt.md": promptText("verify: {files_exist: [x], contains: []}\n"),
  });
  await writePacket(b.path, "log_mode: verbose\nmodel: m\nname: f\n", {
    "01_a.prompt.md": promptText("verify: {contains: [], files_exist: [x]}\n"),
  });
  const fa = await packetFingerprint(await loadPacket(a.path, { env: {} }));
  assert.match(fa, /^[0-9a-f]{64}$/);
  assert.equal(fa, await packetFingerprint(await loadPacket(b.path, { env: {} })));
  assert.equal(fa, await packetFingerprint(await loadPacket(a.path, { env: {}, overrides: { model: "other" } })));
});

Deno.test("packetFingerprint() changes with the body, the contract, the script and the manifest options", async () => {
  await using t = await tempDir();
  await writePacket(t.path, "name: f\n", { "01_a.prompt.md": promptText("verify: {files_exist: [x]}\n") });
  const fp = async () => await packetFingerprint(await loadPacket(t.path, { env: {} }));
  const seen = new Set([await fp()]);
  const edits: [string, string][] = [
    ["prompts/01_a.prompt.md", promptText("verify: {files_exist: [x]}\n", "# Prompt changed\n")],
    ["prompts/01_a.prompt.md", promptText("verify: {files_exist: [y]}\n", "# Prompt changed\n")],
    [
      "prompts/01_a.prompt.md",
      promptText("verify: {files_exist: [y]}\nsimulate: {attempts: []}\n", "# Prompt changed\n"),
    ],
    ["prompt_runner_packet.md", "---\nname: f\nmodel: other\n---\n"],
  ];
  for (const [file, text] of edits) {
    await Deno.writeTextFile(`${t.path}/${file}`, text);
    const next = await fp();
    assert.ok(!seen.has(next), `fingerprint unchanged after editing ${file}`);
    seen.add(next);
  }
});
