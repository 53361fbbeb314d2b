/**
 * The process driver and the verification runner under a narrow `--allow-run=<list>`: Deno then refuses `Deno.kill`
 * and direct `/proc` reads, so signals go through `kill` and `/proc` through `cat` and `/bin/sh`.
 */
import assert from "node:assert/strict";
import { tempDir } from "../support/fs.ts";
import { DRIVER_EXECUTABLES } from "../../src/util/executables.ts";

const PROBE = new URL("../support/narrow_driver_probe.ts", import.meta.url).pathname;

function alive(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return !/^\d+ \(.*\) Z /.test(stat);
  } catch {
    return false;
  }
}

Deno.test("the driver kills a timed-out provider group and the verifier meets its deadline under a narrow --allow-run", async () => {
  await using dir = await tempDir();
  const cli = `${dir.path}/fake-cli`;
  // A tool child in the provider's group, then a provider that ignores nothing but never ends by itself.
  await Deno.writeTextFile(cli, `#!/bin/sh\nsleep 30 &\necho $! > grandchild.pid\necho started\nexec sleep 30\n`);
  await Deno.chmod(cli, 0o755);
  const allow = [cli, "sleep", ...DRIVER_EXECUTABLES].join(",");
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--no-prompt",
      "--allow-read",
      "--allow-write",
      `--allow-run=${allow}`,
      PROBE,
      cli,
      dir.path,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  const r = JSON.parse(new TextDecoder().decode(out.stdout));
  assert.equal(r.reason, "session_timeout");
  assert.equal(r.start_ticks_known, true, "/proc is read through cat");
  assert.equal(r.grandchild_alive, false, "the group was signalled through kill");
  assert.equal(r.bounded_outcome, "timeout");
  assert.ok(r.bounded_ms < 10_000, `the deadline took ${r.bounded_ms} ms`);
  const pid = Number((await Deno.readTextFile(`${dir.path}/grandchild.pid`)).trim());
  assert.equal(alive(pid), false);
});
