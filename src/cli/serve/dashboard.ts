/**
 * The dashboard page of `control serve` (docs/dashboard.md, docs/reference/http_api.md §1): what a GET outside
 * `/api/` answers. One self-contained page — markup, stylesheet and script are strings of this module, so the bundle
 * and the compiled binary carry it and nothing is read from disk at run time. The page holds no run data and needs no
 * token (every API call it makes carries one); the Host allow-list still applies. It loads nothing from elsewhere: its
 * Content-Security-Policy allows only its own inline script and style (by a fresh nonce) and connections to the
 * origin that served it.
 */
import { DASHBOARD_CORE_JS } from "./dashboard_core.ts";
import { DASHBOARD_STYLE } from "./dashboard_style.ts";
import { DASHBOARD_VIEWS_JS } from "./dashboard_views.ts";

/** The paths that answer the page. */
export const DASHBOARD_PATHS: readonly string[] = ["/", "/index.html"];

const VIEW_CHOICES: Record<string, readonly string[]> = {
  log_mode: ["compact", "verbose", "studio"],
  tool_output: ["none", "summary", "preview", "full"],
  thinking: ["show", "hide"],
  diff: ["none", "stat", "full"],
};

function viewSelects(): string {
  return Object.entries(VIEW_CHOICES).map(([key, values]) =>
    `<label>${key} <select id="view-${key}" name="${key}">${
      values.map((v) => `<option value="${v}">${v}</option>`).join("")
    }</select> <small>now: <span id="view-now-${key}"></span></small></label>`
  ).join("\n");
}

const FACTS: [string, string][] = [
  ["snap-status", "status"],
  ["snap-prompt", "prompt"],
  ["snap-attempt", "attempt"],
  ["snap-mode", "mode"],
  ["snap-elapsed", "elapsed"],
  ["snap-tokens", "tokens"],
  ["snap-steers", "steers left"],
];

const BODY = `
<div id="token-gate" class="hidden">
  <h2>Token</h2>
  <p>Paste the token <code>prompt_runner control serve</code> printed (or one from its tokens file). It is kept in
  this tab's session storage only.</p>
  <form id="token-form"><input id="token-input" type="password" autocomplete="off" size="40" aria-label="token">
  <button type="submit">Use token</button></form>
  <div id="token-result" class="result"></div>
</div>
<div id="app" class="hidden">
<div id="layout">
<aside><h2>Targets</h2><ul id="targets"></ul><div id="app-result" class="result"></div></aside>
<main>
  <section id="snapshot" aria-label="snapshot">${
  FACTS.map(([id, label]) => `<div class="fact"><b>${label}</b><span id="${id}">–</span></div>`).join("")
}</section>
  <section id="events-panel"><h2>Events</h2>
    <label><input id="thinking-toggle" type="checkbox" checked> show thinking</label>
    <div id="events-trimmed" class="ev-note hidden"></div>
    <div id="events" aria-live="polite"></div>
  </section>
  <section id="view-panel"><h2>View</h2>
    <form id="view-form">${viewSelects()}<button type="submit">Apply view</button></form>
    <div id="view-result" class="result"></div>
  </section>
  <section id="steer-panel"><h2>Steer</h2>
    <div id="steer-budget"></div>
    <form id="steer-form"><textarea id="steer-text" maxlength="8192" placeholder="Guidance for the live agent"></textarea>
    <button type="submit">Send steer</button></form>
    <div id="steer-result" class="result"></div>
  </section>
  <section id="timeline-panel"><h2>Attempts</h2><div id="timeline"></div></section>
  <section id="tokens-panel"><h2>Tokens per attempt</h2><div id="token-chart"></div></section>
  <section id="log-panel"><h2>Audit log</h2><table><tbody id="log"></tbody></table></section>
  <section id="contract-panel"><h2>Contract</h2>
    <form id="contract-form"><input id="contract-prompt" type="text" placeholder="prompt id" aria-label="prompt id">
    <button type="submit">Show contract</button></form>
    <div id="contract-result" class="result"></div>
    <div id="contract-view"></div>
    <form id="amend-form"><b>Amend</b>
      <input id="amend-clause" type="text" placeholder="clause (e.g. files_exist)" aria-label="amend clause">
      <textarea id="amend-entries" placeholder="entries: one per line, or JSON"></textarea>
      <input id="amend-reason" type="text" placeholder="reason (required)" aria-label="amend reason">
      <button type="submit">Amend</button></form>
    <div id="amend-result" class="result"></div>
    <form id="relax-form"><b>Relax</b>
      <input id="relax-clause" type="text" placeholder="clause" aria-label="relax clause">
      <select id="relax-operation" aria-label="relax operation"><option>drop</option><option>remove</option><option>replace</option></select>
      <textarea id="relax-entries" placeholder="entries for remove/replace: one per line, or JSON"></textarea>
      <input id="relax-reason" type="text" placeholder="reason (required)" aria-label="relax reason">
      <label><input id="relax-confirm" type="checkbox"> I confirm this weakens the contract</label>
      <button type="submit">Relax</button></form>
    <div id="relax-result" class="result"></div>
  </section>
</main>
</div>
</div>`;

/** The page with `nonce` on its inline style and scripts. */
export function dashboardHtml(nonce: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>prompt_runner dashboard</title><link rel="icon" href="data:,">
<style nonce="${nonce}">${DASHBOARD_STYLE}</style></head>
<body>
<header><h1>prompt_runner</h1><span id="who"></span><span id="conn">idle</span><button id="forget-token" type="button">Forget token</button></header>
${BODY}
<script nonce="${nonce}">${DASHBOARD_VIEWS_JS}</script>
<script nonce="${nonce}">${DASHBOARD_CORE_JS}</script>
</body></html>
`;
}

/** The Content-Security-Policy of the page: its own nonce'd inline code, connections to its origin, nothing else. */
export function dashboardCsp(nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    "connect-src 'self'",
    "img-src data:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}

function freshNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(18));
  return btoa(String.fromCharCode(...bytes));
}

/** The response for a GET (or HEAD) of `path` (not under `/api/`), or null for 404. */
export function dashboardResponse(req: Request, path: string): Response | null {
  if (!DASHBOARD_PATHS.includes(path)) return null;
  if (req.method !== "GET" && req.method !== "HEAD") return null;
  const nonce = freshNonce();
  return new Response(req.method === "HEAD" ? null : dashboardHtml(nonce), {
    status: 200,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": dashboardCsp(nonce),
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
      "x-frame-options": "DENY",
      "referrer-policy": "no-referrer",
    },
  });
}
