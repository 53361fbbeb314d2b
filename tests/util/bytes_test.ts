/** concatBytes (src/util/bytes.ts): the pieces end to end in a new array, with or without their total given. */
import assert from "node:assert/strict";
import { concatBytes } from "../../src/util/bytes.ts";

Deno.test("concatBytes: pieces end to end in a new array; the total may be given or summed; none gives empty", () => {
  const a = new Uint8Array([1, 2, 3]), b = new Uint8Array([]), c = new Uint8Array([4, 5]);
  assert.deepEqual([...concatBytes([a, b, c])], [1, 2, 3, 4, 5]);
  const given = concatBytes([a, c], 5);
  assert.deepEqual([...given], [1, 2, 3, 4, 5]);
  assert.notEqual(given.buffer, a.buffer);
  a[0] = 9;
  assert.equal(given[0], 1, "a copy, not a view");
  assert.equal(concatBytes([]).length, 0);
});
