import assert from "node:assert/strict";
import { spawnRetryingBusy } from "../../src/util/spawn.ts";
import { tempDir } from "../support/fs.ts";

Deno.test("spawnRetryingBusy() waits out a script that another process still holds open for writing", async () => {
  await using dir = await tempDir();
  const script = `${dir.path}/tool.sh`;
  await Deno.writeTextFile(script, "#!/bin/sh\necho ran\n", { mode: 0o755 });
  // A second process keeps a write descriptor on the script for ~300 ms: exec fails with ETXTBSY meanwhile.
  const holder = new Deno.Command("bash", {
    args: ["-c", `exec 3>>"${script}"; echo held; sleep 0.3`],
    stdout: "piped",
  }).spawn();
  const reader = holder.stdout.getReader();
  await reader.read(); // "held": the descriptor is open now
  assert.throws(() => new Deno.Command(script, { stdout: "null" }).spawn(), /Text file busy/);
  const child = spawnRetryingBusy(script, { stdout: "piped" });
  const out = await child.output();
  assert.equal(new TextDecoder().decode(out.stdout), "ran\n");
  reader.releaseLock();
  await holder.stdout.cancel();
  await holder.status;
});

Deno.test("spawnRetryingBusy() does not retry other launch errors", () => {
  assert.throws(() => spawnRetryingBusy("/nonexistent/prompt-runner-tool", {}), Deno.errors.NotFound);
});
