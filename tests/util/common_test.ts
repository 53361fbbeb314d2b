import assert from "node:assert/strict";
import { isRecord, jsonRecordOrNull } from "../../src/util/mod.ts";

Deno.test("jsonRecordOrNull() reads a JSON object and is null for absent, torn, non-object or array text", () => {
  assert.deepEqual(jsonRecordOrNull('{"pid": 7, "host": "h"}'), { pid: 7, host: "h" });
  assert.equal(jsonRecordOrNull(null), null);
  assert.equal(jsonRecordOrNull('{"pid": 7'), null);
  assert.equal(jsonRecordOrNull("42"), null);
  assert.equal(jsonRecordOrNull("[1, 2]"), null);
  assert.equal(jsonRecordOrNull("null"), null);
  assert.ok(isRecord(jsonRecordOrNull("{}")));
});
