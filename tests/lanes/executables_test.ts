/**
 * `laneExecutables()` (src/lanes/catalog.ts) answers from lane profiles alone so `plan` never loads a lane
 * implementation; it must give exactly what each lane's own `executables()` gives, for every lane and every way an
 * executable is chosen (default binary, `cli_path` in the lane's option bag).
 */
import assert from "node:assert/strict";
import { allLanes, laneExecutables } from "../../src/lanes/mod.ts";
import type { SessionOptions } from "../../src/lanes/mod.ts";
import { testOptions } from "./_support.ts";

function optionsWith(bag: string | undefined, cliPath: string | undefined): SessionOptions {
  const provider_opts = bag && cliPath ? { [bag]: { cli_path: cliPath } } : {};
  return testOptions({ provider_opts });
}

Deno.test("laneExecutables() equals every lane's own executables(), by default and with a cli_path", () => {
  for (const lane of allLanes()) {
    const bag = lane.profile.optionKeys[0];
    for (const cliPath of [undefined, "/opt/bin/some-cli"]) {
      const options = optionsWith(bag, cliPath);
      const own = lane.executables?.(options) ?? null;
      assert.deepEqual(laneExecutables(lane.profile.name, options), own, `${lane.profile.name} cli_path=${cliPath}`);
      if (cliPath && own) assert.equal(own.executable, cliPath);
    }
  }
  assert.equal(laneExecutables("simulated", optionsWith(undefined, undefined)), null);
  assert.equal(laneExecutables("claude", optionsWith(undefined, undefined))?.executable, "claude");
});

Deno.test("laneExecutables() refuses a name no lane declares", () => {
  assert.throws(() => laneExecutables("nope", optionsWith(undefined, undefined)), /no lane is named "nope"/);
});
