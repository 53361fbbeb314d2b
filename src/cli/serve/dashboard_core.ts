/** The dashboard's client core (docs/dashboard.md): token, API calls, the SSE reader that reconnects with Last-Event-ID, forms. Plain ES2017, no build step. */
export const DASHBOARD_CORE_JS = String.raw`
(function () {
  "use strict";
  var TOKEN_KEY = "prompt_runner.dashboard.token";
  var R = window.PR_VIEWS;
  var st = {
    token: sessionStorage.getItem(TOKEN_KEY) || "",
    targets: [],
    target: null,
    runId: null,
    snap: null,
    events: null,
    logStream: null,
    log: [],
    watched: {},
  };
  function $(id) { return document.getElementById(id); }
  function enc(s) { return encodeURIComponent(s); }
  function base() { return "targets/" + enc(st.target); }
  function say(id, text, kind) {
    var n = $(id);
    n.textContent = text;
    n.className = "result" + (kind ? " " + kind : "");
  }
  function errorText(body, status) {
    var e = body && (body.error || body);
    var code = e && (e.code || e.error);
    var msg = e && (e.message || e.reason);
    return (code ? code + ": " : "HTTP " + status + ": ") + (msg || "request failed");
  }
  function needToken(message) {
    st.token = "";
    sessionStorage.removeItem(TOKEN_KEY);
    stopStreams();
    $("app").classList.add("hidden");
    $("token-gate").classList.remove("hidden");
    say("token-result", message || "", message ? "error" : "");
  }
  function newKey() {
    return window.crypto && crypto.randomUUID ? crypto.randomUUID() : Date.now() + "-" + Math.random().toString(36).slice(2);
  }
  function api(path, method, body) {
    var init = { method: method || "GET", headers: { Authorization: "Bearer " + st.token }, cache: "no-store" };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    // A write carries a key of its own (Idempotency-Key): sent again after the connection failed, it is answered by
    // the server, not made twice.
    var write = init.method === "POST";
    if (write) init.headers["Idempotency-Key"] = newKey();
    var send = function () { return fetch("/api/v1/" + path, init); };
    return send().catch(function (e) {
      if (!write) throw e;
      return send();
    }).then(function (res) {
      return res.text().then(function (text) {
        var data = null;
        try { data = text ? JSON.parse(text) : null; } catch (_) { data = { message: text }; }
        if (res.status === 401) needToken("the token was not accepted (401)");
        if (!res.ok) {
          var err = new Error(errorText(data, res.status));
          err.status = res.status;
          err.body = data;
          throw err;
        }
        return data;
      });
    });
  }
  window.PR_API = api;

  // Server-Sent Events over fetch: EventSource cannot send the bearer token, so this reader does what EventSource
  // does (parse the stream, remember the last id, reconnect with Last-Event-ID after a drop) with the token header.
  function sse(path, handlers) {
    var ctl = { lastId: null, closed: false, ended: false, failures: 0, abort: null };
    function again() {
      if (ctl.closed || ctl.ended) return;
      if (handlers.badge) setConn("reconnecting");
      ctl.failures++;
      setTimeout(connect, Math.min(5000, 200 * Math.pow(2, Math.min(ctl.failures, 5))));
    }
    function dispatch(block) {
      var id = null, name = "message", data = [];
      block.split(/\r?\n/).forEach(function (line) {
        if (!line || line.charAt(0) === ":") return;
        var i = line.indexOf(":");
        var field = i < 0 ? line : line.slice(0, i);
        var value = i < 0 ? "" : line.slice(i + 1).replace(/^ /, "");
        if (field === "id") id = value;
        else if (field === "event") name = value;
        else if (field === "data") data.push(value);
      });
      if (id !== null && id !== "") ctl.lastId = id;
      if (!data.length) return;
      var parsed;
      try { parsed = JSON.parse(data.join("\n")); } catch (_) { parsed = data.join("\n"); }
      if (handlers.onEvent(name, parsed, id) === "end") {
        ctl.ended = true;
        if (ctl.abort) ctl.abort.abort();
      }
    }
    function connect() {
      if (ctl.closed || ctl.ended) return;
      var ac = new AbortController();
      ctl.abort = ac;
      var headers = { Authorization: "Bearer " + st.token, Accept: "text/event-stream" };
      if (ctl.lastId !== null) headers["Last-Event-ID"] = ctl.lastId;
      fetch("/api/v1/" + path, { headers: headers, signal: ac.signal, cache: "no-store" }).then(function (res) {
        if (res.status === 401) { ctl.closed = true; needToken("the token was not accepted (401)"); return; }
        if (!res.ok || !res.body) throw new Error("HTTP " + res.status);
        ctl.failures = 0;
        if (handlers.badge) setConn("live");
        var reader = res.body.getReader(), dec = new TextDecoder(), buf = "";
        function pump() {
          return reader.read().then(function (r) {
            if (r.done) return;
            buf += dec.decode(r.value, { stream: true });
            var m;
            while ((m = /\r?\n\r?\n/.exec(buf))) {
              var block = buf.slice(0, m.index);
              buf = buf.slice(m.index + m[0].length);
              dispatch(block);
              if (ctl.ended || ctl.closed) return;
            }
            return pump();
          });
        }
        return pump();
      }).then(function () {
        if (ctl.ended) { if (handlers.onEnd) handlers.onEnd(); } else again();
      }, function () {
        if (ctl.ended) { if (handlers.onEnd) handlers.onEnd(); } else again();
      });
    }
    connect();
    return {
      close: function () {
        ctl.closed = true;
        if (ctl.abort) ctl.abort.abort();
      },
    };
  }
  function setConn(state) {
    var n = $("conn");
    n.textContent = state;
    n.className = state;
    document.body.setAttribute("data-conn", state);
  }
  function stopStreams() {
    if (st.events) st.events.close();
    if (st.logStream) st.logStream.close();
    st.events = st.logStream = null;
  }

  // Targets and selection.
  function targetId(t) { return String(t.id); }
  function targetStatus(t) {
    return String(t.status || "unknown");
  }
  function refreshTargets() {
    return api("targets").then(function (data) {
      st.targets = Array.isArray(data) ? data : (data && data.targets) || [];
      // Updated in place (never rebuilt), so a row under the pointer is the same element across refreshes.
      var ul = $("targets"), rows = {};
      Array.prototype.forEach.call(ul.children, function (li) { rows[li.getAttribute("data-target")] = li; });
      st.targets.forEach(function (t) {
        var id = targetId(t), li = rows[id];
        delete rows[id];
        if (!li) {
          li = document.createElement("li");
          li.setAttribute("data-target", id);
          li.appendChild(document.createElement("span"));
          li.appendChild(document.createElement("span"));
          li.addEventListener("click", function () { select(id); });
        }
        ul.appendChild(li); // in the server's order
        li.className = id === st.target ? "selected" : "";
        li.firstChild.textContent = t.packet_name || t.name || t.packet || id;
        li.lastChild.className = "badge s-" + targetStatus(t);
        li.lastChild.textContent = targetStatus(t);
      });
      Object.keys(rows).forEach(function (id) { ul.removeChild(rows[id]); });
      if (st.target === null && st.targets.length) {
        var running = st.targets.filter(function (t) { return targetStatus(t) === "running"; })[0];
        select(targetId(running || st.targets[0]));
      }
    }).catch(function (e) { say("app-result", String(e.message || e), "error"); });
  }
  function select(id) {
    st.target = id;
    st.runId = null;
    stopStreams();
    R.reset();
    st.log = [];
    st.watched = {};
    Array.prototype.forEach.call($("targets").children, function (li) {
      li.className = li.getAttribute("data-target") === id ? "selected" : "";
    });
    document.body.setAttribute("data-target", id);
    refreshSnapshot().then(function () {
      st.events = sse(base() + "/events", {
        badge: true, // the header's connection badge follows the event stream
        onEvent: function (name, item) {
          if (!item || typeof item !== "object") return;
          if (name === "error") { say("app-result", errorText(item, 0), "error"); return; }
          if (name === "end" || name === "status") { R.finished(item.status || item.data && item.data.status); return "end"; }
          R.event(item);
          if (item.type === "run_finished") return "end";
        },
        onEnd: function () { setConn("ended"); refreshSnapshot(); refreshTargets(); },
      });
      st.logStream = sse(base() + "/log/stream", {
        onEvent: function (name, entry) {
          if (name === "end") return "end";
          if (!entry || typeof entry !== "object" || !entry.command) return;
          addLog(entry);
        },
      });
    });
  }
  function refreshSnapshot() {
    if (st.target === null) return Promise.resolve();
    var t = st.target;
    return api(base() + "/snapshot").then(function (snap) {
      if (t !== st.target) return;
      // A new run of the selected target: follow it from its start (fresh streams, fresh views).
      if (st.runId && snap && snap.run_id && snap.run_id !== st.runId) return select(t);
      st.snap = snap;
      st.runId = snap && snap.run_id;
      say("app-result", "");
      R.snapshot(snap);
      syncViewForm(snap && snap.view);
      if (!$("contract-prompt").value && snap && snap.prompt_id) $("contract-prompt").value = snap.prompt_id;
    }).catch(function (e) {
      st.snap = null;
      R.snapshot(null);
      say("app-result", String(e.message || e), "error");
    });
  }

  // The audit log and the outcome of this page's own requests.
  function addLog(entry) {
    st.log.push(entry);
    R.logEntry(entry);
    var mine = entry.request && st.watched[entry.request];
    if (mine) say(mine, entry.command + " " + entry.request + ": " + entry.outcome + (entry.reason ? " (" + entry.reason + ")" : ""), /rejected|refused|expired/.test(entry.outcome) ? "error" : "ok");
  }
  function outcomeOf(command, res, resultId) {
    var req = res && (res.request || res.request_id);
    var out = res && (res.outcome || (res.receipt && res.receipt.outcome));
    if (req) st.watched[req] = resultId;
    var known = st.log.filter(function (e) { return e.request === req; }).pop();
    if (known) out = known.outcome;
    say(resultId, command + " " + (req || "request") + ": " + (out || "sent; waiting for the runner"), /rejected|refused|expired/.test(out || "") ? "error" : "ok");
  }
  function syncViewForm(view) {
    if (!view) return;
    ["log_mode", "tool_output", "thinking", "diff"].forEach(function (k) {
      var s = $("view-" + k);
      // A choice the user made and has not applied yet is theirs: the periodic refresh never resets it.
      if (s && view[k] && !s.hasAttribute("data-dirty")) s.value = view[k];
      var c = $("view-now-" + k);
      if (c) c.textContent = view[k] || "";
    });
  }

  function wire() {
    $("token-form").addEventListener("submit", function (ev) {
      ev.preventDefault();
      st.token = $("token-input").value.trim();
      if (!st.token) { say("token-result", "enter a token", "error"); return; }
      $("token-input").value = "";
      sessionStorage.setItem(TOKEN_KEY, st.token);
      start();
    });
    $("forget-token").addEventListener("click", function () { needToken(""); });
    ["log_mode", "tool_output", "thinking", "diff"].forEach(function (k) {
      $("view-" + k).addEventListener("change", function (ev) { ev.target.setAttribute("data-dirty", "1"); });
    });
    $("view-form").addEventListener("submit", function (ev) {
      ev.preventDefault();
      var body = {};
      ["log_mode", "tool_output", "thinking", "diff"].forEach(function (k) {
        var v = $("view-" + k).value;
        if (v && (!st.snap || !st.snap.view || st.snap.view[k] !== v)) body[k] = v;
      });
      if (!Object.keys(body).length) { say("view-result", "nothing changed", "error"); return; }
      say("view-result", "sending…");
      api(base() + "/view", "POST", body).then(function (res) {
        ["log_mode", "tool_output", "thinking", "diff"].forEach(function (k) { $("view-" + k).removeAttribute("data-dirty"); });
        outcomeOf("set_view", res, "view-result");
      }, function (e) {
        say("view-result", e.message, "error");
      });
    });
    $("steer-form").addEventListener("submit", function (ev) {
      ev.preventDefault();
      var text = $("steer-text").value;
      if (!text.trim()) { say("steer-result", "write the guidance first", "error"); return; }
      say("steer-result", "sending…");
      api(base() + "/steer", "POST", { text: text }).then(function (res) {
        $("steer-text").value = "";
        outcomeOf("steer", res, "steer-result");
      }, function (e) { say("steer-result", e.message, "error"); });
    });
    $("thinking-toggle").addEventListener("change", function (ev) {
      $("events").classList.toggle("no-thinking", !ev.target.checked);
    });
    $("contract-form").addEventListener("submit", function (ev) {
      ev.preventDefault();
      loadContract();
    });
    $("amend-form").addEventListener("submit", function (ev) {
      ev.preventDefault();
      contractWrite("amend");
    });
    $("relax-form").addEventListener("submit", function (ev) {
      ev.preventDefault();
      contractWrite("relax");
    });
  }
  function loadContract() {
    var p = $("contract-prompt").value.trim();
    if (!p) { say("contract-result", "name a prompt", "error"); return Promise.resolve(); }
    return api(base() + "/contract/" + enc(p)).then(function (view) {
      R.contract(view);
      say("contract-result", "");
    }, function (e) { say("contract-result", e.message, "error"); });
  }
  function entriesOf(text) {
    var t = text.trim();
    if (!t) return [];
    try {
      var v = JSON.parse(t);
      return Array.isArray(v) ? v : [v];
    } catch (_) {
      return t.split("\n").map(function (s) { return s.trim(); }).filter(Boolean);
    }
  }
  function contractWrite(kind) {
    var p = $("contract-prompt").value.trim();
    var reason = $(kind + "-reason").value.trim();
    var out = kind + "-result";
    if (!p) { say(out, "name a prompt", "error"); return; }
    if (!reason) { say(out, "a reason is required", "error"); return; }
    var body = { clause: $(kind + "-clause").value.trim(), reason: reason };
    if (!body.clause) { say(out, "name a clause", "error"); return; }
    var entries = entriesOf($(kind + "-entries").value);
    if (kind === "amend") {
      if (!entries.length) { say(out, "give at least one entry", "error"); return; }
      body.entries = entries;
    } else {
      body.operation = $("relax-operation").value;
      if (entries.length) body.entries = entries;
      if (!$("relax-confirm").checked) { say(out, "tick the confirmation: relaxing weakens the contract", "error"); return; }
      body.confirm = true;
    }
    say(out, "sending…");
    body.prompt = p;
    api(base() + "/" + kind, "POST", body).then(function (res) {
      say(out, kind + " recorded" + (res && res.id ? " (" + res.id + ")" : ""), "ok");
      $(kind + "-reason").value = "";
      if (kind === "relax") $("relax-confirm").checked = false;
      return loadContract();
    }, function (e) { say(out, e.message, "error"); });
  }
  function start() {
    $("token-gate").classList.add("hidden");
    $("app").classList.remove("hidden");
    // Who the server takes this token for: the author of every record it causes, and what it may do.
    api("whoami").then(function (w) { $("who").textContent = w && w.name ? w.name + " · " + w.role : ""; }, function () {});
    refreshTargets();
  }

  wire();
  setConn("idle");
  setInterval(function () {
    if (!st.token || st.target === null) return;
    refreshSnapshot();
    refreshTargets();
  }, 1000);
  if (st.token) start();
  else needToken("");
})();
`;
