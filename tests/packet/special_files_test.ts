/**
 * A manifest or prompt file that is not a regular file (a FIFO, a directory, a symlink loop) is refused at load with a
 * packet error naming the file and what was expected — never read (a FIFO would block the load forever), never a bare
 * OS error with exit 1.
 */
import assert from "node:assert/strict";
import { loadPacket } from "../../src/packet/load.ts";
import { PacketError } from "../../src/errors.ts";
import { tempDir } from "../support/fs.ts";
import { promptText, writePacket } from "./_packet.ts";

const NO_ENV = { env: {} };

async function loadError(dir: string): Promise<PacketError> {
  const timer = new Promise<never>((_, reject) => {
    const id = setTimeout(() => reject(new Error("loadPacket hung")), 5000);
    Deno.unrefTimer(id);
  });
  try {
    await Promise.race([loadPacket(dir, NO_ENV), timer]);
  } catch (e) {
    if (e instanceof PacketError) return e;
    throw e;
  }
  throw new Error("loaded without error");
}

async function fifo(path: string): Promise<void> {
  const p = await new Deno.Command("mkfifo", { args: [path] }).output();
  assert.ok(p.success);
}

Deno.test("a FIFO manifest is refused naming the file, without blocking", async () => {
  await using t = await tempDir();
  const pkt = await writePacket(`${t.path}/pkt`, "name: x\n", { "01_a.prompt.md": promptText("id: 1\n") });
  await Deno.remove(`${pkt}/prompt_runner_packet.md`);
  await fifo(`${pkt}/prompt_runner_packet.md`);
  const e = await loadError(pkt);
  assert.equal(e.exit, 3);
  assert.match(e.message, /^prompt_runner_packet\.md is a FIFO; expected a regular file/);
});

Deno.test("a directory manifest is a packet error (exit 3), not an OS error", async () => {
  await using t = await tempDir();
  const pkt = await writePacket(`${t.path}/pkt`, "name: x\n", { "01_a.prompt.md": promptText("id: 1\n") });
  await Deno.remove(`${pkt}/prompt_runner_packet.md`);
  await Deno.mkdir(`${pkt}/prompt_runner_packet.md`);
  const e = await loadError(pkt);
  assert.equal(e.exit, 3);
  assert.match(e.message, /is a directory; expected a regular file/);
});

Deno.test("a prompt linked to a FIFO inside the packet, and a symlink loop, are refused by name", async () => {
  await using t = await tempDir();
  const pkt = await writePacket(`${t.path}/pkt`, "name: x\n", { "01_a.prompt.md": promptText("id: 1\n") });
  await fifo(`${pkt}/pipe`);
  await Deno.symlink("../pipe", `${pkt}/prompts/02_pipe.prompt.md`);
  let e = await loadError(pkt);
  assert.equal(e.exit, 3);
  assert.match(e.message, /prompts\/02_pipe\.prompt\.md is a FIFO; expected a regular file/);
  await Deno.remove(`${pkt}/prompts/02_pipe.prompt.md`);
  await Deno.symlink("03_b.prompt.md", `${pkt}/prompts/03_a.prompt.md`);
  await Deno.symlink("03_a.prompt.md", `${pkt}/prompts/03_b.prompt.md`);
  e = await loadError(pkt);
  assert.equal(e.exit, 3);
  assert.match(e.message, /prompts\/03_a\.prompt\.md is a symbolic link loop/);
});
