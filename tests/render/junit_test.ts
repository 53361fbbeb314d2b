/**
 * The `junit` report (src/render/junit.ts) read by fast-xml-parser: every outcome of docs/ci.md's table (passes, one
 * by pre-flight; verification failure and an agent's `blocked` as `<failure>`; provider error and verifier fault as
 * `<error>`; blocked and not reached as `<skipped>`), the properties, and text no XML reader chokes on.
 */
import assert from "node:assert/strict";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { junitReport, xmlEscape } from "../../src/render/junit.ts";
import { mixedSummary, prompt, summary } from "./_ci_summaries.ts";

type Node = Record<string, unknown>;

function parse(xml: string): { suites: Node; suite: Node; cases: Node[] } {
  assert.equal(XMLValidator.validate(xml), true);
  const doc = new XMLParser({ ignoreAttributes: false, isArray: (n) => ["testcase", "property"].includes(n) })
    .parse(xml) as { testsuites: Node & { testsuite: Node } };
  const suite = doc.testsuites.testsuite;
  return { suites: doc.testsuites, suite, cases: (suite.testcase as Node[] | undefined) ?? [] };
}

function props(c: Node): Record<string, string> {
  const list = (c.properties as Node).property as Node[];
  return Object.fromEntries(list.map((p) => [String(p["@_name"]), String(p["@_value"])]));
}

Deno.test("junit: each outcome lands as docs/ci.md says, with counts on the suite", () => {
  const { suites, suite, cases } = parse(junitReport(mixedSummary()));
  assert.equal(suite["@_name"], "demo");
  for (const s of [suites, suite]) {
    assert.deepEqual([s["@_tests"], s["@_failures"], s["@_errors"], s["@_skipped"]], ["8", "2", "2", "2"]);
    assert.equal(s["@_time"], "9.000");
  }
  const kind = (c: Node) => ["failure", "error", "skipped"].find((k) => k in c) ?? "passed";
  assert.deepEqual(cases.map((c) => [c["@_name"], kind(c)]), [
    ["01 Set up the project", "passed"],
    ["02 Already done", "passed"],
    ["03 Write the guide | docs", "failure"],
    ["04 Agent gives up", "failure"],
    ["05 Provider down", "error"],
    ["06 Checker broken", "error"],
    ["07 Depends on 03", "skipped"],
    ["08 Never reached", "skipped"],
  ]);
  assert.ok(cases.every((c) => c["@_classname"] === "demo"));
  assert.equal(cases[0]!["@_time"], "2.500");
  assert.equal(props(cases[1]!).completed_by, "preflight");
  assert.equal(props(cases[0]!).steered, "true");
  assert.equal(props(cases[0]!).steer_count, "2");
  assert.equal(props(cases[2]!).amended, "true");
  assert.equal(props(cases[2]!).modes, "run → repair");
  assert.equal(props(cases[2]!).attempts, "2");
  assert.equal(props(cases[0]!).commit, `01${"a".repeat(38)}`);
  assert.equal(props(cases[0]!).run_id, "20261201T100000Z-ABCDEF");
  // The failing checks of the last verification: clause, path, expected vs found, the output tail.
  const failure = cases[2]!.failure as Node;
  assert.equal(failure["@_type"], "verification_failed");
  assert.equal(
    failure["#text"],
    "verification failed: file_exists docs/<guide>.md: missing\n" +
      "files_exist docs/<guide>.md: missing\n" +
      "commands deno test: exit 1 (expected 0)\n  … (12 earlier lines)\n  | FAILED | 3 passed | 1 failed\n" +
      "  | error: Test failed & stopped",
  );
  assert.equal((cases[3]!.failure as Node)["@_type"], "agent_blocked");
  assert.equal((cases[4]!.error as Node)["@_type"], "provider_capacity");
  assert.match(String((cases[5]!.error as Node)["#text"]), /commands nope: command not found \(fault\)/);
  assert.equal((cases[6]!.skipped as Node)["@_message"], "blocked by 03");
});

Deno.test("junit: text XML cannot carry is replaced, and markup in names stays text", () => {
  const s = summary([prompt("01", 'Quote " and <tag> & \u0007bell', { status: "failed", reason: "]]> \u0000 end" })]);
  const xml = junitReport(s);
  const { cases } = parse(xml);
  assert.equal(cases[0]!["@_name"], '01 Quote " and <tag> & \uFFFDbell', "read back as written");
  // deno-lint-ignore no-control-regex
  assert.doesNotMatch(xml, /[\u0000\u0007]/);
  assert.equal(xmlEscape("a\nb"), "a&#10;b");
});

Deno.test("junit: a run refused before any prompt is one errored testcase named run", () => {
  const s = summary([], {
    status: "aborted",
    reason: "preflight failed",
    exit_code: 1,
    run_id: null,
    duration_ms: null,
  });
  const { suite, cases } = parse(junitReport(s));
  assert.deepEqual([suite["@_tests"], suite["@_errors"]], ["1", "1"]);
  assert.equal(cases[0]!["@_name"], "run");
  assert.equal((cases[0]!.error as Node)["@_message"], "preflight failed");
});

Deno.test("junit: a run with nothing left to run is an empty suite", () => {
  const { suite, cases } = parse(junitReport(summary([])));
  assert.equal(suite["@_tests"], "0");
  assert.equal(cases.length, 0);
});
