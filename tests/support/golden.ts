/**
 * Golden-file assertions: `assertGolden(name, actual)` compares with `tests/golden/<name>`. With the environment
 * variable `UPDATE_GOLDEN=1` (task `golden:update`) it writes the file instead. Review golden diffs like code.
 */
import assert from "node:assert/strict";

/** Absolute path of the golden directory. */
export const GOLDEN_DIR = new URL("../golden/", import.meta.url).pathname.replace(/\/$/, "");

function updating(): boolean {
  try {
    return Deno.env.get("UPDATE_GOLDEN") === "1";
  } catch {
    return false;
  }
}

/** Assert that `actual` equals the golden file `tests/golden/<name>` (or write it under UPDATE_GOLDEN=1). */
export function assertGolden(name: string, actual: string): void {
  const path = `${GOLDEN_DIR}/${name}`;
  if (updating()) {
    Deno.mkdirSync(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    Deno.writeTextFileSync(path, actual);
    return;
  }
  let expected: string;
  try {
    expected = Deno.readTextFileSync(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) {
      throw new Error(`golden file tests/golden/${name} is missing; create it with: deno task golden:update`);
    }
    throw e;
  }
  assert.equal(actual, expected, `output differs from tests/golden/${name} (deno task golden:update rewrites it)`);
}
