import assert from "node:assert/strict";
import { runCli } from "../support/cli.ts";
import { git, tempDir } from "../support/fs.ts";
import { createScratchRepo } from "../../examples/setup.ts";
import { commitCount, history, readPrompts } from "./support.ts";

const FIXTURE = new URL("../fixtures/sdk_recovery/", import.meta.url).pathname;

async function copyDir(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const e of Deno.readDir(from)) {
    if (e.isDirectory) await copyDir(`${from}/${e.name}`, `${to}/${e.name}`);
    else await Deno.copyFile(`${from}/${e.name}`, `${to}/${e.name}`);
  }
}

Deno.test("SDK-style recovery fixtures load unchanged and run to the predicted histories", async () => {
  await using dir = await tempDir();
  const pkt = `${dir.path}/sdk_recovery`;
  await copyDir(FIXTURE, pkt);
  await createScratchRepo(`${pkt}/workspace`);
  const r = await runCli(["run", pkt, "--keep-going"]);
  assert.equal(r.code, 1, "prompt 04 fails by design");
  const prompts = await readPrompts(pkt);
  assert.deepEqual(history(prompts["01"]), ["run:failed", "retry:completed"]);
  assert.deepEqual(history(prompts["02"]), ["run:verification_failed", "repair:completed"]);
  assert.deepEqual(history(prompts["03"]), ["run:completed"]);
  assert.deepEqual(prompts["03"]!.attempts[0]!.streams.map((s) => s.kind), ["initial", "resume"]);
  assert.deepEqual(history(prompts["04"]), ["run:failed"], "the explicit map forbids retry and repair");
  assert.equal(prompts["04"]?.result?.failure_class, "provider_capacity");
  assert.deepEqual(history(prompts["05"]), ["run:completed"]);
  assert.equal(await commitCount(`${pkt}/workspace`), 1 + 4);
  const subjects = (await git(`${pkt}/workspace`, "log", "--format=%s")).split("\n");
  assert.ok(subjects.includes("feat: add mission.txt from the mission section"), subjects.join("\n"));
  assert.match(r.stderr, /1 selected prompt\(s\) failed; all others were attempted:\n {2}04: /);
});
