/** Kill at every failpoint, resume with a plain `run`: leftovers are committed under their own prompt, never another. */
import { crashAndResume, FAILPOINT_CASES } from "./failpoint_cases.ts";

for (const point of FAILPOINT_CASES) {
  Deno.test(`killed at ${point}, plain run recovers: the killed prompt's files land in its own commit`, () =>
    crashAndResume(point, "run"));
}
