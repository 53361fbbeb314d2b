/** docs/rendering.md explains every marker the compact renderer prints (issue: `r+`, `r-:end` were explained nowhere). */
import assert from "node:assert/strict";
import { FIXTURES, loadFixture, renderAll, settings } from "./_fixtures.ts";

const LEGEND = Deno.readTextFileSync(new URL("../../docs/rendering.md", import.meta.url));

/** Every token head of compact mode (docs/reference/events-and-rendering.md §7.1). */
const MARKERS = ["r+", "r-:", "t+", "t-", "tr:", "tk:", ">>", "! tool", "! cancelled", "!", "~", "?", "---"];

function compactOutputs(): string[] {
  const out: string[] = [];
  for (const f of FIXTURES) {
    for (const over of [{}, { tool_output: "full", diff: "full" }] as const) {
      out.push(renderAll(loadFixture(f), settings({ log_mode: "compact", ...over })));
    }
  }
  return out;
}

Deno.test("docs/rendering.md has a legend row for every compact marker", () => {
  const rows = LEGEND.split("\n").filter((l) => l.startsWith("| `"));
  for (const m of MARKERS) {
    assert.ok(rows.some((r) => r.startsWith("| `" + m)), `docs/rendering.md has no legend row for \`${m}\``);
  }
});

Deno.test("every compact marker of the legend occurs in the rendered fixtures", () => {
  const all = compactOutputs();
  const text = all.join("\n");
  for (const m of MARKERS.filter((m) => m !== "?")) {
    assert.ok(text.includes(m === "!" ? "! " : m), `no fixture renders ${m}: the legend lists a marker that is gone`);
  }
});
