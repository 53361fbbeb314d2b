/**
 * `events_mode` (docs/reference/runner.md §10.4, docs/reference/packet.md manifest key, `--events-mode` flag): the per-attempt
 * `logs/prompt-<id>-<ts>.events.jsonl` is compact records, canonical envelopes, or absent. Hidden events never go
 * to it.
 */
import assert from "node:assert/strict";
import { runCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { makePacket, promptFile, readPrompts } from "./support.ts";

const SCRIPT = `verify:
  files_exist: [a.txt]
simulate:
  attempts:
    - messages: [hello there]
      tools:
        - {name: Bash, input: {command: ls}, output: "a.txt b.txt", writes: [{path: a.txt}]}
      usage: {input_tokens: 12, output_tokens: 34, cost_usd: 0.5}`;

interface AttemptFiles {
  log_file: string | null;
  events_file: string | null;
}

async function runWith(
  dir: string,
  manifestMode: string | null,
  flag: string | null,
): Promise<{ pkt: string; attempt: AttemptFiles }> {
  const pkt = await makePacket(
    dir,
    { "01_a.prompt.md": promptFile("1", SCRIPT) },
    manifestMode ? `events_mode: ${manifestMode}\n` : "",
  );
  const r = await runCli(["run", pkt, ...(flag ? ["--events-mode", flag] : [])]);
  assert.equal(r.code, 0, r.stderr);
  const attempt = (await readPrompts(pkt))["01"]!.attempts[0] as unknown as AttemptFiles;
  return { pkt, attempt };
}

function lines(text: string): Record<string, unknown>[] {
  return text.trim().split("\n").map((l) => JSON.parse(l));
}

Deno.test("events_mode compact (the default) writes abbreviated records without hidden events", async () => {
  await using dir = await tempDir();
  const { pkt, attempt } = await runWith(dir.path, null, null);
  assert.ok(attempt.log_file);
  assert.equal(attempt.events_file, attempt.log_file!.replace(/\.log$/, ".events.jsonl"));
  const recs = lines(await Deno.readTextFile(`${pkt}/.prompt_runner/${attempt.events_file}`)) as {
    t: number;
    e: Record<string, unknown>;
  }[];
  assert.ok(recs.every((r) => typeof r.t === "number" && r.t > 0));
  assert.deepEqual(recs.map((r) => r.e), [
    { t: "rs", m: "simulated-demo" },
    { t: "ms", l: 11 },
    { t: "ts", n: "Bash" },
    { t: "tc", n: "Bash", l: 11 },
    { t: "tu", i: 12, o: 34, $: 0.5 },
    { t: "rc", sr: "end_turn" },
  ]);
});

Deno.test("events_mode full (manifest key) writes the canonical envelopes exactly as in control/events.jsonl", async () => {
  await using dir = await tempDir();
  const { pkt, attempt } = await runWith(dir.path, "full", null);
  const text = await Deno.readTextFile(`${pkt}/.prompt_runner/${attempt.events_file}`);
  const canonical = (await Deno.readTextFile(`${pkt}/.prompt_runner/control/events.jsonl`)).trim().split("\n");
  const own = text.trim().split("\n");
  const expected = canonical.filter((l) => {
    const e = JSON.parse(l);
    return e.origin === "provider" && e.prompt_id === "01" && e.hidden !== true;
  });
  assert.deepEqual(own, expected, "byte-identical lines, hidden ones skipped");
  assert.deepEqual(own.map((l) => JSON.parse(l).type), [
    "run_started",
    "message_streamed",
    "tool_call_started",
    "tool_call_completed",
    "token_usage_updated",
    "run_completed",
  ]);
  assert.ok(canonical.some((l) => JSON.parse(l).type === "message_sent"), "the hidden event exists upstream");
});

Deno.test("events_mode off writes no events file; --events-mode overrides the manifest key", async () => {
  await using dir = await tempDir();
  const { pkt, attempt } = await runWith(dir.path, "full", "off");
  assert.equal(attempt.events_file, null);
  assert.ok(attempt.log_file, "the transcript log is still kept");
  const logs = [...Deno.readDirSync(`${pkt}/.prompt_runner/logs`)].map((e) => e.name);
  assert.equal(logs.filter((n) => n.endsWith(".events.jsonl")).length, 0, logs.join(", "));
  assert.equal(logs.filter((n) => n.endsWith(".log")).length, 1);
});

Deno.test("--events-mode full overrides a compact manifest; an unknown mode is a usage error", async () => {
  await using dir = await tempDir();
  const { pkt, attempt } = await runWith(`${dir.path}/a`, "compact", "full");
  const first = JSON.parse((await Deno.readTextFile(`${pkt}/.prompt_runner/${attempt.events_file}`)).split("\n")[0]!);
  assert.equal(first.type, "run_started");
  assert.equal(first.seq > 0, true);
  const bad = await runCli(["run", pkt, "--events-mode", "loud"]);
  assert.equal(bad.code, 2, bad.stderr);
});
