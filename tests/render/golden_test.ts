/** Golden files for every renderer × setting over recorded fixtures of each lane's shape. */
import assert from "node:assert/strict";
import type { View } from "../../src/events/types.ts";
import { createRenderer } from "../../src/render/mod.ts";
import { assertGolden } from "../support/golden.ts";
import { FIXTURES, loadFixture, renderAll, settings, variantName } from "./_fixtures.ts";

const MODES: View["log_mode"][] = ["compact", "verbose", "studio"];

type Variant = Partial<Omit<View, "log_mode"> & { color: boolean; tty: boolean }>;

const MATRIX: Record<string, Variant[]> = {
  claude: [
    {},
    { tool_output: "none" },
    { tool_output: "preview" },
    { tool_output: "full" },
    { diff: "none" },
    { diff: "full" },
    { thinking: "hide" },
    { color: true },
    { color: true, tty: true },
    { color: false, tty: true },
  ],
  codex: [{}, { diff: "full" }, { diff: "full", tool_output: "full" }, { thinking: "hide" }],
  cursor: [{}, { diff: "full" }, { thinking: "hide" }],
  antigravity: [{}, { diff: "full" }, { diff: "stat" }],
  simulated: [{}, { diff: "full", color: true }],
  errors: [{}, { color: true }],
  cancelled: [{}, { color: true, tty: true }],
  large: [{}, { diff: "full", tool_output: "full" }, { tool_output: "preview" }],
};

for (const fixture of FIXTURES) {
  const events = loadFixture(fixture);
  for (const variant of MATRIX[fixture] ?? [{}]) {
    for (const mode of MODES) {
      const name = `render/${fixture}/${mode}.${variantName(variant)}.txt`;
      Deno.test(`createRenderer(${mode}) renders the ${fixture} fixture (${variantName(variant)}) as ${name}`, () => {
        assertGolden(name, renderAll(events, settings({ log_mode: mode, ...variant })));
      });
    }
  }
}

Deno.test("a mid-stream renderer switch keeps earlier output and renders the rest in the new mode", () => {
  const events = loadFixture("claude");
  const cut = events.findIndex((e) => e.type === "tool_call_started" && e.data.tool_name === "Write");
  let out = "";
  const compact = createRenderer(settings({ log_mode: "compact" }));
  for (const ev of events.slice(0, cut)) out += compact.render(ev);
  const before = out;
  // The runner replaces the renderer without calling finish() (docs/reference/control-plane.md §7), ending its open line.
  out += compact.breakLine();
  const studio = createRenderer(settings({ log_mode: "studio", diff: "full" }));
  for (const ev of events.slice(cut)) out += studio.render(ev);
  out += studio.finish();
  assert.ok(out.startsWith(before), "output before the switch is kept as it was");
  const after = out.slice(before.length);
  assert.match(before, /t-Edit \+3 −1/);
  assert.match(
    after,
    /^\n {2}◐ Writing lib\/demo\/report\.ex\n {2}✓ Wrote lib\/demo\/report\.ex \(3 lines\) {2}\+3 −0\n/,
  );
  assert.doesNotMatch(after, /t-Write|---/);
  assertGolden("render/switch/compact-to-studio.txt", out);
});
