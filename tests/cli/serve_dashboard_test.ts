/**
 * The dashboard page module (src/cli/serve/dashboard.ts): served only at its paths, self-contained (no external
 * resource, scripts and style allowed by the response's nonce), and its scripts parse. The page's behaviour in a real
 * browser is tests/e2e/dashboard_test.ts.
 */
import assert from "node:assert/strict";
import { DASHBOARD_PATHS, dashboardResponse } from "../../src/cli/serve/dashboard.ts";
import { DASHBOARD_CORE_JS } from "../../src/cli/serve/dashboard_core.ts";
import { DASHBOARD_VIEWS_JS } from "../../src/cli/serve/dashboard_views.ts";

const get = (path: string, method = "GET") =>
  dashboardResponse(new Request(`http://127.0.0.1:1${path}`, { method }), path);

Deno.test("dashboard: the page answers / and /index.html, nothing else, and only GET/HEAD", async () => {
  for (const path of DASHBOARD_PATHS) {
    const res = get(path);
    assert.ok(res, path);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "text/html; charset=utf-8");
    assert.match(await res.text(), /^<!doctype html>/);
  }
  for (const path of ["/app.js", "/api", "/../etc/passwd", "/index.htm", "/favicon.ico"]) {
    assert.equal(get(path), null, path);
  }
  assert.equal(get("/", "POST"), null);
  const head = get("/", "HEAD");
  assert.equal(head?.status, 200);
  assert.equal(await head?.text(), "");
});

Deno.test("dashboard: the CSP allows only the page's own nonce'd script and style, and a fresh nonce per response", async () => {
  const a = get("/")!, b = get("/")!;
  const csp = a.headers.get("content-security-policy") ?? "";
  const nonce = /script-src 'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)?.[1];
  assert.ok(nonce, csp);
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /connect-src 'self'/);
  assert.match(csp, new RegExp(`style-src 'nonce-${nonce.replace(/[+/=]/g, "\\$&")}'`));
  assert.notEqual(b.headers.get("content-security-policy"), csp, "each response has its own nonce");
  assert.equal(a.headers.get("x-frame-options"), "DENY");
  const html = await a.text();
  const tags = [...html.matchAll(/<(script|style)\b([^>]*)>/g)];
  assert.equal(tags.length, 3, "two scripts and one style, all inline");
  for (const t of tags) assert.equal(t[2], ` nonce="${nonce}"`, `<${t[1]}> carries the nonce and no src`);
});

Deno.test("dashboard: no external resource, no inline handler or style attribute (CSP would block them)", async () => {
  const html = await get("/")!.text();
  assert.doesNotMatch(html, /\b(src|href)="(?!data:)/, "only the data: icon is referenced");
  assert.doesNotMatch(html, /https?:\/\/(?!www\.w3\.org\/2000\/svg)/, "no absolute URL but the SVG namespace");
  assert.doesNotMatch(html, /\son[a-z]+="/, "no inline event handler attribute");
  assert.doesNotMatch(html, /\sstyle="/, "no style attribute");
});

Deno.test("dashboard: both scripts parse, and the views register before the core uses them", async () => {
  for (const js of [DASHBOARD_VIEWS_JS, DASHBOARD_CORE_JS]) new Function(js); // throws SyntaxError when broken
  const html = await get("/")!.text();
  assert.ok(html.indexOf("window.PR_VIEWS = {") < html.indexOf("var R = window.PR_VIEWS;"));
  // EventSource cannot send the bearer token: the page reads SSE over fetch and resumes with Last-Event-ID itself.
  assert.match(DASHBOARD_CORE_JS, /headers\["Last-Event-ID"\] = ctl\.lastId/);
  assert.match(DASHBOARD_CORE_JS, /sessionStorage\.setItem\(TOKEN_KEY/);
});

Deno.test("dashboard: the page is code, not files — the bundle and the binary carry it (no read at run time)", async () => {
  const dir = new URL("../../src/cli/serve/", import.meta.url);
  for (const name of ["dashboard.ts", "dashboard_core.ts", "dashboard_views.ts", "dashboard_style.ts"]) {
    const text = await Deno.readTextFile(new URL(name, dir));
    assert.doesNotMatch(
      text,
      /Deno\.(read|open|stat)|import\.meta|fetch\(new URL/,
      `${name} reads nothing at run time`,
    );
    const imports = [...text.matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1]);
    for (const i of imports) {
      assert.match(i!, /^\.\/dashboard_(core|views|style)\.ts$/, `${name} imports only its parts`);
    }
  }
});
