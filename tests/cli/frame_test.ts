import assert from "node:assert/strict";
import { type CommandSpec, parseCommandArgs } from "../../src/cli/frame.ts";
import { UsageError } from "../../src/errors.ts";

const SPEC: CommandSpec = {
  usage: "",
  description: "",
  flags: {
    phase: { type: "string", description: "" },
    add: { type: "string", multiple: true, description: "" },
    "keep-going": { type: "boolean", description: "" },
    force: { type: "boolean", short: "f", description: "" },
  },
  run: () => Promise.resolve(0),
};

Deno.test("parseCommandArgs() reads values, inline values, repeats, shorts and -- positionals", () => {
  const r = parseCommandArgs(SPEC, [
    "pkt",
    "--phase",
    "2",
    "--add=a",
    "--add",
    "b",
    "-f",
    "--keep-going",
    "--",
    "--x",
    "y",
  ]);
  assert.deepEqual(r.flags, { phase: "2", add: ["a", "b"], force: true, "keep-going": true });
  assert.deepEqual(r.positionals, ["pkt", "--x", "y"]);
  assert.deepEqual(parseCommandArgs(SPEC, ["--phase", "-3"]).flags, { phase: "-3" });
  assert.equal(parseCommandArgs(SPEC, ["--json", "-h"]).flags.help, true);
});

Deno.test("parseCommandArgs() refuses unknown flags, missing values and values on booleans", () => {
  const code = (argv: string[]) => {
    try {
      parseCommandArgs(SPEC, argv);
    } catch (e) {
      assert.ok(e instanceof UsageError);
      return `${e.code}: ${e.message}`;
    }
    return "accepted";
  };
  assert.equal(code(["--bogus"]), 'unknown_flag: unknown flag "--bogus"');
  assert.equal(code(["-z"]), 'unknown_flag: unknown flag "-z"');
  assert.equal(code(["--phase"]), "missing_argument: --phase needs a value");
  assert.equal(code(["--phase", "--keep-going"]), "missing_argument: --phase needs a value");
  assert.equal(code(["--force=yes"]), "invalid_value: --force takes no value");
  assert.equal(code(["--color", "pink"]), 'invalid_value: --color does not take "pink"; allowed: always, auto, never');
});
