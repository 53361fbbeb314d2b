/**
 * `replay` shows each prompt's file and body preview from the prompt files as they are now, without the packet loader:
 * the file the attempt's log names, its body read without decoding the front matter (src/packet/prompt_body.ts), else
 * the packet's prompt file of that id (src/packet/packet_files.ts `promptTexts()`). The same file and body the loader
 * gives; still shown when something else in the packet no longer loads; none for a prompt whose file is gone.
 */
import assert from "node:assert/strict";
import { loadPacket } from "../../src/packet/load.ts";
import { runCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { makePacket, promptFile } from "../run/support.ts";

const writes = (id: string) => `simulate:\n  attempts:\n    - writes: [{path: f${id}.txt, text: "${id}"}]`;

/** The header block of a prompt in replay's compact output: from its title to the session start line. */
function header(out: string, id: string): string {
  const at = out.indexOf(`Prompt ${id}: `);
  assert.ok(at >= 0, `no header for prompt ${id} in:\n${out}`);
  return out.slice(at, out.indexOf("Starting simulated session…", at));
}

Deno.test("replay shows each prompt's file and body as the packet loader reads them, even once the packet no longer loads", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_first.prompt.md": promptFile("1", writes("01"), "First step") + "\nAdd the first file.\nKeep it short.\n",
    "02_second.prompt.md": promptFile("2", writes("02"), "Second step") + "\nThen the second one.\n",
  });
  const ran = await runCli(["run", pkt, "--no-commit"]);
  assert.equal(ran.code, 0, ran.stderr);
  const packet = await loadPacket(pkt);

  const r = await runCli(["replay", pkt, "--log-mode", "compact"]);
  assert.equal(r.code, 0, r.stderr);
  for (const p of packet.prompts) {
    const h = header(r.stdout, p.id);
    assert.ok(h.includes(`Prompt:   ${p.relFile}\n`), h);
    const preview = p.body.replace(/^\n+/, "").split("\n").slice(0, 10).map((l) => l === "" ? "" : `  ${l}`);
    assert.ok(h.includes(`Prompt preview (first 10 lines):\n${preview.join("\n")}`), h);
  }

  // Prompt 02 now depends on a prompt that does not exist: the loader refuses the packet; its files still read.
  const second = `${pkt}/prompts/02_second.prompt.md`;
  await Deno.writeTextFile(second, (await Deno.readTextFile(second)).replace("id: 2\n", 'id: 2\ndepends_on: ["9"]\n'));
  await assert.rejects(() => loadPacket(pkt));
  const after = await runCli(["replay", pkt, "--log-mode", "compact"]);
  assert.equal(after.code, 0, after.stderr);
  assert.ok(header(after.stdout, "02").includes("  Then the second one."), after.stdout);

  // A prompt file that is gone: its header shows what the events carry, without a file or a preview.
  await Deno.remove(`${pkt}/prompts/01_first.prompt.md`);
  const gone = await runCli(["replay", pkt, "--log-mode", "compact"]);
  assert.equal(gone.code, 0, gone.stderr);
  assert.doesNotMatch(header(gone.stdout, "01"), /Prompt:|Prompt preview/);
  assert.match(header(gone.stdout, "02"), /Prompt: {3}prompts\/02_second\.prompt\.md\n/);
});

Deno.test("replay without the run's logs, or with a prompt file renamed since, shows the packet's file of that id", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_first.prompt.md": promptFile("1", writes("01"), "First step") + "\nAdd the first file.\n",
    "02_second.prompt.md": promptFile("2", writes("02"), "Second step") + "\nThen the second one.\n",
  });
  assert.equal((await runCli(["run", pkt, "--no-commit"])).code, 0);
  const before = await runCli(["replay", pkt, "--log-mode", "compact"]);
  assert.match(header(before.stdout, "01"), /Log: {6}\S+\.log\n/);

  // The file an attempt's log names is the one shown, whatever id it holds now.
  const second = `${pkt}/prompts/02_second.prompt.md`;
  await Deno.writeTextFile(second, (await Deno.readTextFile(second)).replace("id: 2\n", "id: 7\n"));
  const renumbered = await runCli(["replay", pkt, "--log-mode", "compact"]);
  assert.match(
    header(renumbered.stdout, "02"),
    /Prompt: {3}prompts\/02_second\.prompt\.md\n[\s\S]* {2}Then the second one\./,
  );
  await Deno.writeTextFile(second, (await Deno.readTextFile(second)).replace("id: 7\n", "id: 2\n"));

  // Renamed since the run: the log names a file that is gone, so the header shows the file that now has id 01.
  await Deno.rename(`${pkt}/prompts/01_first.prompt.md`, `${pkt}/prompts/01_renamed.prompt.md`);
  const renamed = await runCli(["replay", pkt, "--log-mode", "compact"]);
  assert.equal(renamed.code, 0, renamed.stderr);
  assert.match(
    header(renamed.stdout, "01"),
    /Prompt: {3}prompts\/01_renamed\.prompt\.md\n[\s\S]* {2}Add the first file\./,
  );

  // No logs at all: every header comes from the packet's prompt files, and reads as before but for the Log line.
  await Deno.remove(`${pkt}/.prompt_runner/logs`, { recursive: true });
  const noLogs = await runCli(["replay", pkt, "--log-mode", "compact"]);
  assert.equal(noLogs.code, 0, noLogs.stderr);
  assert.equal(
    noLogs.stdout,
    renamed.stdout.replace(/^Log: {6}\S+\n/gm, ""),
    "the same headers, taken from the packet, without the Log lines",
  );
});
