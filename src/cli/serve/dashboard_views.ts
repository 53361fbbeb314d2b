/** The dashboard's views (docs/dashboard.md): the event stream rendered like the studio view, snapshot header, audit log, contract diff, the SVG timeline and token chart. */
export const DASHBOARD_VIEWS_JS = String.raw`
(function () {
  "use strict";
  var SVG = "http://www.w3.org/2000/svg";
  var MAX_LINES = 5000;
  var v = { trimmed: 0, lastSeq: 0, tools: {}, open: {}, attempts: [], byKey: {}, tokens: [], tokenByKey: {} };
  function $(id) { return document.getElementById(id); }
  function node(tag, cls, text) {
    var n = document.createElement(tag);
    if (cls) n.className = cls;
    if (text !== undefined && text !== null) n.textContent = String(text);
    return n;
  }
  function svg(tag, attrs, text) {
    var n = document.createElementNS(SVG, tag);
    Object.keys(attrs).forEach(function (k) { n.setAttribute(k, String(attrs[k])); });
    if (text !== undefined) n.textContent = String(text);
    return n;
  }
  function fmtMs(ms) {
    var s = Math.floor((ms || 0) / 1000);
    var h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60);
    return (h ? h + "h " : "") + (h || m ? m + "m " : "") + (s % 60) + "s";
  }
  function fmtNum(n) { return Number(n || 0).toLocaleString("en-US"); }
  function oneLine(value, max) {
    var s = typeof value === "string" ? value : JSON.stringify(value);
    s = (s || "").replace(/\s+/g, " ");
    return s.length > max ? s.slice(0, max - 1) + "…" : s;
  }
  function toolSummary(input) {
    if (!input || typeof input !== "object") return "";
    var keys = ["command", "file_path", "path", "pattern", "url", "query", "description"];
    for (var i = 0; i < keys.length; i++) if (typeof input[keys[i]] === "string") return oneLine(input[keys[i]], 100);
    return oneLine(input, 100);
  }
  function linesOf(s) { return String(s || "").replace(/\n$/, "").split("\n"); }
  // The change a tool call carries, as studio shows it (docs/reference/events-and-rendering.md §8).
  var PATH_ONLY = ["file_change", "replace_file_content", "multi_replace_file_content", "edit", "write", "search_replace", "apply_patch", "delete_file"];
  function changeOf(name, input) {
    input = input || {};
    var path = input.file_path || input.path || input.notebook_path || input.target_file || null;
    var out = [];
    if (name === "Edit" && typeof input.new_string === "string") {
      linesOf(input.old_string).forEach(function (l) { if (input.old_string) out.push(["-", l]); });
      linesOf(input.new_string).forEach(function (l) { out.push(["+", l]); });
      return { path: path, lines: out };
    }
    if (name === "MultiEdit" && Array.isArray(input.edits)) {
      input.edits.forEach(function (e) {
        linesOf(e.old_string).forEach(function (l) { out.push(["-", l]); });
        linesOf(e.new_string).forEach(function (l) { out.push(["+", l]); });
      });
      return { path: path, lines: out };
    }
    if ((name === "Write" || name === "create_file" || name === "write_to_file") && typeof input.content === "string") {
      linesOf(input.content).forEach(function (l) { out.push(["+", l]); });
      return { path: path, lines: out };
    }
    if (PATH_ONLY.indexOf(name) >= 0) {
      var paths = [];
      if (path) paths.push(path);
      if (Array.isArray(input.changes)) input.changes.forEach(function (c) { if (c && c.path) paths.push(c.path); });
      return { paths: paths.length ? paths : ["(a file)"] };
    }
    return null;
  }
  function diffBlock(change) {
    var box = node("div", "ev-diff");
    if (change.paths) {
      change.paths.forEach(function (p) {
        box.appendChild(node("div", "diff-label", "(current state of " + p + ", not this call's change)"));
      });
      return box;
    }
    var added = change.lines.filter(function (l) { return l[0] === "+"; }).length;
    var pre = node("pre", "diff");
    change.lines.slice(0, 400).forEach(function (l) {
      pre.appendChild(node("div", l[0] === "+" ? "d-add" : "d-del", l[0] + " " + l[1]));
    });
    box.appendChild(node("div", "ev-note", "  " + (change.path || "") + "  +" + added + " −" + (change.lines.length - added)));
    box.appendChild(pre);
    return box;
  }
  function line(item, cls, text) {
    var n = node("div", "ev " + cls, text);
    n.setAttribute("data-seq", String(item.seq));
    n.setAttribute("data-type", String(item.type));
    return n;
  }
  function attemptKey(item) { return (item.prompt_id || "-") + "#" + (item.attempt || 0); }

  function render(item) {
    var d = item.data || {};
    var box = $("events");
    if (item.hidden) return box.appendChild(line(item, "ev-hidden", ""));
    if (item.type !== "message_streamed" && item.type !== "message_received") v.open = {};
    switch (item.type) {
      case "run_opened":
        return box.appendChild(line(item, "ev-note", "run opened · " + (d.packet || "") + " · " + (d.selection || []).length + " prompts · view " + d.view.log_mode));
      case "prompt_started":
        track(item, d.mode || "run");
        return box.appendChild(line(item, "ev-prompt", "▶ " + item.prompt_id + " " + (d.prompt_name || "") + " · " + d.mode + " · attempt " + d.attempt + " · " + d.provider + (d.model ? " " + d.model : "")));
      case "run_started":
        tokenStream(item);
        return box.appendChild(line(item, "ev-note", "● session started" + (d.model ? " (" + d.model + ")" : "") + (item.stream && item.stream !== "initial" ? " · " + item.stream : "")));
      case "session_resumed":
        track(item, "resume");
        return box.appendChild(line(item, "ev-note", "↻ session resumed (" + d.reason + ")"));
      case "message_streamed": {
        var key = (d.message_id || "") + "|" + (d.kind || "text");
        var open = v.open[key];
        if (!open) {
          open = v.open[key] = line(item, d.kind === "thinking" ? "ev-thinking" : "ev-text", "");
          box.appendChild(open);
        } else open.setAttribute("data-seq", open.getAttribute("data-seq") + " " + item.seq);
        open.textContent += d.delta || "";
        return open;
      }
      case "message_received": {
        var k = (d.message_id || "") + "|" + (d.kind || "text");
        var prev = v.open[k];
        delete v.open[k];
        if (prev) {
          prev.textContent = (d.kind === "thinking" ? "✻ " : "") + d.content;
          prev.setAttribute("data-seq", prev.getAttribute("data-seq") + " " + item.seq);
          return prev;
        }
        return box.appendChild(line(item, d.kind === "thinking" ? "ev-thinking" : "ev-text", (d.kind === "thinking" ? "✻ " : "") + d.content));
      }
      case "tool_call_started": {
        var t = line(item, "ev-tool", "");
        t.appendChild(node("span", "state", "◐ "));
        t.appendChild(node("span", "name", d.tool_name + "(" + toolSummary(d.tool_input) + ")"));
        v.tools[d.tool_call_id] = { el: t, name: d.tool_name, input: d.tool_input };
        return box.appendChild(t);
      }
      case "tool_call_completed":
      case "tool_call_failed": {
        var tool = v.tools[d.tool_call_id];
        delete v.tools[d.tool_call_id];
        var el = tool ? tool.el : null;
        if (el) el.setAttribute("data-seq", el.getAttribute("data-seq") + " " + item.seq);
        else {
          // Its start is not on the page (trimmed, or before the page's first event): the completion stands alone.
          el = box.appendChild(line(item, "ev-tool", ""));
          el.appendChild(node("span", "state", ""));
          el.appendChild(node("span", "name", d.tool_name));
        }
        el.classList.add(item.type === "tool_call_failed" ? "failed" : "done");
        el.firstChild.textContent = item.type === "tool_call_failed" ? "✗ " : "✓ ";
        var out = String(d.tool_output || "");
        if (out) {
          var det = node("details", "ev-output");
          var count = linesOf(out).length;
          det.appendChild(node("summary", null, "output · " + count + (count === 1 ? " line" : " lines")));
          det.appendChild(node("pre", null, out.length > 20000 ? out.slice(0, 20000) + "\n… (truncated)" : out));
          el.appendChild(det);
        }
        var change = tool && changeOf(tool.name, tool.input);
        if (change) el.appendChild(diffBlock(change));
        return el;
      }
      case "token_usage_updated":
        tokenUsage(item, d);
        return box.appendChild(line(item, "ev-note ev-usage", "tokens " + fmtNum(d.input_tokens) + " in · " + fmtNum(d.output_tokens) + " out"));
      case "verification_finished": {
        var c = d.counts || {};
        outcome(item, d.status === "pass" ? "pass" : "fail");
        var vline = line(item, d.status === "pass" ? "ev-good" : "ev-bad", (d.status === "pass" ? "✓" : "✗") + " verification " + d.status + " · " + (c.passed || 0) + "/" + (c.items || 0) + " passed");
        (d.failures || []).concat(d.faults || []).forEach(function (f) { vline.appendChild(node("div", null, "   · " + f)); });
        return box.appendChild(vline);
      }
      case "prompt_finished":
        outcome(item, d.status === "completed" ? "pass" : d.status === "failed" ? "fail" : "other");
        return box.appendChild(line(item, d.status === "completed" ? "ev-good" : "ev-bad", "■ " + item.prompt_id + " " + d.status + " · " + d.attempts + " attempt(s)" + (d.steered ? " · steered" : "") + (d.amended ? " · amended" : "")));
      case "steer_accepted":
        return box.appendChild(line(item, "ev-note", "↪ steer accepted from " + d.author + " (" + d.request + ", " + d.text_chars + " chars)"));
      case "steer_delivered":
        return box.appendChild(line(item, "ev-good", "↪ steer delivered (" + d.request + ", " + d.delivery + ")"));
      case "steer_refused":
        return box.appendChild(line(item, "ev-bad", "↪ steer refused (" + d.request + "): " + d.reason));
      case "view_changed":
        return box.appendChild(line(item, "ev-note", "◇ view changed by " + d.author + ": " + Object.keys(d.view || {}).map(function (k) { return k + "=" + d.view[k]; }).join(" ")));
      case "notice":
        return box.appendChild(line(item, d.level === "warning" ? "ev-bad" : "ev-note", "! " + d.message));
      case "error_occurred":
      case "run_failed":
        outcome(item, "fail");
        return box.appendChild(line(item, "ev-bad", "✗ " + (d.error_code || "") + ": " + (d.error_message || "")));
      case "run_cancelled":
        if (d.reason !== "interrupted_for_steer") outcome(item, "other");
        return box.appendChild(line(item, "ev-note", "◼ stream cancelled (" + d.reason + ")"));
      case "run_completed":
        return box.appendChild(line(item, "ev-note", "● session ended (" + d.stop_reason + ")"));
      case "run_finished":
        return box.appendChild(line(item, d.status === "completed" ? "ev-good" : "ev-bad", "== run " + d.status + (d.reason ? ": " + d.reason : "") + " =="));
      default:
        return box.appendChild(line(item, "ev-note", item.type + " " + oneLine(d, 160)));
    }
  }

  // Timeline: one mark per attempt (and per resume) of each prompt, coloured by its outcome.
  function track(item, mode) {
    var key = attemptKey(item) + (mode === "resume" ? "~" + item.seq : "");
    if (v.byKey[key]) return;
    var a = { key: key, base: attemptKey(item), prompt: item.prompt_id || "-", attempt: item.attempt || 0, mode: mode, outcome: "run" };
    v.byKey[key] = a;
    v.attempts.push(a);
    drawTimeline();
  }
  function outcome(item, result) {
    var base = attemptKey(item);
    // The latest verdict wins: an error the runner then resumes from is overridden by the verification after it.
    v.attempts.forEach(function (a) { if (a.base === base) a.outcome = result; });
    drawTimeline();
  }
  function drawTimeline() {
    var host = $("timeline");
    var prompts = [];
    v.attempts.forEach(function (a) { if (prompts.indexOf(a.prompt) < 0) prompts.push(a.prompt); });
    var rowH = 18, left = 110, w = 26;
    var s = svg("svg", { width: left + 12 * (w + 4), height: Math.max(1, prompts.length) * rowH + 4, role: "img", "aria-label": "attempts per prompt" });
    prompts.forEach(function (p, row) {
      s.appendChild(svg("text", { x: 2, y: row * rowH + 13 }, p.length > 16 ? p.slice(0, 15) + "…" : p));
      v.attempts.filter(function (a) { return a.prompt === p; }).forEach(function (a, i) {
        var cls = a.outcome === "pass" ? "m-pass" : a.outcome === "fail" ? "m-fail" : a.outcome === "run" ? "m-run" : "m-other";
        var r = svg("rect", { x: left + i * (w + 4), y: row * rowH + 2, width: w, height: rowH - 4, rx: 3, class: "mark " + cls, "data-prompt": p, "data-attempt": a.attempt, "data-mode": a.mode, "data-outcome": a.outcome });
        r.appendChild(svg("title", {}, p + " · " + a.mode + " · attempt " + a.attempt + " · " + a.outcome));
        s.appendChild(r);
        s.appendChild(svg("text", { x: left + i * (w + 4) + 4, y: row * rowH + 13 }, a.mode.slice(0, 3)));
      });
    });
    host.textContent = "";
    host.appendChild(s);
  }
  // Token chart: tokens per attempt (each stream reports cumulatively; an attempt's streams add up).
  function tokenEntry(item) {
    var key = attemptKey(item);
    var e = v.tokenByKey[key];
    if (!e) {
      e = v.tokenByKey[key] = { key: key, closed: 0, cur: 0 };
      v.tokens.push(e);
    }
    return e;
  }
  function tokenStream(item) {
    var e = tokenEntry(item);
    e.closed += e.cur;
    e.cur = 0;
  }
  function tokenUsage(item, d) {
    var e = tokenEntry(item);
    e.cur = Math.max(e.cur, (Number(d.input_tokens) || 0) + (Number(d.output_tokens) || 0));
    drawTokens();
  }
  function drawTokens() {
    var host = $("token-chart");
    var data = v.tokens.slice(-40);
    var max = 1;
    data.forEach(function (e) { max = Math.max(max, e.closed + e.cur); });
    var h = 110, bw = 14;
    var s = svg("svg", { width: Math.max(120, data.length * (bw + 3) + 50), height: h + 16, role: "img", "aria-label": "tokens per attempt" });
    s.appendChild(svg("text", { x: 0, y: 10 }, fmtNum(max)));
    data.forEach(function (e, i) {
      var total = e.closed + e.cur;
      var bh = Math.max(1, Math.round((total / max) * (h - 14)));
      var r = svg("rect", { x: 46 + i * (bw + 3), y: h - bh, width: bw, height: bh, class: "bar m-run", "data-key": e.key, "data-tokens": total });
      r.appendChild(svg("title", {}, e.key + ": " + fmtNum(total) + " tokens"));
      s.appendChild(r);
    });
    host.textContent = "";
    host.appendChild(s);
  }

  // Keep the list scrolled to its end when it was there: measured once per frame, not per event (a burst of thousands
  // of events would otherwise force a layout each).
  var tail = { pending: false, stick: true };
  function followTail() {
    if (tail.pending) return;
    var box = $("events");
    tail.stick = box.scrollHeight - box.scrollTop - box.clientHeight < 80;
    tail.pending = true;
    requestAnimationFrame(function () {
      tail.pending = false;
      if (tail.stick) box.scrollTop = box.scrollHeight;
    });
  }

  window.PR_VIEWS = {
    reset: function () {
      v = { trimmed: 0, lastSeq: 0, tools: {}, open: {}, attempts: [], byKey: {}, tokens: [], tokenByKey: {} };
      $("events").textContent = "";
      $("log").textContent = "";
      $("timeline").textContent = "";
      $("token-chart").textContent = "";
      $("contract-view").textContent = "";
      document.body.removeAttribute("data-last-seq");
      document.body.removeAttribute("data-trimmed");
      $("events-trimmed").classList.add("hidden");
    },
    event: function (item) {
      // Seqs arrive in order (a resume starts after Last-Event-ID): one already shown is dropped, never drawn twice.
      if (typeof item.seq === "number") {
        if (item.seq <= v.lastSeq) return;
        v.lastSeq = item.seq;
      }
      render(item);
      // Memory stays bounded on long runs: past MAX_LINES lines the oldest go (the count is shown).
      var lines = $("events");
      while (lines.childElementCount > MAX_LINES) {
        lines.removeChild(lines.firstElementChild);
        v.trimmed++;
      }
      if (v.trimmed) {
        document.body.setAttribute("data-trimmed", String(v.trimmed));
        $("events-trimmed").textContent = v.trimmed + " earlier lines are no longer shown (control events has them all)";
        $("events-trimmed").classList.remove("hidden");
      }
      if (typeof item.seq === "number") document.body.setAttribute("data-last-seq", String(v.lastSeq));
      if (item.type === "run_finished") document.body.setAttribute("data-run-finished", String((item.data || {}).status));
      followTail();
    },
    finished: function (status) { document.body.setAttribute("data-run-finished", String(status)); },
    snapshot: function (snap) {
      var f = function (id, text) { $(id).textContent = text; };
      if (!snap) {
        ["snap-status", "snap-prompt", "snap-attempt", "snap-mode", "snap-elapsed", "snap-tokens", "snap-steers"].forEach(function (id) { f(id, "–"); });
        return;
      }
      f("snap-status", snap.status + (snap.stage && snap.stage !== "unknown" ? " · " + snap.stage : ""));
      f("snap-prompt", (snap.prompt_id || "–") + " (" + (snap.prompt_position || 0) + "/" + (snap.selected_count || 0) + ")");
      f("snap-attempt", snap.attempt === null || snap.attempt === undefined ? "–" : String(snap.attempt));
      f("snap-mode", snap.mode || "–");
      f("snap-elapsed", fmtMs(snap.elapsed_ms));
      f("snap-tokens", fmtNum(snap.run_input_tokens) + " in · " + fmtNum(snap.run_output_tokens) + " out");
      var left = Math.max(0, (snap.max_steers || 0) - (snap.steer_count || 0) - (snap.steers_pending || 0));
      f("snap-steers", snap.max_steers ? left + " of " + snap.max_steers : "–");
      f("steer-budget", snap.max_steers ? "steers left: " + left + " of " + snap.max_steers + (snap.steers_pending ? " (" + snap.steers_pending + " pending)" : "") : "");
      document.body.setAttribute("data-prompt", snap.prompt_id || "");
      document.body.setAttribute("data-status", snap.status || "");
    },
    logEntry: function (e) {
      var tr = node("tr", "o-" + e.outcome);
      tr.setAttribute("data-request", e.request || "");
      tr.setAttribute("data-outcome", e.outcome);
      tr.setAttribute("data-command", e.command);
      [String(e.at || "").replace("T", " ").slice(0, 19), e.command, e.author, e.outcome, e.reason || oneLine(e.params || {}, 80)].forEach(function (c) {
        tr.appendChild(node("td", null, c));
      });
      $("log").appendChild(tr);
    },
    contract: function (view) {
      var host = $("contract-view");
      host.textContent = "";
      if (!view) return;
      var rows = view.diff || [];
      var pre = node("pre", "diff");
      rows.forEach(function (r) {
        var mark = r.change === "added" ? "+" : r.change === "removed" ? "-" : " ";
        pre.appendChild(node("div", r.change === "added" ? "d-add" : r.change === "removed" ? "d-del" : null, mark + " " + r.clause + ": " + r.entry));
      });
      if (!rows.length) pre.appendChild(node("div", null, JSON.stringify(view.enforced || {}, null, 2)));
      host.appendChild(node("div", "ev-note", (view.amendments || []).length + " amendment(s) on " + view.prompt_id));
      host.appendChild(pre);
    },
  };
})();
`;
