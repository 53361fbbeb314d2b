/**
 * The browser harness of the dashboard tests (docs/dashboard.md §Tests): Debian's `chromium` driven by `puppeteer-core`
 * (no browser download), a live simulated run, and `prompt_runner control serve` in front of it. Screenshots go to
 * `test-artifacts/e2e/dashboard/` (git-ignored).
 */
import type { Page } from "puppeteer-core";
import { ROOT, spawnCli } from "../support/cli.ts";
import { chromiumPath } from "../support/browser.ts";
import { initRepo, writeFiles } from "../support/fs.ts";
import { waitFor } from "../support/wait.ts";
import { e2eRequested } from "./_harness.ts";

export { launchBrowser, openDashboard, type Server, startServer } from "../support/browser.ts";

/** Where screenshots are saved. */
export const ARTIFACTS = `${ROOT}/test-artifacts/e2e/dashboard`;

/**
 * Why the browser tests cannot run here, or null when they can (the caller prints it: never silent). Under CI a
 * missing chromium is no reason: the tests run and fail, since `.ci/run` installs it.
 */
export function browserSkipReason(): string | null {
  if (!e2eRequested()) return "dashboard browser tests run through `deno task e2e` (or set PROMPT_RUNNER_E2E=1)";
  if (chromiumPath() === null && (Deno.env.get("CI") ?? "") === "") {
    return "chromium is not installed (apt-get install chromium, or set PROMPT_RUNNER_CHROMIUM)";
  }
  return null;
}

/** Save a full-page screenshot as a test artifact; returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  await Deno.mkdir(ARTIFACTS, { recursive: true });
  const path = `${ARTIFACTS}/${name}.png`;
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** A live simulated run of a packet whose one prompt streams slowly; ended by {@link LiveRun.stop}. */
export interface LiveRun {
  packet: string;
  child: Deno.ChildProcess;
  /** Events recorded so far (the store's `control/events.jsonl`). */
  events(): Promise<Record<string, unknown>[]>;
  /** Audit log entries so far. */
  log(): Promise<Record<string, unknown>[]>;
  stop(): Promise<void>;
}

function lines(text: string): Record<string, unknown>[] {
  return text.split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as Record<string, unknown>);
}

/**
 * Start `prompt_runner run` on a packet in `root` whose prompt `01` thinks, edits a file, reports usage, then streams
 * `messages` messages `delayMs` apart (so it stays live for the test); a steer resumes it with messages of its own.
 */
export async function startSlowRun(root: string, messages = 1200, delayMs = 150): Promise<LiveRun> {
  const packet = `${root}/dash`;
  await initRepo(`${packet}/app`, { "README.md": "# scratch\n", "notes.txt": "alpha\nbeta\n" });
  const many = JSON.stringify(Array.from({ length: messages }, (_, i) => `working ${i}`));
  const steered = JSON.stringify(Array.from({ length: messages }, (_, i) => `steered ${i}`));
  await writeFiles(packet, {
    "prompt_runner_packet.md":
      "---\nname: dash\nprofile: simulated-default\nrepos:\n  app: {path: app, default: true}\n---\n",
    "prompts/01_dash.prompt.md": [
      "---",
      "name: Dashboard demo",
      "verify:",
      "  files_exist: [done.txt]",
      "simulate:",
      "  attempts:",
      `    - delay_ms: ${delayMs}`,
      "      events:",
      '        - {thinking: "Planning the edit of notes.txt."}',
      '        - {message: "Editing notes.txt now."}',
      '        - {tool: {name: Edit, input: {file_path: notes.txt, old_string: beta, new_string: BETA}, output: "edited notes.txt"}}',
      "        - {usage: {input_tokens: 1200, output_tokens: 340}}",
      ...JSON.parse(many).map((m: string) => `        - {message: "${m}"}`),
      "        - {write: {path: done.txt, text: ok}}",
      "  steer:",
      `    delay_ms: ${delayMs}`,
      `    messages: ${steered}`,
      "    writes: [{path: done.txt, text: ok}]",
      "---",
      "# Dashboard demo",
      "",
    ].join("\n"),
  });
  const child = spawnCli(["run", packet]);
  const store = `${packet}/.prompt_runner`;
  const readLines = async (path: string) => lines(await Deno.readTextFile(path).catch(() => ""));
  const run: LiveRun = {
    packet,
    child,
    events: () => readLines(`${store}/control/events.jsonl`),
    log: () => readLines(`${store}/control/log.jsonl`),
    async stop() {
      try {
        child.kill("SIGTERM");
      } catch { /* already ended */ }
      await child.output().catch(() => undefined);
    },
  };
  await waitFor(async () => (await run.events()).some((e) => e.type === "token_usage_updated"), {
    what: "the run's first tool call and token usage",
    timeoutMs: 60_000,
  });
  return run;
}

/** Every seq the page's event list shows, ascending (a line may carry several: a streamed message, a tool call). */
export async function renderedSeqs(page: Page): Promise<number[]> {
  const attrs = await page.$$eval("#events [data-seq]", (els) => els.map((e) => e.getAttribute("data-seq") ?? ""));
  return attrs.flatMap((a) => a.split(" ").filter(Boolean).map(Number)).sort((a, b) => a - b);
}

/** Page waits: generous, the machine may be loaded. */
const PAGE_WAIT_MS = 60_000;

/** The text of the first element matching `sel`, or null when there is none. */
export async function textOf(page: Page, sel: string): Promise<string | null> {
  return await page.$eval(sel, (e) => e.textContent ?? "").catch(() => null);
}

/** Wait until the text of `sel` equals `want` (a string) or matches it (a RegExp); returns the text. */
export async function waitText(page: Page, sel: string, want: string | RegExp): Promise<string> {
  let last: string | null = null;
  try {
    const hit = await waitFor(async () => {
      const t = last = await textOf(page, sel);
      return t !== null && (typeof want === "string" ? t === want : want.test(t)) ? { t } : null;
    }, { what: `${sel} to read ${want}`, timeoutMs: PAGE_WAIT_MS, intervalMs: 100 });
    return hit.t;
  } catch (e) {
    // What the page showed when the wait gave up, kept with the other artifacts.
    const shot = await screenshot(page, `timeout_${sel.replace(/\W+/g, "_")}`).catch(() => null);
    throw new Error(`${(e as Error).message}; it reads ${JSON.stringify(last)}${shot ? `; page: ${shot}` : ""}`);
  }
}

/**
 * Click `sel` the way its own handlers see a click: dispatched on the element in the page. A mouse click at the
 * element's coordinates (`page.click`) lands elsewhere when the layout moves between the two — the event list above the
 * contract panel grows while a loaded machine renders a burst of events — and the click is then lost.
 */
export async function press(page: Page, sel: string): Promise<void> {
  await page.waitForSelector(sel, { timeout: PAGE_WAIT_MS });
  await page.$eval(sel, (e) => (e as unknown as { click(): void }).click());
}

/** An attribute of the page's body (the page publishes its connection state, last seq, prompt, status there). */
export async function bodyAttr(page: Page, name: string): Promise<string | null> {
  return await page.$eval("body", (b, n) => b.getAttribute(n), name);
}

/** Wait until the body attribute `name` satisfies `ok`; returns its value. */
export async function waitAttr(page: Page, name: string, ok: (v: string) => boolean, what: string): Promise<string> {
  const hit = await waitFor(async () => {
    const v = await bodyAttr(page, name);
    return v !== null && ok(v) ? { v } : null;
  }, { what, timeoutMs: PAGE_WAIT_MS, intervalMs: 100 });
  return hit.v;
}
