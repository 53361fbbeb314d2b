/**
 * src/util/path.ts gives exactly `node:path`'s POSIX results (the code switched from `node:path` to it for start-up
 * time, so every caller must see the same strings), on generated paths made of the segments that matter:
 * empty, `.`, `..`, repeated and trailing slashes.
 */
import assert from "node:assert/strict";
import * as node from "node:path";
import { existsSync as nodeExistsSync } from "node:fs";
import { Buffer } from "node:buffer";
import fc from "fast-check";
import {
  basename,
  dirname,
  existsSync,
  isAbsolute,
  join,
  normalize,
  relative,
  resolve,
  sep,
} from "../../src/util/path.ts";
import { includesBytes } from "../../src/contract/clauses/text.ts";
import { tempDir } from "../support/fs.ts";

const segment = fc.constantFrom("", ".", "..", "a", "b", "c.txt", "..a", ".git", "é", " x");
const path = fc.array(segment, { maxLength: 7 }).map((segs) => segs.join("/"));
const RUNS = { numRuns: 2000 };

Deno.test("normalize, isAbsolute, dirname and basename agree with node:path", () => {
  fc.assert(
    fc.property(path, (p) => {
      assert.equal(normalize(p), node.posix.normalize(p), `normalize(${JSON.stringify(p)})`);
      assert.equal(isAbsolute(p), node.posix.isAbsolute(p), `isAbsolute(${JSON.stringify(p)})`);
      assert.equal(dirname(p), node.posix.dirname(p), `dirname(${JSON.stringify(p)})`);
      assert.equal(basename(p), node.posix.basename(p), `basename(${JSON.stringify(p)})`);
    }),
    RUNS,
  );
  assert.equal(sep, node.posix.sep);
});

Deno.test("join, resolve and relative agree with node:path", () => {
  fc.assert(
    fc.property(fc.array(path, { maxLength: 4 }), path, path, (parts, a, b) => {
      assert.equal(join(...parts), node.posix.join(...parts), `join(${JSON.stringify(parts)})`);
      assert.equal(resolve(...parts), node.posix.resolve(...parts), `resolve(${JSON.stringify(parts)})`);
      assert.equal(relative(a, b), node.posix.relative(a, b), `relative(${JSON.stringify(a)}, ${JSON.stringify(b)})`);
    }),
    RUNS,
  );
});

Deno.test("existsSync is true for a file and a directory, false for a missing path, like node:fs", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/f`, "x");
  for (const p of [dir.path, `${dir.path}/f`, `${dir.path}/missing`, `${dir.path}/f/under-a-file`]) {
    assert.equal(existsSync(p), nodeExistsSync(p), p);
  }
});

Deno.test("includesBytes finds a byte sequence exactly where a Buffer search does", () => {
  const bytes = fc.uint8Array({ min: 0, max: 3, maxLength: 30 });
  fc.assert(
    fc.property(bytes, bytes.filter((n) => n.length > 0), (hay, needle) => {
      const expected = Buffer.from(hay).indexOf(Buffer.from(needle)) >= 0;
      assert.equal(includesBytes(hay, needle), expected);
    }),
    RUNS,
  );
  const enc = new TextEncoder();
  assert.ok(includesBytes(enc.encode("step 07 done"), enc.encode("step 07")));
  assert.ok(!includesBytes(enc.encode("step 0"), enc.encode("step 07")));
});
