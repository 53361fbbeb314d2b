/**
 * The browser harness of the dashboard tests (docs/dashboard.md §Tests): Debian's `chromium` driven by `puppeteer-core`
 * (no browser download), a live simulated run, and `prompt_runner control serve` in front of it. Screenshots go to
 * `test-artifacts/e2e/dashboard/` (git-ignored).
 */
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { ROOT, spawnCli } from "../support/cli.ts";
import { initRepo, writeFiles } from "../support/fs.ts";
import { waitFor } from "../support/wait.ts";
import { e2eRequested } from "./_harness.ts";

/** Where screenshots are saved. */
export const ARTIFACTS = `${ROOT}/test-artifacts/e2e/dashboard`;

/** The chromium binary: `PROMPT_RUNNER_CHROMIUM`, else the first of Debian's names on PATH; null when absent. */
export function chromiumPath(): string | null {
  const given = Deno.env.get("PROMPT_RUNNER_CHROMIUM");
  const candidates = given ? [given] : [];
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    if (dir) { for (const name of ["chromium", "chromium-browser"]) candidates.push(`${dir}/${name}`); }
  }
  for (const c of candidates) {
    try {
      if (Deno.statSync(c).isFile) return c;
    } catch { /* next */ }
  }
  return null;
}

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

/** Headless chromium as root: `--no-sandbox`, no GPU, /tmp instead of a small /dev/shm. */
export async function launchBrowser(): Promise<Browser> {
  const executablePath = chromiumPath();
  if (executablePath === null) throw new Error("chromium is not installed; CI must install it (.ci/run)");
  return await puppeteer.launch({
    executablePath,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--no-default-browser-check"],
  });
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
export async function startSlowRun(root: string, messages = 600, delayMs = 150): Promise<LiveRun> {
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

/** A running `control serve`: its URL, token and process. */
export interface Server {
  url: string;
  token: string;
  port: number;
  child: Deno.ChildProcess;
  stop(): Promise<void>;
}

/**
 * Start `prompt_runner control serve <packet> --json` (with `--listen`, `--tokens` when given) and read its one JSON
 * line. The server runs with exactly the permissions the command table gives it.
 */
export async function startServer(packet: string, opts: { listen?: string; tokens?: string } = {}): Promise<Server> {
  const args = ["control", "serve", packet, "--json", "--listen", opts.listen ?? "127.0.0.1:0"];
  if (opts.tokens) args.push("--tokens", opts.tokens);
  const child = spawnCli(args);
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  while (!buf.includes("\n")) {
    const r = await reader.read();
    if (r.done) {
      const err = await new Response(child.stderr).text();
      throw new Error(`control serve ended before printing its address: ${err || buf}`);
    }
    buf += r.value;
  }
  reader.releaseLock();
  // Drain the rest so the server never blocks on a full pipe.
  child.stdout.pipeTo(new WritableStream()).catch(() => {});
  child.stderr.pipeTo(new WritableStream()).catch(() => {});
  const first = JSON.parse(buf.slice(0, buf.indexOf("\n"))) as { url: string; token: string | null };
  const port = Number(new URL(first.url).port);
  return {
    url: first.url,
    token: first.token ?? "",
    port,
    child,
    async stop() {
      try {
        child.kill("SIGTERM");
      } catch { /* already ended */ }
      await child.status;
    },
  };
}

/** Open the dashboard, enter `token` once in the page's form, and wait for the first target to be selected. */
export async function openDashboard(browser: Browser, server: Server, token = server.token): Promise<Page> {
  const page = await browser.newPage();
  await page.setViewport({ width: 1400, height: 1000 });
  await page.goto(server.url, { waitUntil: "load" });
  await page.waitForSelector("#token-input", { visible: true });
  await page.type("#token-input", token);
  await page.click("#token-form button[type=submit]");
  await page.waitForSelector("body[data-target]", { timeout: 30_000 });
  return page;
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
  const hit = await waitFor(async () => {
    const t = await textOf(page, sel);
    return t !== null && (typeof want === "string" ? t === want : want.test(t)) ? { t } : null;
  }, { what: `${sel} to read ${want}`, timeoutMs: PAGE_WAIT_MS, intervalMs: 100 });
  return hit.t;
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
