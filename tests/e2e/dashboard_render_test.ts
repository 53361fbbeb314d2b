/**
 * The dashboard's rendering in a real headless Chromium, against a scripted API (the page module served in-process,
 * canned events): the attempts timeline over run/retry/repair/resume coloured by outcome, a failed tool call with its
 * collapsible output, the path-only diff label, the run's end, and a refused token sent back to the token form. The
 * live run and the real server are tests/e2e/dashboard_test.ts.
 */
import assert from "node:assert/strict";
import { dashboardResponse } from "../../src/cli/serve/dashboard.ts";
import {
  bodyAttr,
  browserSkipReason,
  launchBrowser,
  press,
  screenshot,
  textOf,
  waitAttr,
  waitText,
} from "./_browser.ts";

const skip = browserSkipReason();
if (skip) console.error(`SKIPPED: ${skip}`);

const TOKEN = "scripted-token-0123456789";
const RUN = "20261201T120000Z-SCRIPT";

function ev(seq: number, type: string, prompt: string | null, attempt: number | null, data: unknown) {
  return { seq, at: "2026-12-01T12:00:00.000Z", run_id: RUN, origin: "runner", type, prompt_id: prompt, attempt, data };
}

const EVENTS = [
  ev(1, "run_opened", null, null, {
    packet: "demo",
    selection: ["01", "02"],
    resumed: false,
    view: { log_mode: "studio", tool_output: "preview", thinking: "show", diff: "full" },
  }),
  ev(2, "prompt_started", "01", 1, {
    prompt_name: "First",
    mode: "run",
    attempt: 1,
    provider: "simulated",
    model: null,
  }),
  ev(3, "run_started", "01", 1, { provider_session_id: "s1", model: "sim" }),
  ev(4, "tool_call_started", "01", 1, {
    tool_call_id: "t1",
    tool_name: "apply_patch",
    tool_input: { path: "lib/a.ex" },
  }),
  ev(5, "tool_call_failed", "01", 1, { tool_call_id: "t1", tool_name: "apply_patch", tool_output: "boom\nline 2" }),
  ev(6, "verification_finished", "01", 1, {
    source: "attempt",
    status: "fail",
    counts: { items: 2, passed: 1, failed: 1, faulted: 0 },
    failures: ["files_exist: lib/a.ex"],
    faults: [],
  }),
  ev(7, "prompt_started", "01", 2, { prompt_name: "First", mode: "repair", attempt: 2, provider: "simulated" }),
  ev(8, "session_resumed", "01", 2, { reason: "transport_error", resume_number: 1 }),
  ev(9, "verification_finished", "01", 2, {
    source: "attempt",
    status: "pass",
    counts: { items: 2, passed: 2, failed: 0, faulted: 0 },
    failures: [],
    faults: [],
  }),
  ev(10, "prompt_finished", "01", 2, { status: "completed", attempts: 2, steered: false, amended: false }),
  ev(11, "prompt_started", "02", 1, { prompt_name: "Second", mode: "run", attempt: 1, provider: "simulated" }),
  ev(12, "run_failed", "02", 1, { error_code: "provider_capacity", error_message: "at capacity" }),
  ev(13, "prompt_started", "02", 2, { prompt_name: "Second", mode: "retry", attempt: 2, provider: "simulated" }),
  ev(14, "token_usage_updated", "02", 2, { input_tokens: 100, output_tokens: 50 }),
  ev(15, "prompt_finished", "02", 2, { status: "completed", attempts: 2, steered: false, amended: false }),
  ev(16, "tool_call_completed", "02", 2, { tool_call_id: "gone", tool_name: "Bash", tool_output: "ok" }),
  ev(17, "run_finished", null, null, { status: "completed", reason: null }),
];

/** A long run: more lines than the page keeps (5,000), then its end. */
const LONG = [
  ...Array.from(
    { length: 5200 },
    (_, i) => ev(i + 1, "notice", "01", 1, { level: "info", code: "n", message: `n${i + 1}` }),
  ),
  ev(5201, "run_finished", null, null, { status: "completed", reason: null }),
];

function sse(frames: string[]): Response {
  return new Response(frames.join(""), { headers: { "content-type": "text/event-stream" } });
}

/** The scripted API: the page at `/`, one completed target, its events, an empty audit log. */
function handler(req: Request): Response {
  const url = new URL(req.url);
  if (!url.pathname.startsWith("/api/")) {
    return dashboardResponse(req, url.pathname) ?? new Response("", { status: 404 });
  }
  if (req.headers.get("authorization") !== `Bearer ${TOKEN}`) {
    return Response.json({ error: { code: "unauthorized", message: "a valid bearer token is required" } }, {
      status: 401,
    });
  }
  const path = url.pathname.replace("/api/v1/", "");
  if (path === "targets") {
    return Response.json({
      targets: [{ id: "demo", status: "completed", packet_name: "demo" }, { id: "long", status: "completed" }],
    });
  }
  if (path === "targets/long/snapshot") return Response.json({ run_id: RUN, status: "completed", prompt_id: "01" });
  if (path === "targets/long/events") {
    return sse([...LONG.map((e) => `id: ${e.seq}\ndata: ${JSON.stringify(e)}\n\n`), `event: end\ndata: {}\n\n`]);
  }
  if (path === "targets/long/log/stream") return sse([`event: end\ndata: {}\n\n`]);
  if (path === "targets/demo/snapshot") {
    return Response.json({
      run_id: RUN,
      status: "completed",
      stage: "closed",
      prompt_id: "02",
      prompt_position: 2,
      selected_count: 2,
      attempt: 2,
      mode: "retry",
      elapsed_ms: 61_000,
      run_input_tokens: 100,
      run_output_tokens: 50,
      max_steers: 3,
      steer_count: 0,
      steers_pending: 0,
      view: { log_mode: "studio", tool_output: "preview", thinking: "show", diff: "full" },
    });
  }
  if (path === "targets/demo/events") {
    return sse([
      ...EVENTS.map((e) => `id: ${e.seq}\ndata: ${JSON.stringify(e)}\n\n`),
      `event: end\ndata: ${JSON.stringify({ run_id: RUN, status: "completed" })}\n\n`,
    ]);
  }
  if (path === "targets/demo/log/stream") return sse([`event: end\ndata: {"status":"completed"}\n\n`]);
  return Response.json({ error: { code: "not_found", message: path } }, { status: 404 });
}

Deno.test({
  name:
    "e2e dashboard: the page renders attempts, failures, path-only diffs and the run's end; a refused token is asked again",
  ignore: skip !== null,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const ac = new AbortController();
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, signal: ac.signal, onListen() {} }, handler);
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      await page.setViewport({ width: 1400, height: 1000 });
      await page.goto(`http://127.0.0.1:${server.addr.port}/`, { waitUntil: "load" });
      // A wrong token: the API answers 401 and the page asks again, saying why.
      await page.type("#token-input", "wrong-token-0123456789");
      await press(page, "#token-form button[type=submit]");
      await waitText(page, "#token-result", /401/);
      assert.equal(await page.evaluate("sessionStorage.length"), 0, "a refused token is not kept");
      await page.type("#token-input", TOKEN);
      await press(page, "#token-form button[type=submit]");
      await waitAttr(page, "data-run-finished", (v) => v === "completed", "the run's end");
      await waitAttr(page, "data-conn", (v) => v === "ended", "the stream to end");
      assert.equal(await page.evaluate("sessionStorage.length"), 1, "the accepted token is kept for the tab");

      const marks = await page.$$eval(
        "#timeline rect",
        (rs) =>
          rs.map((r) =>
            `${r.getAttribute("data-prompt")}:${r.getAttribute("data-mode")}:${r.getAttribute("data-outcome")}`
          ),
      );
      assert.deepEqual(marks, ["01:run:fail", "01:repair:pass", "01:resume:pass", "02:run:fail", "02:retry:pass"]);
      assert.deepEqual(
        await page.$$eval("#timeline rect", (rs) => rs.map((r) => r.getAttribute("class"))),
        ["mark m-fail", "mark m-pass", "mark m-pass", "mark m-fail", "mark m-pass"],
      );
      assert.equal(await textOf(page, "#events .ev-tool.failed .name"), "apply_patch(lib/a.ex)");
      assert.equal(await textOf(page, "#events .ev-tool.failed details summary"), "output · 2 lines");
      assert.equal(await textOf(page, "#events .diff-label"), "(current state of lib/a.ex, not this call's change)");
      assert.match(await textOf(page, '#events [data-type="verification_finished"]') ?? "", /files_exist: lib\/a\.ex/);
      assert.deepEqual(
        await page.$$eval(
          "#token-chart rect",
          (rs) => rs.map((r) => `${r.getAttribute("data-key")}=${r.getAttribute("data-tokens")}`),
        ),
        ["01#1=0", "02#2=150"],
        "one bar per attempt that opened a session or reported usage",
      );
      assert.equal(await textOf(page, "#snap-prompt"), "02 (2/2)");
      assert.equal(await textOf(page, "#snap-elapsed"), "1m 1s");
      assert.equal(await bodyAttr(page, "data-last-seq"), "17");
      // A completion whose start is not on the page stands alone, named.
      assert.equal(await textOf(page, '#events [data-seq="16"] .name'), "Bash");
      await screenshot(page, "scripted_render");

      // A long run keeps at most 5,000 lines: the oldest go, and the page says how many.
      await press(page, '#targets li[data-target="long"]');
      await waitAttr(page, "data-last-seq", (v) => v === "5201", "the long run's last event");
      assert.equal(await page.$eval("#events", (e) => e.childElementCount), 5000);
      assert.equal(await bodyAttr(page, "data-trimmed"), "201");
      assert.match(await textOf(page, "#events-trimmed") ?? "", /^201 earlier lines are no longer shown/);
      assert.equal(await textOf(page, "#events > :first-child"), "! n202");
    } finally {
      await browser.close();
      ac.abort();
      await server.finished;
    }
  },
});
