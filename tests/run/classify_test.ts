import assert from "node:assert/strict";
import {
  CLASS_TABLE,
  classifyFailure,
  classifyMessage,
  classifyStreamEnd,
  okEnvelope,
} from "../../src/run/classify.ts";
import { FAILURE_CLASS_NAMES } from "../../src/packet/recovery.ts";

const base = { code: "", message: "", hintClass: null, recovery: null, stderrTail: "" };

Deno.test("classifyFailure() puts local gates first: launch_failed wins over any recovery map", () => {
  const e = classifyFailure({ ...base, launchFailed: true, recovery: { class: "provider_capacity" } });
  assert.equal(e.class, "launch_failed");
  assert.equal(e.local_deterministic, true);
  assert.equal(e.retryable, false);
});

Deno.test("classifyFailure() applies an explicit recovery map over the class defaults", () => {
  const e = classifyFailure({
    ...base,
    message: "429 too many requests",
    recovery: { class: "protocol_error", "resumeable?": "0", suggested_max_attempts: 2 },
  });
  assert.equal(e.class, "protocol_error");
  assert.equal(e.resumeable, false);
  assert.equal(e.retryable, true);
  assert.equal(e.suggested_max_attempts, 2);
});

Deno.test("classifyFailure() uses the lane hint and HTTP status before message heuristics", () => {
  assert.equal(
    classifyFailure({ ...base, message: "rate limit", hintClass: "provider_auth_claim" }).class,
    "provider_auth_claim",
  );
  assert.equal(classifyFailure({ ...base, message: "whatever", status: 429 }).class, "provider_rate_limit");
  assert.equal(classifyFailure({ ...base, message: "capacity", status: 404 }).class, "provider_config_claim");
  assert.equal(classifyFailure({ ...base, code: "transport_exit", message: "x" }).class, "transport_disconnect");
  assert.equal(classifyFailure({ ...base, code: "http_529", message: "x" }).class, "provider_capacity");
});

Deno.test("classifyMessage() follows the table order; 'temporarily unavailable' is capacity", () => {
  assert.equal(classifyMessage("Service temporarily unavailable"), "provider_capacity");
  assert.equal(classifyMessage("model not available"), "provider_config_claim");
  assert.equal(classifyMessage("Too Many Requests"), "provider_rate_limit");
  assert.equal(classifyMessage("invalid API key"), "provider_auth_claim");
  assert.equal(classifyMessage("connection reset by peer"), "transport_disconnect");
  assert.equal(classifyMessage("request timeout"), "transport_timeout");
  assert.equal(classifyMessage("protocol error"), "protocol_error");
  assert.equal(classifyMessage("blocked by policy"), "guardrail_blocked");
  assert.equal(classifyMessage("something odd"), "unknown");
});

Deno.test("classifyFailure() fills the table's flags and suggested delays", () => {
  const cap = classifyFailure({ ...base, message: "overloaded" });
  assert.equal(cap.suggested_delay_ms, 2000);
  assert.equal(cap.remote_claim, true);
  const timeout = classifyFailure({ ...base, message: "idle timeout" });
  assert.equal(timeout.resumeable, true);
  assert.equal(timeout.suggested_delay_ms, null);
  const unknown = classifyFailure({ ...base, message: "??" });
  assert.equal(unknown.retryable, true);
  assert.equal(unknown.resumeable, false);
});

Deno.test("classifyStreamEnd() returns null for ok and cancelled ends; okEnvelope() has every flag false", () => {
  assert.equal(classifyStreamEnd({ kind: "ok" }), null);
  assert.equal(classifyStreamEnd({ kind: "cancelled", reason: "operator_stop", interrupted: true }), null);
  const ok = okEnvelope();
  assert.equal(ok.class, "ok");
  assert.ok(!ok.retryable && !ok.repairable && !ok.resumeable && !ok.local_deterministic && !ok.remote_claim);
});

Deno.test("the class_attempts keys a packet may set are exactly the classes the classifier gives", () => {
  assert.deepEqual([...FAILURE_CLASS_NAMES].sort(), Object.keys(CLASS_TABLE).sort());
});
