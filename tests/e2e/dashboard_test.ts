/**
 * The dashboard of `control serve` in a real headless Chromium (docs/dashboard.md): against a live simulated run, the
 * page shows the live prompt and receives new events; a view change and a steer made from the page reach the run and
 * show as applied; a read-only token's steer is refused (403) and audited; after the server restarts the page
 * reconnects and resumes without gaps. Screenshots: test-artifacts/e2e/dashboard/.
 */
import assert from "node:assert/strict";
import type { Browser, Page } from "puppeteer-core";
import {
  bodyAttr,
  browserSkipReason,
  launchBrowser,
  type LiveRun,
  openDashboard,
  press,
  renderedSeqs,
  screenshot,
  type Server,
  startServer,
  startSlowRun,
  waitAttr,
  waitText,
} from "./_browser.ts";
import { tempDir } from "../support/fs.ts";
import { waitFor, type WaitOptions } from "../support/wait.ts";

const skip = browserSkipReason();
if (skip) console.error(`SKIPPED: ${skip}`);

/** Browser waits: generous, the machine may be loaded. */
const WAIT = (what: string): WaitOptions => ({ what, timeoutMs: 60_000, intervalMs: 100 });
const PAGE_WAIT = { timeout: 60_000 };

/** A tokens file with one token per role: `ada` (amend) and `rita` (read). */
async function tokensFile(dir: string): Promise<{ file: string; amend: string; read: string }> {
  const amend = `amend-${crypto.randomUUID()}`, read = `read-${crypto.randomUUID()}`;
  const file = `${dir}/tokens.json`;
  await Deno.writeTextFile(
    file,
    JSON.stringify({
      tokens: [{ name: "ada", role: "amend", token: amend }, { name: "rita", role: "read", token: read }],
    }),
  );
  return { file, amend, read };
}

interface Scene {
  run: LiveRun;
  server: Server;
  browser: Browser;
  tokens: { file: string; amend: string; read: string };
  root: string;
}

/** A live run, a server in front of it (tokens file), a browser; everything stopped afterwards, even on failure. */
function test(name: string, fn: (s: Scene) => Promise<void>): void {
  Deno.test({
    name: `e2e dashboard: ${name}`,
    ignore: skip !== null,
    sanitizeOps: false,
    sanitizeResources: false,
    fn: async () => {
      await using tmp = await tempDir("pr-dash-");
      const tokens = await tokensFile(tmp.path);
      const run = await startSlowRun(tmp.path);
      const stops: (() => Promise<unknown>)[] = [() => run.stop()];
      try {
        const server = await startServer(run.packet, { tokens: tokens.file });
        const scene: Scene = { run, server, browser: await launchBrowser(), tokens, root: tmp.path };
        stops.unshift(() => scene.browser.close(), () => scene.server.stop());
        await fn(scene);
      } finally {
        for (const stop of stops) await stop().catch(() => undefined);
      }
    },
  });
}

const text = (page: Page, sel: string) => page.$eval(sel, (e) => e.textContent ?? "");
const lastSeq = async (page: Page) => Number(await bodyAttr(page, "data-last-seq") ?? "0");
const maxSeq = async (run: LiveRun) => Math.max(0, ...(await run.events()).map((e) => Number(e.seq)));

test("the page shows the live prompt and receives new events", async ({ run, server, browser, tokens }) => {
  const page = await openDashboard(browser, server, tokens.amend);
  const outside: string[] = [];
  const errors: string[] = [];
  page.on("request", (r) => {
    if (!r.url().startsWith(server.url) && !r.url().startsWith("data:")) outside.push(r.url());
  });
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  // Where the contract form is as soon as the page has chosen its target, before the run's snapshot and events are
  // shown: none of what arrives may move it (a click aimed at it must land on it).
  const formTop = () => page.$eval("#contract-form", (f) => f.getBoundingClientRect().top);
  const topBefore = await formTop();
  await waitText(page, "#snap-prompt", "01 (1/1)");
  assert.match(await text(page, "#snap-status"), /^running/);
  assert.equal(await text(page, "#targets li .badge"), "running");
  // The studio-like rendering: the Edit call with its diff, the usage, and the attempt on the timeline and chart.
  await page.waitForSelector("#events .ev-tool.done .d-add", PAGE_WAIT);
  assert.equal(await text(page, "#events .ev-tool.done .d-add"), "+ BETA");
  assert.equal(await text(page, "#events .ev-tool.done .d-del"), "- beta");
  assert.equal(await text(page, "#events .ev-tool.done details summary"), "output · 1 line");
  assert.ok((await page.$$("#events .ev-thinking")).length >= 1, "thinking rendered");
  assert.deepEqual(
    await page.$eval("#timeline rect", (r) => [r.getAttribute("data-mode"), r.getAttribute("data-outcome")]),
    [
      "run",
      "run",
    ],
  );
  assert.equal(await page.$eval("#token-chart rect", (r) => r.getAttribute("data-tokens")), "1540");
  // New events keep arriving: the page reaches a seq the store recorded after the page had caught up.
  const seen = await lastSeq(page);
  const later = await waitFor(async () => {
    const m = await maxSeq(run);
    return m >= seen + 3 && m;
  }, WAIT("three more events in the store"));
  await waitAttr(page, "data-last-seq", (v) => Number(v) >= later, `the page to show seq ${later}`);
  assert.equal(await formTop(), topBefore, "the contract form moved while the run's snapshot and events arrived");
  // The thinking toggle hides thinking lines without dropping them.
  await press(page, "#thinking-toggle");
  assert.equal(await page.evaluate("getComputedStyle(document.querySelector('#events .ev-thinking')).display"), "none");
  await screenshot(page, "live_run");
  assert.deepEqual(outside, [], "the page loads nothing from elsewhere");
  assert.deepEqual(errors, [], "no console error (a CSP violation would be one)");
});

test("a view change and a steer made from the page reach the run and show as applied", async (s) => {
  const { run, server, browser, tokens } = s;
  const page = await openDashboard(browser, server, tokens.amend);
  // Each write the page makes carries an Idempotency-Key of its own (sent again after a failed connection, answered).
  const keys: string[] = [];
  page.on("request", (r) => {
    if (r.method() === "POST") keys.push(r.headers()["idempotency-key"] ?? "");
  });
  await waitText(page, "#snap-steers", /^\d+ of \d+$/);
  const before = await text(page, "#snap-steers");
  const [left, max] = /^(\d+) of (\d+)$/.exec(before)!.slice(1).map(Number) as [number, number];
  assert.ok(left >= 1, `a steer is left: ${before}`);
  assert.match(await text(page, "#steer-budget"), new RegExp(`^steers left: ${left} of ${max}`));

  await page.select("#view-log_mode", "verbose");
  await press(page, "#view-form button[type=submit]");
  await waitText(page, "#view-result", /^set_view .*: applied$/);
  await waitText(page, "#view-now-log_mode", "verbose");
  await page.waitForSelector('#events [data-type="view_changed"]', PAGE_WAIT);
  assert.match(await text(page, '#events [data-type="view_changed"]'), /view changed by ada: log_mode=verbose/);

  await page.type("#steer-text", "Please also write a summary.");
  await press(page, "#steer-form button[type=submit]");
  await waitText(page, "#steer-result", /^steer .*: applied$/);
  await page.waitForSelector('#events [data-type="steer_delivered"]', PAGE_WAIT);
  await waitText(page, "#snap-steers", `${left - 1} of ${max}`);
  await page.waitForSelector('#log tr[data-command="steer"][data-outcome="applied"]', PAGE_WAIT);
  await screenshot(page, "view_and_steer_applied");
  assert.equal(keys.length, 2, JSON.stringify(keys));
  assert.ok(keys.every((k) => /^[A-Za-z0-9._:-]{1,128}$/.test(k)), JSON.stringify(keys));
  assert.notEqual(keys[0], keys[1]);

  // The record: both requests went through the run's request files, authored by the token's name, and applied.
  const log = await run.log();
  const applied = (command: string) => log.find((e) => e.command === command && e.outcome === "applied");
  assert.equal(applied("set_view")?.author, "ada");
  assert.deepEqual(applied("set_view")?.params, { log_mode: "verbose" });
  assert.equal(applied("steer")?.author, "ada");
  assert.ok((await run.events()).some((e) => e.type === "steer_delivered"), "the run delivered the steer");
  // The resumed session plays the packet's steer step: its messages follow (each after its delay).
  await waitFor(
    async () =>
      (await run.events()).some((e) => e.type === "message_streamed" && /steered \d+/.test(JSON.stringify(e.data))),
    WAIT("the resumed session's first message"),
  );
});

test("a read-only token's steer is refused (403) and audited", async ({ run, server, browser, tokens }) => {
  const page = await openDashboard(browser, server, tokens.read);
  await waitText(page, "#snap-prompt", "01 (1/1)");
  await waitText(page, "#who", "rita · read");
  await page.type("#steer-text", "I may only read.");
  const response = page.waitForResponse((r) => r.url().endsWith("/steer") && r.request().method() === "POST");
  await press(page, "#steer-form button[type=submit]");
  assert.equal((await response).status(), 403);
  await waitText(page, "#steer-result", /forbidden|403|role/i);
  assert.match(await page.$eval("#steer-result", (e) => e.className), /error/);
  // The refusal is on the record like any refused request, with the token's name as author — and the page shows it.
  const refused = await waitFor(
    async () => (await run.log()).find((e) => e.command === "steer" && e.outcome === "rejected"),
    WAIT("the refusal in the audit log"),
  );
  assert.equal(refused.author, "rita");
  await page.waitForSelector('#log tr[data-command="steer"][data-outcome="rejected"]', PAGE_WAIT);
  await screenshot(page, "read_only_steer_refused");
  assert.ok(!(await run.events()).some((e) => e.type === "steer_accepted"), "no steer reached the run");
});

test("after the server restarts the page reconnects and resumes without gaps", async (s) => {
  const { run, browser, tokens } = s;
  const page = await openDashboard(browser, s.server, tokens.amend);
  await waitAttr(page, "data-last-seq", (v) => Number(v) > 10, "ten events on the page");
  const port = s.server.port;
  await s.server.stop();
  await waitAttr(page, "data-conn", (v) => v === "reconnecting", "the page to notice the server is gone");
  const shown = await lastSeq(page);
  // The run goes on while nobody serves it: these events must arrive after the restart, each once.
  await waitFor(async () => (await maxSeq(run)) >= shown + 5, WAIT("five events appended while the server was down"));
  s.server = await startServer(run.packet, { tokens: tokens.file, listen: `127.0.0.1:${port}` });
  await waitAttr(page, "data-conn", (v) => v === "live", "the page to reconnect");
  const target = await maxSeq(run);
  await waitAttr(page, "data-last-seq", (v) => Number(v) >= target, `the page to catch up to seq ${target}`);
  const seqs = await renderedSeqs(page);
  const last = seqs[seqs.length - 1]!;
  assert.deepEqual(seqs, Array.from({ length: last }, (_, i) => i + 1), "every seq from 1 once, in order, no gap");
  assert.ok(await page.$eval("#token-gate", (e) => e.classList.contains("hidden")), "the token was not asked again");
  await screenshot(page, "after_restart");
});

test("the contract panel: diff, amend and relax from the page, a reason required and relax confirmed", async (s) => {
  const { run, server, browser, tokens } = s;
  const records = async () =>
    (await Deno.readTextFile(`${run.packet}/.prompt_runner/amendments/01.jsonl`).catch(() => "")).split("\n").filter(
      (l) => l.trim() !== "",
    ).map((l) => JSON.parse(l) as Record<string, unknown>);
  const page = await openDashboard(browser, server, tokens.amend);
  await waitText(page, "#snap-prompt", "01 (1/1)");
  await press(page, "#contract-form button[type=submit]");
  await waitText(page, "#contract-view", /files_exist.*done\.txt/);

  // Amend: refused in the page without a reason (nothing recorded), recorded with one, and the diff shows it.
  await page.type("#amend-clause", "files_exist");
  await page.type("#amend-entries", "notes.txt");
  await press(page, "#amend-form button[type=submit]");
  await waitText(page, "#amend-result", "a reason is required");
  assert.deepEqual(await records(), []);
  await page.type("#amend-reason", "notes.txt is part of the work");
  await press(page, "#amend-form button[type=submit]");
  await waitText(page, "#amend-result", /^amend recorded/);
  await waitText(page, "#contract-view", /\+ files_exist.*notes\.txt/);

  // Relax: without the confirmation box nothing is sent; with it, the relaxation is recorded.
  await page.type("#relax-clause", "files_exist");
  await page.select("#relax-operation", "remove");
  await page.type("#relax-entries", "notes.txt");
  await page.type("#relax-reason", "notes.txt is optional after all");
  await press(page, "#relax-form button[type=submit]");
  await waitText(page, "#relax-result", /tick the confirmation/);
  assert.equal((await records()).length, 1, "an unconfirmed relax records nothing");
  await press(page, "#relax-confirm");
  await press(page, "#relax-form button[type=submit]");
  await waitText(page, "#relax-result", /^relax recorded/);
  await screenshot(page, "contract_amended_and_relaxed");
  const recs = await records();
  assert.deepEqual(recs.map((r) => [r.direction, r.clause, r.operation, r.author]), [
    ["add", "files_exist", "add", "ada"],
    ["relax", "files_exist", "remove", "ada"],
  ]);
  assert.deepEqual(recs.map((r) => r.reason), ["notes.txt is part of the work", "notes.txt is optional after all"]);
});
