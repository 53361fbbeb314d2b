/**
 * A store root that is a regular file (`.prompt_runner` made by hand, a bad checkout) is refused by name
 * (`store_integrity`, exit 1) by every reader, never a bare "Not a directory (os error 20)" internal error.
 */
import assert from "node:assert/strict";
import { runCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";

Deno.test("a store root that is a regular file is refused by name by plan, status, control status and list", async () => {
  await using dir = await tempDir();
  const pkt = `${dir.path}/pkt`;
  await Deno.mkdir(`${pkt}/prompts`, { recursive: true });
  await Deno.writeTextFile(`${pkt}/prompt_runner_packet.md`, "---\nname: p\nprovider: simulated\n---\n");
  await Deno.writeTextFile(`${pkt}/prompts/01_a.prompt.md`, "---\nid: 1\nverify:\n  files_exist: [a]\n---\n# A\n");
  await Deno.writeTextFile(`${pkt}/.prompt_runner`, "not a directory\n");
  for (const args of [["plan", pkt], ["status", pkt], ["control", "status", pkt], ["list", pkt]]) {
    const r = await runCli(args);
    assert.equal(r.code, 1, `${args.join(" ")}: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr, /\.prompt_runner is a regular file, expected a directory/, args.join(" "));
    assert.doesNotMatch(r.stderr, /os error/);
  }
});
