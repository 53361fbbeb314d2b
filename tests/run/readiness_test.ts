import assert from "node:assert/strict";
import { checkRepo, readinessReport } from "../../src/run/readiness.ts";
import { loadPacket } from "../../src/packet/load.ts";
import { tempDir } from "../support/fs.ts";
import { promptText, writePacket } from "../packet/_packet.ts";

Deno.test("checkRepo() reports git_unavailable when git cannot run", async () => {
  await using t = await tempDir();
  const c = await checkRepo({ name: "app", path: t.path, default: true }, () => Promise.resolve(null));
  assert.deepEqual([c.exists, c.directory, c.git, c.ready, c.errors], [true, true, false, false, ["git_unavailable"]]);
});

Deno.test("readinessReport() turns an unavailable or throwing lane into a readiness error", async () => {
  await using t = await tempDir();
  await writePacket(t.path, "name: r\nprovider: codex\n", { "01_a.prompt.md": promptText("") });
  const packet = await loadPacket(t.path, { env: {} });
  const git = () => Promise.resolve(true);
  const down = await readinessReport(packet, {
    git,
    probe: (name) =>
      Promise.resolve({
        name,
        executable: "codex",
        path: null,
        version: null,
        available: false,
        error: "codex not found on PATH",
      }),
  }, { doctor: false });
  assert.equal(down.runtime_ready, false);
  assert.deepEqual(down.readiness_errors, [{
    kind: "lane_unavailable",
    repo: null,
    message: "lane codex is not available: codex not found on PATH",
  }]);
  assert.deepEqual(down.authoring_warnings, []);
  const thrown = await readinessReport(packet, { git, probe: () => Promise.reject(new Error("boom")) }, {
    doctor: true,
  });
  assert.equal(thrown.lane.available, false);
  assert.equal(thrown.readiness_errors[0]?.message, "lane codex is not available: boom");
  assert.deepEqual(thrown.authoring_warnings.map((w) => w.kind), ["prompt_no_targets", "prompt_empty_verify"]);
});
