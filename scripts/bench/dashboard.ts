/**
 * The dashboard's end of the pipe (docs/bench.md `dashboard`): an event appended by a live plane (record + the
 * boundary flush, as the runner does) → the line rendered in the page's DOM, in headless Chromium, through
 * `prompt_runner control serve` (a child process with the command's permissions) and the page's SSE reader. The page
 * stamps each rendered seq from a MutationObserver; both stamps are wall-clock milliseconds of this one machine
 * (`performance.timeOrigin + performance.now()` on each side). Skipped when chromium is not installed.
 */
import { acquireLease } from "../../src/store/lease.ts";
import { benchPlane } from "./_plane.ts";
import { storeRootForPacket } from "../../src/store/paths.ts";
import { chromiumPath, launchBrowser, openDashboard, startServer } from "../../tests/support/browser.ts";
import { BenchSkip, check, percentile, round, sized } from "./_harness.ts";

const RUN_ID = "20261201T000000Z-DASHBD";
const ctx = { prompt_id: "01", attempt: 1, stream: "initial" as const, provider: "simulated", session_id: "b" };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const now = () => performance.timeOrigin + performance.now();

/** Installed in the page: the wall-clock time each seq first appears in the event list. */
const OBSERVER = `(() => {
  window.__seenAt = {};
  const stamp = (n) => {
    if (n.nodeType !== 1) return;
    const seqs = (n.getAttribute("data-seq") || "").split(" ").filter(Boolean);
    for (const s of seqs) if (!(s in window.__seenAt)) window.__seenAt[s] = performance.timeOrigin + performance.now();
  };
  new MutationObserver((list) => {
    for (const m of list) for (const n of m.addedNodes) stamp(n);
  }).observe(document.getElementById("events"), { childList: true });
})()`;

/** Run the case. */
export async function bench(): Promise<Record<string, number | string>> {
  if (chromiumPath() === null) throw new BenchSkip("chromium is not installed (apt-get install chromium)");
  const samples = sized(60, 12);
  const dir = await Deno.makeTempDir({ prefix: "pr-bench-dashboard-" });
  const packetDir = `${dir}/pkt`;
  await Deno.mkdir(`${packetDir}/prompts`, { recursive: true });
  await Deno.writeTextFile(`${packetDir}/prompt_runner_packet.md`, "---\nname: bench\nprovider: simulated\n---\n");
  await Deno.writeTextFile(`${packetDir}/prompts/01_first.prompt.md`, "---\nname: First\n---\n# First\n");
  const storeRoot = storeRootForPacket(packetDir);
  await Deno.mkdir(storeRoot, { recursive: true, mode: 0o700 });
  const lease = await acquireLease(storeRoot, { runId: RUN_ID, packetDir, argv: [] });
  const plane = await benchPlane(storeRoot, { runId: RUN_ID, packetDir });
  plane.transition({ stage: "session", prompt_id: "01", prompt_name: "First", prompt_position: 1, attempt: 1 });
  plane.record({ type: "run_started", data: { provider_session_id: "b", model: "bench" } }, ctx);
  plane.boundary();
  const server = await startServer(packetDir);
  const browser = await launchBrowser();
  const lat: number[] = [];
  try {
    const page = await openDashboard(browser, server);
    await page.waitForFunction(`Number(document.body.getAttribute("data-last-seq")) >= 2`, { timeout: 60_000 });
    await page.evaluate(OBSERVER);
    for (let i = 0; i < samples; i++) {
      await sleep(20 + Math.random() * 40);
      const env = plane.record({ type: "notice", data: { level: "info", code: "bench", message: `n${i}` } }, ctx);
      const sentAt = now();
      plane.boundary(); // the runner flushes at every boundary
      await page.waitForFunction(`window.__seenAt[${JSON.stringify(String(env.seq))}] !== undefined`, {
        timeout: 30_000,
        polling: "mutation",
      });
      const seenAt = Number(await page.evaluate(`window.__seenAt[${JSON.stringify(String(env.seq))}]`));
      lat.push(seenAt - sentAt);
    }
    const text = String(await page.evaluate(`document.getElementById("events").textContent`));
    check(text.includes(`n${samples - 1}`), "the last notice is rendered in the page");
  } finally {
    await browser.close().catch(() => undefined);
    await server.stop();
    await plane.close("completed", null);
    await lease.release();
    await Deno.remove(dir, { recursive: true }).catch(() => undefined);
  }
  check(lat.length === samples, `the page rendered ${lat.length} of ${samples} notices`);
  check(lat.every((x) => Number.isFinite(x) && x > -5), `a latency is not plausible: ${lat.join(", ")}`);
  return {
    append_to_dom_p50_ms: round(percentile(lat, 50)),
    append_to_dom_p99_ms: round(percentile(lat, 99)),
    samples,
  };
}
