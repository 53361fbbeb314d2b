/** Kill at every failpoint, resume with `run --remaining` (appending scripts): the history must come out right. */
import { crashAndResume, FAILPOINT_CASES } from "./failpoint_cases.ts";

for (const point of FAILPOINT_CASES) {
  Deno.test(`killed at ${point}, run --remaining recovers: one commit per prompt, appends once, all agree`, () =>
    crashAndResume(point, "remaining"));
}
