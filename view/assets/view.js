// view.js keeps the page in step with tmux-mcp's event stream
// (/view/stream): "overview" events redraw the servers, sessions, windows,
// jobs and timelines; "frame" events update panes' rows, at most once per
// animation frame. Every string from tmux (names, titles, commands, pane
// text) is set as textContent, never as markup.
"use strict";
(function () {
  var screens = new Map(); // server + " " + pane -> {el, pre, label, screen}
  var pending = new Set();
  var overview = null;
  var selected = new Map(); // window id -> pane id the input types into
  var inputs = new Map(); // server + window id -> its input form, kept across redraws
  // seen records, per server, each state the page showed (tests read it).
  var state = { frames: 0, scrolls: 0, overviews: 0, drawn: 0, seen: {} };
  window.tmuxView = { screens: screens, state: state, overview: function () { return overview; } };

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function key(server, pane) { return server + " " + pane; }

  function screenFor(server, pane) {
    var k = key(server, pane), s = screens.get(k);
    if (!s) {
      var box = el("div", "pane");
      box.dataset.server = server;
      box.dataset.pane = pane;
      var pre = el("pre", "term");
      var label = el("div", "pane-label");
      box.appendChild(pre);
      box.appendChild(label);
      s = { el: box, pre: pre, label: label, screen: new TmuxTerm.Screen(pre) };
      screens.set(k, s);
    }
    return s;
  }

  function schedule(s) {
    if (pending.size === 0) requestAnimationFrame(drawPending);
    pending.add(s);
  }
  function drawPending() {
    pending.forEach(function (s) { s.screen.draw(); state.drawn++; });
    pending.clear();
  }

  function onFrame(f) {
    state.frames++;
    if (f.sc) state.scrolls++;
    var s = screenFor(f.s, f.p);
    s.screen.apply(f);
    schedule(s);
  }

  function pct(used, limit) { return limit > 0 ? Math.min(100, 100 * used / limit) : 0; }
  function meter(name, used, limit) {
    var m = el("span", "meter");
    m.appendChild(el("span", "", name));
    var bar = el("span", "bar"), fill = el("i"), p = pct(used, limit);
    fill.style.width = p.toFixed(1) + "%";
    if (p >= 90) bar.classList.add("crit"); else if (p >= 70) bar.classList.add("warn");
    bar.appendChild(fill);
    m.appendChild(bar);
    m.appendChild(el("span", "muted", used + (limit ? " / " + limit : "")));
    m.dataset.meter = name;
    return m;
  }
  function since(t) {
    if (!t) return "";
    var s = (Date.now() - Date.parse(t)) / 1000;
    if (s < 90) return Math.round(s) + "s ago";
    if (s < 5400) return Math.round(s / 60) + "m ago";
    return Math.round(s / 3600) + "h ago";
  }
  function mib(b) { return (b / 1048576).toFixed(1) + " MiB"; }

  function renderServer(sv, jobsByPane) {
    var h = sv.health || {};
    var card = el("section", "server");
    card.dataset.key = sv.key;
    var head = el("div", "server-head");
    head.appendChild(el("span", "server-name", sv.name || sv.key));
    var st = el("span", "state state-" + (h.state || "unknown"), h.state || "unknown");
    head.appendChild(st);
    if (h.restoring) head.appendChild(el("span", "state state-restarting", "restoring"));
    if (h.pid) head.appendChild(el("span", "muted", "pid " + h.pid));
    if (h.version) head.appendChild(el("span", "muted", "tmux " + h.version));
    var restarts = el("span", "muted", "restarts " + (h.restarts || 0));
    restarts.dataset.restarts = h.restarts || 0;
    head.appendChild(restarts);
    if (h.state === "up") {
      head.appendChild(meter("fds", h.fds || 0, h.fd_limit || 0));
      head.appendChild(meter("ptys", h.ptys || 0, h.pty_max || 0));
      head.appendChild(el("span", "muted", "rss " + mib(h.rss_bytes || 0)));
    }
    card.appendChild(head);
    if (h.last_death_cause) {
      card.appendChild(el("div", "death", "last death: " + h.last_death_cause + (h.last_death ? " (" + h.last_death + ")" : "") +
        (h.last_death_at ? ", " + since(h.last_death_at) : "")));
    }
    if (sv.error) card.appendChild(el("div", "error", sv.error));
    var sessions = el("div", "sessions");
    (sv.sessions || []).forEach(function (se) {
      var sd = el("div", "session");
      sd.dataset.session = se.id;
      sd.appendChild(el("div", "session-name", se.name + " (" + se.id + ")"));
      se.windows.forEach(function (w) { sd.appendChild(renderWindow(sv, w, jobsByPane)); });
      sessions.appendChild(sd);
    });
    card.appendChild(sessions);
    if (sv.events && sv.events.length) {
      var tl = el("div", "timeline"), ul = el("ul");
      tl.appendChild(el("h3", "", "Journal"));
      sv.events.slice().reverse().forEach(function (e) {
        var li = el("li", "ev-" + e.type);
        li.textContent = new Date(e.time).toLocaleTimeString() + "  " + e.type + (e.cause ? " (" + e.cause + ")" : "") +
          (e.detail ? ": " + e.detail : "");
        ul.appendChild(li);
      });
      tl.appendChild(ul);
      card.appendChild(tl);
    }
    return card;
  }

  function renderWindow(sv, w, jobsByPane) {
    var wd = el("div", "window" + (w.active ? " window-active" : ""));
    wd.dataset.window = w.id;
    wd.appendChild(el("div", "window-name", w.index + ": " + w.name + " (" + w.id + ", " + w.width + "x" + w.height + ")"));
    var box = el("div", "panes");
    box.style.width = "calc(" + w.width + "ch + 2px)";
    box.style.height = "calc(" + w.height + " * var(--cell-h) + 2px)";
    box.style.font = "var(--font) ui-monospace, 'DejaVu Sans Mono', monospace";
    w.panes.forEach(function (p) {
      var s = screenFor(sv.key, p.id);
      s.el.className = "pane" + (p.active ? " pane-active" : "");
      s.el.style.left = p.left + "ch";
      s.el.style.top = "calc(" + p.top + " * var(--cell-h))";
      s.el.style.width = p.width + "ch";
      s.el.style.height = "calc(" + p.height + " * var(--cell-h))";
      s.el.title = (p.title || "") + (p.command ? " — " + p.command : "");
      s.el.dataset.agentState = p.agent ? p.agent.state : "";
      var label = s.label;
      label.replaceChildren();
      label.appendChild(document.createTextNode(p.id + " " + (p.command || "")));
      if (p.dead) label.appendChild(el("span", "badge agent-exited", "dead"));
      if (p.agent) {
        var a = el("span", "badge agent-" + p.agent.state, p.agent.name + ": " + p.agent.state.replace(/_/g, " "));
        if (p.agent.question) a.title = p.agent.question;
        label.appendChild(a);
      }
      if (p.job) {
        var j = jobsByPane.get(key(sv.key, p.id));
        label.appendChild(el("span", "badge job", "job " + p.job + (j && j.tool ? " (" + j.tool + ")" : "")));
      }
      s.el.onclick = function () { selected.set(w.id, p.id); };
      box.appendChild(s.el);
    });
    wd.appendChild(box);
    if (overview && overview.input) wd.appendChild(inputFor(sv, w));
    return wd;
  }

  function inputFor(sv, w) {
    var k = key(sv.key, w.id), kept = inputs.get(k);
    if (kept) { kept.win = w; return kept.form; }
    var form = el("form", "input"), input = el("input");
    kept = { form: form, win: w };
    inputs.set(k, kept);
    input.placeholder = "type into the selected pane (Enter sends)";
    input.autocomplete = "off";
    form.appendChild(input);
    form.onsubmit = function (ev) {
      ev.preventDefault();
      var win = kept.win;
      var pane = selected.get(win.id) || (win.panes.find(function (p) { return p.active; }) || win.panes[0]).id;
      fetch("/view/input", {
        method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ server: sv.key, pane: pane, text: input.value, enter: true })
      }).then(function (r) { if (r.ok) input.value = ""; else r.text().then(function (t) { input.title = t; }); });
    };
    return form;
  }

  function renderJobs(jobs) {
    var tbody = document.querySelector("#jobs tbody");
    tbody.replaceChildren();
    document.getElementById("no-jobs").hidden = jobs.length > 0;
    jobs.forEach(function (j) {
      var tr = el("tr");
      [j.id, j.server, j.pane, j.tool || "run_command", j.task_status || j.state,
        j.exit_status === undefined || j.exit_status === null ? "" : j.exit_status, j.elapsed.toFixed(0) + "s"].forEach(function (v) {
        tr.appendChild(el("td", "", v));
      });
      tr.dataset.job = j.id;
      tbody.appendChild(tr);
    });
  }

  function onOverview(ov) {
    state.overviews++;
    overview = ov;
    var jobsByPane = new Map();
    (ov.jobs || []).forEach(function (j) { if (j.state === "running") jobsByPane.set(key(j.server, j.pane), j); });
    var root = document.getElementById("servers");
    // A redraw must not take the line a person is typing away from them.
    var focused = document.activeElement && document.activeElement.closest && document.activeElement.closest("form.input") ?
      document.activeElement : null;
    var sel = focused ? [focused.selectionStart, focused.selectionEnd] : null;
    var cards = document.createDocumentFragment(), live = new Set(), panes = 0, up = 0;
    ov.servers.forEach(function (sv) {
      cards.appendChild(renderServer(sv, jobsByPane));
      var shown = (sv.health && sv.health.state || "unknown") + (sv.health && sv.health.restoring ? "+restoring" : "");
      var seen = state.seen[sv.key] || (state.seen[sv.key] = []);
      if (seen[seen.length - 1] !== shown) seen.push(shown);
      if (sv.health && sv.health.state === "up") up++;
      (sv.sessions || []).forEach(function (se) {
        se.windows.forEach(function (w) { w.panes.forEach(function (p) { live.add(key(sv.key, p.id)); panes++; }); });
      });
    });
    root.replaceChildren(cards);
    if (focused && focused.isConnected) { focused.focus(); focused.setSelectionRange(sel[0], sel[1]); }
    screens.forEach(function (_, k) { if (!live.has(k)) screens.delete(k); });
    if (!ov.servers.length) root.appendChild(el("p", "muted", "No tmux server is supervised yet: the first tool call adopts or starts one."));
    renderJobs(ov.jobs || []);
    document.getElementById("summary").textContent = ov.servers.length + " server(s), " + up + " up, " + panes + " pane(s)";
  }

  function connect() {
    var conn = document.getElementById("conn");
    var es = new EventSource("/view/stream");
    es.onopen = function () { conn.textContent = "live"; conn.className = "conn conn-live"; };
    es.onerror = function () {
      conn.textContent = "reconnecting";
      conn.className = "conn conn-lost";
      if (es.readyState !== EventSource.CLOSED) return; // the browser retries by itself
      // Refused (a new token since tmux-mcp restarted): sign in again;
      // otherwise try again.
      setTimeout(function () {
        fetch("/view/", { redirect: "manual" }).then(function (r) {
          if (r.type === "opaqueredirect" || r.status === 403) location.href = "/view/login";
          else connect();
        }, function () { setTimeout(connect, 1000); });
      }, 1000);
    };
    es.addEventListener("overview", function (e) { onOverview(JSON.parse(e.data)); });
    es.addEventListener("frame", function (e) { onFrame(JSON.parse(e.data)); });
  }
  connect();
})();
