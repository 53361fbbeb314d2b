/**
 * Driving the dashboard of `control serve` from tests and benchmarks: Debian's `chromium` run headless by
 * `puppeteer-core` (no browser download), a `control serve` child with exactly its command's permissions, and the
 * page opened with a token entered once.
 */
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { spawnCli } from "./cli.ts";

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
