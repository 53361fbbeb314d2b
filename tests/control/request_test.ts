import assert from "node:assert/strict";
import { tempDir } from "../support/fs.ts";
import {
  isRequestName,
  microStamp,
  REQUEST_SCHEMA,
  type RequestBody,
  requestName,
  writeRequest,
} from "../../src/control/request.ts";
import { validateView } from "../../src/control/view.ts";
import { restartWithSteerPrompt, steerAcceptance, steerResumePrompt } from "../../src/control/steer.ts";

Deno.test("requestName() names are unique, well-formed and sort in creation order", () => {
  const a = Array.from({ length: 2000 }, () => requestName());
  assert.equal(new Set(a).size, a.length);
  for (const n of a.slice(0, 5)) assert.ok(isRequestName(n), n);
  assert.deepEqual([...a].sort(), a);
  assert.match(a[0]!, new RegExp(`^\\d{8}T\\d{6}\\.\\d{6}Z-${Deno.pid}-\\d{6}-[0-9a-f]{4}\\.json$`));
});

Deno.test("microStamp() formats microseconds", () => {
  assert.equal(microStamp(Date.UTC(2026, 10, 30, 12, 7, 1, 123) * 1000 + 456), "20261130T120701.123456Z");
});

Deno.test("writeRequest() writes through .tmp into requests/ with mode 0600, only into an existing control dir", async () => {
  await using tmp = await tempDir();
  const body: RequestBody = {
    schema: REQUEST_SCHEMA,
    command: "steer",
    params: { text: "x" },
    run_id: null,
    author: "a",
    issued_at: "t",
  };
  await assert.rejects(writeRequest(`${tmp.path}/s`, body), Deno.errors.NotFound);
  assert.equal(await Deno.stat(`${tmp.path}/s`).then(() => true, () => false), false, "never creates a store");
  await Deno.mkdir(`${tmp.path}/s/control/.tmp`, { recursive: true });
  await Deno.mkdir(`${tmp.path}/s/control/requests`);
  const name = await writeRequest(`${tmp.path}/s`, body);
  const path = `${tmp.path}/s/control/requests/${name}`;
  assert.deepEqual(JSON.parse(await Deno.readTextFile(path)), body);
  assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
  assert.deepEqual([...Deno.readDirSync(`${tmp.path}/s/control/.tmp`)], []);
});

Deno.test("validateView() returns changed keys or the first error with exact reasons", () => {
  assert.deepEqual(validateView({ diff: "full", thinking: "hide" }), {
    ok: true,
    changed: { diff: "full", thinking: "hide" },
  });
  const r = validateView({ log_mode: "loud", colour: "x" });
  assert.equal(r.ok, false);
  assert.equal(!r.ok && r.reason, 'log_mode does not take "loud"; allowed: compact, studio, verbose');
  assert.equal(!r.ok && r.code, "invalid_view_value");
});

Deno.test("steerAcceptance() applies the checks in order", () => {
  const ok = { promptRunning: true, sessionLive: true, used: 0, max: 1 };
  assert.deepEqual(steerAcceptance(" hi ", ok), { ok: true, text: "hi" });
  assert.deepEqual(steerAcceptance(42, { ...ok, promptRunning: false }), { ok: false, reason: "steer has no text" });
  assert.deepEqual(steerAcceptance("x", { ...ok, promptRunning: false, sessionLive: false }), {
    ok: false,
    reason: "no prompt is running",
  });
  assert.deepEqual(steerAcceptance("x", { ...ok, used: 1 }), {
    ok: false,
    reason: "steer budget spent (1/1 for this prompt); raise recovery.max_steers to allow more",
  });
});

Deno.test("steerResumePrompt() and restartWithSteerPrompt() produce the exact docs/reference/control-plane.md §8.6 texts", () => {
  assert.equal(
    steerResumePrompt(["one", "two"]),
    "Guidance from the operator, received while you were working:\n\none\n\ntwo\n\n" +
      "Take this guidance into account and continue the same task from where you stopped. The task and its completion\n" +
      "criteria are unchanged: do not start over, and do not stop to acknowledge this message.",
  );
  assert.equal(
    restartWithSteerPrompt("Do the task.", ["a", "b"]),
    "Do the task.\n\n## Operator guidance\n\na\n\nb\n\nTake this guidance into account while you do the task above.",
  );
});
