/**
 * The CI side of a run's output (src/run/ci.ts): groups opened and closed at prompt changes, steers as `::notice::`
 * lines, the end of the run's annotations (paths relative to the checkout) and amendment notices, and the workflow
 * command escaping (src/render/ci_commands.ts).
 */
import assert from "node:assert/strict";
import { CiLog, stepSummaryMarkdown } from "../../src/run/ci.ts";
import type { Envelope } from "../../src/events/mod.ts";
import { ghData, ghError, ghProperty, runAnnotations } from "../../src/render/ci_commands.ts";
import { mixedSummary } from "../render/_ci_summaries.ts";

function sink() {
  const lines: string[] = [];
  return { lines, out: { write: (t: string) => void lines.push(...t.split("\n").slice(0, -1)), isTerminal: false } };
}

const BASE = {
  seq: 1,
  at: "2026-12-01T10:00:00.000Z",
  run_id: "r",
  prompt_id: "01",
  attempt: 1,
  stream: null,
  provider: null,
  session_id: null,
  timestamp: null,
};

const PROMPTS = new Map([["01", { name: "One", cwd: "/w/repo" }], ["03", { name: "Three", cwd: "/w/repo" }]]);

Deno.test("CiLog (GitHub): a group per prompt, steers as notices, the stream's open line ended first", () => {
  const { lines, out } = sink();
  let breaks = 0;
  const log = new CiLog({ kind: "github", stepSummary: null, workspace: "/w" }, out, PROMPTS);
  log.attach(() => breaks++);
  log.patch({ prompt_id: "01", stage: "session" });
  log.patch({ prompt_id: "01", attempt: 2 }); // same prompt: no new group
  log.event({
    ...BASE,
    type: "steer_accepted",
    data: { request: "req-1", author: "ana", text_chars: 12, pending: 1 },
  } as Envelope);
  log.event({
    ...BASE,
    type: "steer_delivered",
    data: { request: "req-1", author: "ana", delivery: "interrupt_and_resume", count: 1 },
  } as Envelope);
  log.patch({ prompt_id: "03", prompt_name: "Three" });
  log.end();
  log.end(); // idempotent
  assert.deepEqual(lines, [
    "::group::01 One",
    "::notice title=steer accepted::prompt 01: steer req-1 from ana accepted",
    "::notice title=steered::prompt 01: steer req-1 from ana delivered (interrupt and resume)",
    "::endgroup::",
    "::group::03 Three",
    "::endgroup::",
  ]);
  assert.equal(breaks, lines.length);
});

Deno.test("CiLog (GitHub): at the end, annotations point at files relative to the checkout; amendments are notices", async () => {
  const { lines, out } = sink();
  const log = new CiLog({ kind: "github", stepSummary: null, workspace: "/w" }, out, PROMPTS);
  assert.deepEqual(await log.finish(mixedSummary()), []);
  const title = "title=prompt 03 Write the guide | docs%3A verification failed";
  assert.ok(
    lines.includes(`::error file=repo/docs/<guide>.md,${title}::files_exist docs/<guide>.md: missing`),
    lines.join("\n"),
  );
  assert.ok(lines.includes(
    `::error ${title}::commands deno test: exit 1 (expected 0)%0AFAILED | 3 passed | 1 failed%0Aerror: Test failed & stopped`,
  ));
  assert.ok(lines.includes("::error title=prompt 04 Agent gives up%3A failed::blocked: the API key is missing"));
  assert.ok(lines.includes(
    "::notice title=contract amended::prompt 03 Write the guide | docs ran under 1 contract amendment (prompt_runner control log)",
  ));
  assert.ok(!lines.some((l) => l.includes("Depends on 03") || l.includes("Never reached")), "skips are not errors");
});

Deno.test("CiLog (generic CI): nothing but the stream", async () => {
  const { lines, out } = sink();
  const log = new CiLog({ kind: "generic", stepSummary: null, workspace: null }, out, PROMPTS);
  log.patch({ prompt_id: "01" });
  log.event(
    { ...BASE, type: "steer_accepted", data: { request: "r", author: "a", text_chars: 1, pending: 0 } } as Envelope,
  );
  await log.finish(mixedSummary());
  assert.deepEqual(lines, []);
});

Deno.test("workflow commands escape %, CR, LF in messages and : , in properties", () => {
  assert.equal(ghData("50% a\r\nb"), "50%25 a%0D%0Ab");
  assert.equal(ghProperty("a:b,c"), "a%3Ab%2Cc");
  assert.equal(ghError("m", { file: "a,b.ts", line: 3, title: "t" }), "::error file=a%2Cb.ts,line=3,title=t::m");
  assert.equal(ghError("m"), "::error::m");
});

Deno.test("runAnnotations: a subject written path:line gives the annotation its line", () => {
  const s = mixedSummary();
  const p = s.prompts.find((q) => q.id === "03")!;
  p.history.at(-1)!.checks = [{
    id: "source_absent#1",
    clause: "source_absent",
    subject: "src/a.ts:12",
    status: "fail",
    detail: "1 forbidden source match(es)",
    tail: [],
    omitted: 0,
  }];
  const lines = runAnnotations(s, (_id, path) => `repo/${path}`).filter((l) => l.includes("source_absent"));
  assert.deepEqual(lines, [
    "::error file=repo/src/a.ts,line=12,title=prompt 03 Write the guide | docs%3A verification failed::" +
    "source_absent src/a.ts:12: 1 forbidden source match(es)",
  ]);
});

Deno.test("stepSummaryMarkdown: whole when it fits; over the bound only the prompts that did not pass; else cut", () => {
  const s = mixedSummary();
  const full = stepSummaryMarkdown(s, null);
  assert.ok(full.includes("| 01 Set up the project |"), "a small run is whole");
  const fullBytes = new TextEncoder().encode(full).length;
  const short = stepSummaryMarkdown(s, null, fullBytes - 1);
  assert.ok(!short.includes("| 01 Set up the project |"), "a passing prompt is left out");
  assert.ok(short.includes("| 03 Write the guide \\| docs |"), "a failing prompt stays");
  assert.match(short, /_2 passing prompts are left out of this table/);
  const cut = stepSummaryMarkdown(s, null, 300);
  assert.ok(new TextEncoder().encode(cut).length <= 300);
  assert.match(cut, /cut at GitHub's 1 MiB job-summary limit/);
});
