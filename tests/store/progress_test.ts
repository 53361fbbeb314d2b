import assert from "node:assert/strict";
import { parseProgress, parseProgressLenient, parseProgressLine, readProgress } from "../../src/store/progress.ts";
import { appendProgress } from "../../src/store/progress_append.ts";
import { RunFailedError } from "../../src/errors.ts";
import { tempDir } from "../support/fs.ts";

Deno.test("readProgress() returns an empty map when progress.log is missing", async () => {
  await using t = await tempDir();
  assert.equal((await readProgress(t.path)).size, 0);
});

Deno.test("readProgress() keeps the latest line per id and parses every suffix form", async () => {
  await using t = await tempDir();
  await Deno.writeTextFile(
    `${t.path}/progress.log`,
    [
      "01:failed:2026-11-30T12:05:03.407Z",
      "01:completed:2026-11-30T12:05:04.019Z:9f3c2a17d4e5b6a7c8d9e0f1a2b3c4d5e6f7a8b9",
      "",
      "2:completed:2026-11-30T12:05:30.112Z:app=4e1d00a,lib=77a0aa1",
      "03:completed:2026-11-30T12:05:31.500Z:no_session",
      "04:completed:2026-11-30T12:05:31+02:00",
      "",
    ].join("\n"),
  );
  const m = await readProgress(t.path);
  assert.deepEqual([...m.keys()], ["01", "02", "03", "04"]);
  assert.deepEqual(m.get("01"), {
    status: "completed",
    at: "2026-11-30T12:05:04.019Z",
    suffix: "9f3c2a17d4e5b6a7c8d9e0f1a2b3c4d5e6f7a8b9",
  });
  assert.equal(m.get("02")?.suffix, "app=4e1d00a,lib=77a0aa1");
  assert.equal(m.get("03")?.suffix, "no_session");
  assert.deepEqual(m.get("04"), { status: "completed", at: "2026-11-30T12:05:31+02:00", suffix: null });
});

Deno.test("readProgress() refuses an empty progress file", async () => {
  await using t = await tempDir();
  await Deno.writeTextFile(`${t.path}/progress.log`, "\n\n");
  await assert.rejects(
    () => readProgress(t.path),
    (e: unknown) => e instanceof RunFailedError && e.code === "progress_store_invalid" && /is empty/.test(e.message),
  );
});

Deno.test("readProgress() names the line number of a malformed line", async () => {
  await using t = await tempDir();
  await Deno.writeTextFile(`${t.path}/progress.log`, "01:completed:2026-11-30T12:05:04.019Z\n01:done:yesterday\n");
  await assert.rejects(
    () => readProgress(t.path),
    (e: unknown) =>
      e instanceof RunFailedError && e.exit === 1 && e.code === "progress_store_invalid" &&
      e.message.includes("progress.log line 2 is malformed"),
  );
});

Deno.test("parseProgressLine() rejects bad ids, statuses and timestamps", () => {
  assert.equal(parseProgressLine("x:completed:2026-11-30T12:05:04Z"), null);
  assert.equal(parseProgressLine("01:running:2026-11-30T12:05:04Z"), null);
  assert.equal(parseProgressLine("01:completed:not-a-time"), null);
  assert.equal(parseProgressLine("01:completed"), null);
});

Deno.test("appendProgress() appends one line per call that readProgress() reads back", async () => {
  await using t = await tempDir();
  const store = `${t.path}/.prompt_runner`;
  await appendProgress(store, "03", "failed", null);
  await appendProgress(store, "03", "completed", "abcdef1234");
  const text = await Deno.readTextFile(`${store}/progress.log`);
  const lines = text.split("\n");
  assert.equal(lines.length, 3);
  assert.match(lines[0]!, /^03:failed:\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.match(lines[1]!, /^03:completed:.*Z:abcdef1234$/);
  assert.deepEqual((await readProgress(store)).get("03")?.suffix, "abcdef1234");
});

Deno.test("parseProgressLenient() reads valid lines exactly as parseProgress() does", () => {
  const text = [
    "1:failed:2026-11-30T12:05:03.407Z",
    "001:completed:2026-11-30T12:05:04.019Z:9f3c2a17d4e5b6a7c8d9e0f1a2b3c4d5e6f7a8b9",
    "2:completed:2026-11-30T12:05:30.112Z:app=4e1d00a,lib=77a0aa1\r",
    "  03:completed:2026-11-30T12:05:31+02:00  ",
    "",
  ].join("\n");
  const lenient = parseProgressLenient(text);
  assert.equal(lenient.error, null);
  assert.deepEqual([...lenient.latest], [...parseProgress(text, "progress.log")]);
  assert.deepEqual([...lenient.latest.keys()], ["01", "02", "03"]);
});

Deno.test("parseProgressLenient() skips malformed lines and reports the first one", () => {
  const r = parseProgressLenient(
    [
      "01:completed:2026-11-30T12:05:04.019Z",
      "x:completed:2026-11-30T12:05:05.000Z",
      "02:completed:2026-11-30T12:05:06Z:junk",
      "03:completed:2026-11-30T12:05:07Z",
    ].join("\n"),
  );
  assert.deepEqual([...r.latest.keys()], ["01", "03"]);
  assert.equal(r.error, "progress.log line 2 is malformed");
});

Deno.test("parseProgressLenient() reports an empty file, which the strict reader refuses", () => {
  assert.deepEqual(parseProgressLenient("\n\n"), { latest: new Map(), error: "progress.log is empty" });
});
