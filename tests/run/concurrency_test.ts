/**
 * Concurrency against a live run (docs/reference/control-plane.md §3, §6.3–§6.5): eight processes each write 200 `set_view`
 * requests through the Control API while a real `prompt_runner run` is live. Every request ends with exactly one
 * receipt and exactly one final log entry — none lost, none applied twice — and the run completes. A steer sent
 * once the writers are done ends the live stream early, so every request lands while the run is live.
 */
import assert from "node:assert/strict";
import { spawnCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { currentRun, steer } from "../../src/control/mod.ts";
import { makePacket, promptFile, readSnapshot } from "./support.ts";
import { waitFor } from "../support/wait.ts";

const WRITERS = 8;
const PER_WRITER = 200;
const WRITER = new URL("./fixtures/view_writer.ts", import.meta.url).pathname;

function jsonLines(text: string): Record<string, unknown>[] {
  return text.split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l));
}

Deno.test("8 processes × 200 set_view requests against a live run: one receipt and one final log entry each", async () => {
  await using dir = await tempDir();
  // Live for up to 30 s; a steer ends it as soon as the writers are done (the steer step is instant).
  const messages = Array.from({ length: 100 }, (_, i) => `m${i}`).join(", ");
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile(
      "1",
      `verify:\n  files_exist: [a.txt]\nsimulate:\n  attempts:\n    - delay_ms: 300\n      messages: [${messages}]\n` +
        "      writes: [{path: a.txt}]\n  steer:\n    - messages: [wrapping up]",
    ),
  });
  const run = spawnCli(["run", pkt]);
  const runOut = run.output(); // drain stdout/stderr while the run is live
  await waitFor(async () => (await readSnapshot(pkt))?.session_live === true);

  const started = Date.now();
  const writers = Array.from({ length: WRITERS }, (_, i) =>
    new Deno.Command(Deno.execPath(), {
      args: ["run", "--quiet", "-A", WRITER, pkt, String(PER_WRITER), String(i)],
      stdout: "piped",
      stderr: "piped",
    }).output());
  const written: string[] = [];
  let refused = 0;
  for (const out of await Promise.all(writers)) {
    const dec = new TextDecoder();
    assert.equal(out.code, 0, dec.decode(out.stderr));
    const r = JSON.parse(dec.decode(out.stdout)) as { written: string[]; refused: number };
    written.push(...r.written);
    refused += r.refused;
  }
  const writeMs = Date.now() - started;
  assert.equal(written.length + refused, WRITERS * PER_WRITER);
  assert.equal(new Set(written).size, written.length, "request names never collide");

  const finish = await steer(await currentRun(pkt), "the writers are done; wrap up");

  const out = await runOut;
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  assert.equal((await readSnapshot(pkt))?.status, "completed", "the run completes");
  assert.ok(written.length > 0);
  // Sized so every request lands while the run is live (writers took `writeMs`).
  assert.equal(refused, 0, `writers outlived the run (${writeMs} ms)`);

  const control = `${pkt}/.prompt_runner/control`;
  const pending = [...Deno.readDirSync(`${control}/requests`)].map((e) => e.name);
  assert.deepEqual(pending, [], "no request is left unprocessed");

  // Exactly one receipt per request, applied or refused as `run has finished` after the close.
  let applied = 0;
  for (const name of written) {
    const receipt = JSON.parse(await Deno.readTextFile(`${control}/outcomes/${name}`));
    assert.equal(receipt.request, name);
    assert.equal(receipt.command, "set_view");
    if (receipt.outcome === "applied") applied++;
    else assert.deepEqual([receipt.outcome, receipt.reason], ["rejected", "run has finished"]);
  }
  const receipts = [...Deno.readDirSync(`${control}/outcomes`)].filter((e) => e.isFile).length;
  assert.equal(receipts, written.length + 1, "no stray receipts (the extra one is the closing steer's)");

  // Exactly one final log entry per request.
  const log = jsonLines(await Deno.readTextFile(`${control}/log.jsonl`));
  const perRequest = new Map<string, Record<string, unknown>[]>();
  for (const e of log) {
    if (typeof e.request !== "string") continue;
    perRequest.set(e.request, [...(perRequest.get(e.request) ?? []), e]);
  }
  for (const name of written) {
    const entries = perRequest.get(name) ?? [];
    assert.equal(entries.length, 1, `${name}: ${JSON.stringify(entries)}`);
    assert.ok(entries[0]!.outcome === "applied" || entries[0]!.outcome === "rejected");
  }
  assert.deepEqual(perRequest.get(finish.request)?.map((e) => e.outcome), ["accepted", "applied"]);
  assert.equal(perRequest.size, written.length + 1);

  // None applied twice: one view_changed per applied request.
  const events = jsonLines(await Deno.readTextFile(`${control}/events.jsonl`));
  const changes = events.filter((e) => e.type === "view_changed").map((e) => (e.data as { request: string }).request);
  assert.equal(changes.length, applied);
  assert.equal(new Set(changes).size, changes.length);
  const seqs = events.map((e) => e.seq);
  assert.deepEqual(seqs, Array.from({ length: seqs.length }, (_, i) => i + 1));
});
