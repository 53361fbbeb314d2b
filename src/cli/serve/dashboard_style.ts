/** The dashboard's stylesheet (docs/dashboard.md): plain CSS, inlined into the page, allowed by its CSP hash. */
export const DASHBOARD_STYLE = String.raw`
:root { color-scheme: light dark; --bg: #fff; --fg: #1d1f24; --muted: #6b7280; --line: #d8dbe0; --panel: #f6f7f9;
  --ok: #1a7f37; --bad: #cf222e; --warn: #9a6700; --run: #0969da; --mono: ui-monospace, SFMono-Regular, Menlo, monospace; }
@media (prefers-color-scheme: dark) { :root { --bg: #0d1117; --fg: #e6edf3; --muted: #8b949e; --line: #30363d;
  --panel: #161b22; --ok: #3fb950; --bad: #f85149; --warn: #d29922; --run: #58a6ff; } }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.4 system-ui, sans-serif; background: var(--bg); color: var(--fg); }
header { display: flex; gap: 12px; align-items: center; padding: 8px 14px; border-bottom: 1px solid var(--line); }
header h1 { font-size: 16px; margin: 0; flex: 1; }
#who { font-size: 12px; color: var(--muted); }
#conn { font-size: 12px; padding: 2px 8px; border-radius: 10px; border: 1px solid var(--line); }
#conn.live { color: var(--ok); } #conn.reconnecting { color: var(--warn); } #conn.ended { color: var(--muted); }
#layout { display: grid; grid-template-columns: 240px 1fr; min-height: calc(100vh - 45px); }
aside { border-right: 1px solid var(--line); padding: 10px; background: var(--panel); }
aside ul { list-style: none; margin: 0; padding: 0; }
aside li { padding: 6px 8px; border-radius: 6px; cursor: pointer; display: flex; justify-content: space-between; gap: 6px; }
aside li.selected { background: var(--bg); outline: 1px solid var(--line); }
.badge { font-size: 11px; padding: 1px 7px; border-radius: 9px; border: 1px solid currentColor; white-space: nowrap; }
.s-running { color: var(--run); } .s-completed { color: var(--ok); } .s-failed, .s-abandoned { color: var(--bad); }
.s-idle, .s-none, .s-unknown { color: var(--muted); }
main { padding: 10px 14px; display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 12px; align-content: start; }
section { border: 1px solid var(--line); border-radius: 8px; padding: 8px 10px; background: var(--bg); min-width: 0; }
section h2, aside h2 { font-size: 13px; margin: 0 0 6px; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
#snapshot { grid-column: 1 / -1; display: flex; flex-wrap: wrap; gap: 18px; }
#snapshot .fact b { display: block; font-size: 11px; color: var(--muted); font-weight: normal; }
#events-panel { grid-row: span 4; }
#events { font-family: var(--mono); font-size: 12.5px; height: 70vh; overflow: auto; }
.ev { padding: 1px 0; white-space: pre-wrap; word-break: break-word; }
.ev-prompt { margin-top: 8px; font-weight: bold; border-top: 1px dashed var(--line); padding-top: 6px; }
.ev-thinking { color: var(--muted); font-style: italic; }
#events.no-thinking .ev-thinking { display: none; }
.ev-hidden { display: none; }
.ev-tool .state { color: var(--run); } .ev-tool.done .state { color: var(--ok); } .ev-tool.failed .state { color: var(--bad); }
.ev-note { color: var(--muted); } .ev-bad { color: var(--bad); } .ev-good { color: var(--ok); }
details pre, pre.diff { margin: 2px 0 2px 18px; padding: 4px 6px; background: var(--panel); border-radius: 4px; overflow: auto; max-height: 320px; }
.diff-label { color: var(--warn); margin-left: 18px; font-style: italic; }
.d-add { color: var(--ok); } .d-del { color: var(--bad); }
form { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; margin: 4px 0; }
textarea { width: 100%; min-height: 56px; font: inherit; }
input[type=text], input[type=password], select, textarea { background: var(--panel); color: var(--fg); border: 1px solid var(--line); border-radius: 5px; padding: 4px 6px; }
button { background: var(--panel); color: var(--fg); border: 1px solid var(--line); border-radius: 5px; padding: 4px 10px; cursor: pointer; }
.result { font-size: 12px; margin-top: 4px; min-height: 1em; } .result.error { color: var(--bad); } .result.ok { color: var(--ok); }
table { border-collapse: collapse; width: 100%; font-size: 12px; }
td, th { text-align: left; padding: 2px 4px; border-bottom: 1px solid var(--line); vertical-align: top; }
.o-applied, .o-accepted, .o-delivered { color: var(--ok); } .o-rejected, .o-refused { color: var(--bad); }
#log-panel { max-height: 320px; overflow: auto; }
svg text { fill: var(--fg); font-size: 10px; }
.m-run { fill: var(--run); } .m-pass { fill: var(--ok); } .m-fail { fill: var(--bad); } .m-other { fill: var(--warn); }
#token-gate { padding: 40px; max-width: 520px; }
.hidden { display: none !important; }
`;
