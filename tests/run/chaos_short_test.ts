/**
 * The short chaos sweep that CI runs (the full `deno task chaos 200` is too slow for it): four runs SIGKILLed at
 * seeded random instants, resumed with plain `run` and `run --remaining`, each checked against git, files,
 * progress.log, state.json and `status --json`.
 */
import assert from "node:assert/strict";
import { main } from "../../scripts/chaos.ts";

Deno.test("chaos sweep (short): 4/4 killed runs recover", async () => {
  const lines: string[] = [];
  const log = console.log;
  console.log = (...args: unknown[]) => lines.push(args.join(" "));
  let code: number;
  try {
    code = await main(["4", "--jobs", "2", "--seed", "20261201"]);
  } finally {
    console.log = log;
  }
  assert.equal(code, 0, lines.join("\n"));
  assert.equal(lines.at(-1), "4/4 recovered");
});
