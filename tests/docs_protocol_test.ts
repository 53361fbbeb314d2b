/** docs/control-protocol.md stays true for tool writers: its request example is what the runner accepts. */
import assert from "node:assert/strict";
import { ROOT } from "./support/cli.ts";
import { inspectBody } from "../src/control/request_body.ts";
import { isRequestName, REQUEST_SCHEMA, requestName } from "../src/control/request.ts";

/** The first fenced json block after a heading of docs/control-protocol.md. */
function jsonAfter(markdown: string, heading: string): string {
  const from = markdown.indexOf(heading);
  assert.ok(from >= 0, `docs/control-protocol.md has "${heading}"`);
  const m = /```json\n([\s\S]*?)```/.exec(markdown.slice(from));
  assert.ok(m, `a json example follows "${heading}"`);
  return m[1]!;
}

Deno.test("docs/control-protocol.md: the documented request body is a valid steer request", async () => {
  const doc = await Deno.readTextFile(`${ROOT}/docs/control-protocol.md`);
  const text = jsonAfter(doc, "## Writing a request");
  const body = JSON.parse(text) as Record<string, unknown>;
  assert.equal(body.schema, REQUEST_SCHEMA);
  const inspected = inspectBody(new TextEncoder().encode(JSON.stringify(body)));
  assert.equal(inspected.kind, "request");
  if (inspected.kind === "request") {
    assert.equal(inspected.command, "steer");
    assert.equal(typeof inspected.params.text, "string");
    assert.equal(inspected.runId, body.run_id);
  }
  for (const field of ["schema", "command", "params", "run_id", "author", "issued_at"]) {
    assert.ok(field in body, `the example carries ${field}`);
  }
});

Deno.test("docs/control-protocol.md: request names have the documented shape and size", async () => {
  const doc = await Deno.readTextFile(`${ROOT}/docs/control-protocol.md`);
  assert.ok(doc.includes("`<YYYYMMDDTHHMMSS.ffffffZ>-<pid>-<seq>-<4 hex>.json`"));
  const name = requestName();
  assert.ok(isRequestName(name), name);
  assert.match(name, /^\d{8}T\d{6}\.\d{6}Z-\d+-\d{6}-[0-9a-f]{4}\.json$/);
  assert.ok(name.length <= 100, "well under the 100-byte name limit the runner enforces");
});
