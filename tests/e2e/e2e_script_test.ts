/** scripts/e2e.ts: summary parsing and stray-process detection. */
import assert from "node:assert/strict";
import { BROWSER_ONLY_PATHS, e2eTestArgs, parseTestSummary, taggedProcesses } from "../../scripts/e2e.ts";
import { E2E_TAG_VAR } from "../support/e2e_env.ts";
import { waitFor } from "../support/wait.ts";

Deno.test("parseTestSummary() reads Deno's last summary line, colours or not", () => {
  assert.deepEqual(parseTestSummary("x\nok | 30 passed | 0 failed (59s)\n"), { passed: 30, failed: 0 });
  assert.deepEqual(
    parseTestSummary("\x1b[0m\x1b[31mFAILED\x1b[0m | 28 passed | 2 failed \x1b[0m(4m11s)\n"),
    { passed: 28, failed: 2 },
  );
  assert.deepEqual(parseTestSummary("ok | 3 passed (5 steps) | 0 failed | 2 ignored (1s)"), { passed: 3, failed: 0 });
  assert.equal(parseTestSummary("error: Module not found"), null);
});

Deno.test("taggedProcesses() finds a live process carrying the suite tag and forgets it once gone", async () => {
  const tag = `probe-${crypto.randomUUID()}`;
  const child = new Deno.Command("sleep", { args: ["30"], env: { [E2E_TAG_VAR]: tag }, stdout: "null" }).spawn();
  try {
    const found = await waitFor(async () => {
      const hits = await taggedProcesses(tag);
      return hits.length > 0 && hits;
    }, { timeoutMs: 1_000, what: "the tagged process", intervalMs: 20 }).catch(() => []);
    assert.deepEqual(found.map((p) => [p.pid, p.comm]), [[child.pid, "sleep"]]);
  } finally {
    child.kill("SIGKILL");
    await child.status;
  }
  assert.deepEqual(await taggedProcesses(tag), []);
});

Deno.test("e2eTestArgs() passes extra deno test flags before the suite's path, dropping the `--` of `deno task e2e --`", () => {
  const want = ["test", "-A", "--no-check=remote", "--filter", "codex", "tests/e2e/"];
  assert.deepEqual(e2eTestArgs(["--", "--filter", "codex"]), want);
  assert.deepEqual(e2eTestArgs(["--filter", "codex"]), want);
  assert.deepEqual(e2eTestArgs([]), ["test", "-A", "--no-check=remote", "tests/e2e/"]);
  assert.deepEqual(e2eTestArgs(["--filter", "x"], BROWSER_ONLY_PATHS), [
    "test",
    "-A",
    "--no-check=remote",
    "--filter",
    "x",
    "tests/e2e/dashboard_test.ts",
    "tests/e2e/dashboard_render_test.ts",
  ]);
  for (const path of BROWSER_ONLY_PATHS) {
    assert.ok(Deno.statSync(new URL(`../../${path}`, import.meta.url)).isFile, path);
  }
});
