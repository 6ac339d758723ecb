// view.js keeps the page in step with tmux-mcp's event stream
// (/view/stream, read with fetch so that it carries the view's credential
// in its Authorization header: credential.js): "overview" events update
// the servers, sessions, windows, jobs and timelines; "frame" events
// update panes' rows, at most once per animation frame. Every string from
// tmux (names, titles, commands, pane text) is set as textContent, never
// as markup.
//
// An overview updates the page in place: an element that stays (a pane,
// a window, an input line) is never taken out of the document and put
// back, which would lose a click under way (its press and release would
// no longer meet on one element), the focus and the selection.
"use strict";
(function () {
  var Cred = TmuxViewCredential;
  var screens = new Map(); // server + " " + pane -> {el, pre, label, screen}
  var pending = new Set();
  var overview = null;
  var selected = new Map(); // window id -> pane id the input types into
  var inputs = new Map(); // server + window id -> its input form, kept across overviews
  var nodes = new Map(); // key -> element of the page, kept across overviews
  var used = new Set(); // the keys of nodes the last overview used
  // seen records, per server, each state the page showed (tests read it).
  var state = { frames: 0, scrolls: 0, overviews: 0, drawn: 0, connects: 0, renewals: 0, seen: {} };
  window.tmuxView = { screens: screens, state: state, overview: function () { return overview; } };

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function key(server, pane) { return server + " " + pane; }
  // A job is its record (the journal's JSON, jobrecord.Record): its server
  // is its socket, as the servers' keys name it (the path, else the -L
  // name); a task's call says its tool and the task's status.
  function jobServer(j) { return j.socket ? j.socket.Path || j.socket.Name : ""; }
  function jobTool(j) { return j.call ? j.call.tool : ""; }
  function jobStatus(j) { return j.call && j.call.status || j.state; }
  // node is the page's element for k, made on first use; its class is cls.
  function node(k, tag, cls) {
    var e = nodes.get(k);
    if (!e) { e = el(tag); nodes.set(k, e); }
    if (e.className !== cls) e.className = cls;
    used.add(k);
    return e;
  }
  function setText(e, t) { t = String(t); if (e.textContent !== t) e.textContent = t; }
  // place makes parent's element children kids, in order, moving only
  // those that are not where they belong.
  function place(parent, kids) {
    var want = new Set(kids);
    Array.prototype.slice.call(parent.children).forEach(function (c) { if (!want.has(c)) c.remove(); });
    kids.forEach(function (k, i) {
      if (parent.children[i] !== k) parent.insertBefore(k, parent.children[i] || null);
    });
  }

  // The sign-in: a credential refused (ended, or tmux-mcp started again
  // with another token) sends the page back to it.
  var leaving = false;
  function toSignIn() {
    if (leaving) return;
    leaving = true;
    var had = !!Cred.kept();
    Cred.drop();
    location.replace(had ? "/view/login?ended=1" : "/view/login");
  }
  // Renewal: a while before the credential ends (a third of its life),
  // and again soon after a renewal that did not get through.
  var renewTimer = 0;
  function scheduleRenewal(delay) {
    clearTimeout(renewTimer);
    var v = Cred.kept();
    if (!v) return;
    if (delay === undefined) delay = Math.max(0, v.end - Date.now() - v.life / 3);
    renewTimer = setTimeout(function () {
      Cred.renew().then(function (status) {
        if (status === 200) { state.renewals++; scheduleRenewal(); }
        else if (status === 401 || status === 403) toSignIn();
        else scheduleRenewal(15000);
      }, function () { scheduleRenewal(15000); });
    }, delay);
  }
  // A page that slept (a hidden tab's timers are slowed) renews on waking.
  document.addEventListener("visibilitychange", function () {
    var v = Cred.kept();
    if (!document.hidden && v && v.end - Date.now() < v.life / 3) scheduleRenewal(0);
  });

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
    var h = sv.health || {}, k = "server " + sv.key;
    var card = node(k, "section", "server");
    card.dataset.key = sv.key;
    // The head, the death and the timeline hold nothing a person works
    // with: they are drawn anew.
    var head = node(k + " head", "div", "server-head");
    var parts = [el("span", "server-name", sv.name || sv.key), el("span", "state state-" + (h.state || "unknown"), h.state || "unknown")];
    if (h.restoring) parts.push(el("span", "state state-restarting", "restoring"));
    if (h.pid) parts.push(el("span", "muted", "pid " + h.pid));
    if (h.version) parts.push(el("span", "muted", "tmux " + h.version));
    var restarts = el("span", "muted", "restarts " + (h.restarts || 0));
    restarts.dataset.restarts = h.restarts || 0;
    parts.push(restarts);
    if (h.state === "up") {
      parts.push(meter("fds", h.fds || 0, h.fd_limit || 0));
      parts.push(meter("ptys", h.ptys || 0, h.pty_max || 0));
      parts.push(el("span", "muted", "rss " + mib(h.rss_bytes || 0)));
    }
    head.replaceChildren.apply(head, parts);
    var kids = [head];
    if (h.last_death_cause) {
      var death = node(k + " death", "div", "death");
      setText(death, "last death: " + h.last_death_cause + (h.last_death ? " (" + h.last_death + ")" : "") +
        (h.last_death_at ? ", " + since(h.last_death_at) : ""));
      kids.push(death);
    }
    if (sv.error) {
      var err = node(k + " error", "div", "error");
      setText(err, sv.error);
      kids.push(err);
    }
    var sessions = node(k + " sessions", "div", "sessions");
    place(sessions, (sv.sessions || []).map(function (se) { return renderSession(sv, se, jobsByPane); }));
    kids.push(sessions);
    if (sv.events && sv.events.length) {
      var tl = node(k + " timeline", "div", "timeline"), title = node(k + " timeline title", "h3", ""), ul = node(k + " timeline list", "ul", "");
      setText(title, "Journal");
      ul.replaceChildren.apply(ul, sv.events.slice().reverse().map(function (e) {
        return el("li", "ev-" + e.type, new Date(e.time).toLocaleTimeString() + "  " + e.type + (e.cause ? " (" + e.cause + ")" : "") +
          (e.detail ? ": " + e.detail : ""));
      }));
      place(tl, [title, ul]);
      kids.push(tl);
    }
    place(card, kids);
    return card;
  }

  function renderSession(sv, se, jobsByPane) {
    var k = "session " + sv.key + " " + se.id;
    var sd = node(k, "div", "session");
    sd.dataset.session = se.id;
    var name = node(k + " name", "div", "session-name");
    setText(name, se.name + " (" + se.id + ")");
    place(sd, [name].concat(se.windows.map(function (w) { return renderWindow(sv, w, jobsByPane); })));
    return sd;
  }

  function renderWindow(sv, w, jobsByPane) {
    var k = "window " + sv.key + " " + w.id;
    var wd = node(k, "div", "window" + (w.active ? " window-active" : ""));
    wd.dataset.window = w.id;
    var name = node(k + " name", "div", "window-name");
    setText(name, w.index + ": " + w.name + " (" + w.id + ", " + w.width + "x" + w.height + ")");
    var box = node(k + " panes", "div", "panes");
    box.style.width = "calc(" + w.width + "ch + 2px)";
    box.style.height = "calc(" + w.height + " * var(--cell-h) + 2px)";
    box.style.font = "var(--font) ui-monospace, 'DejaVu Sans Mono', monospace";
    place(box, w.panes.map(function (p) {
      var s = screenFor(sv.key, p.id);
      var cls = "pane" + (p.active ? " pane-active" : "");
      if (s.el.className !== cls) s.el.className = cls;
      s.el.style.left = p.left + "ch";
      s.el.style.top = "calc(" + p.top + " * var(--cell-h))";
      s.el.style.width = p.width + "ch";
      s.el.style.height = "calc(" + p.height + " * var(--cell-h))";
      s.el.title = (p.title || "") + (p.command ? " — " + p.command : "");
      s.el.dataset.agentState = p.agent ? p.agent.state : "";
      var j = p.job ? jobsByPane.get(key(sv.key, p.id)) : null;
      var sig = JSON.stringify([p.id, p.command, p.dead, p.agent, p.job, j && jobTool(j)]);
      if (s.label.dataset.sig !== sig) {
        s.label.dataset.sig = sig;
        var label = [document.createTextNode(p.id + " " + (p.command || ""))];
        if (p.dead) label.push(el("span", "badge agent-exited", "dead"));
        if (p.agent) {
          var a = el("span", "badge agent-" + p.agent.state, p.agent.name + ": " + p.agent.state.replace(/_/g, " "));
          if (p.agent.question) a.title = p.agent.question;
          label.push(a);
          if (p.agent.return) {
            var r = el("span", "badge return-" + p.agent.return, returnLabels[p.agent.return] || p.agent.return);
            r.title = p.agent.return_why || "";
            label.push(r);
          }
        }
        if (p.job) label.push(el("span", "badge job", "job " + p.job + (j && jobTool(j) ? " (" + jobTool(j) + ")" : "")));
        s.label.replaceChildren.apply(s.label, label);
      }
      s.el.onclick = function () { selected.set(w.id, p.id); };
      return s.el;
    }));
    var kids = [name, box];
    if (overview && overview.input) kids.push(inputFor(sv, w));
    place(wd, kids);
    return wd;
  }

  // What becomes of an agent when tmux dies (view.Agent's Return).
  var returnLabels = { comes_back: "comes back", came_back: "came back", not_resumed: "not resumed" };

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
        method: "POST", cache: "no-store", credentials: "omit", headers: Cred.headers({ "Content-Type": "application/json" }),
        body: JSON.stringify({ server: sv.key, pane: pane, text: input.value, enter: true })
      }).then(function (r) {
        if (r.ok) { input.value = ""; input.title = ""; return; }
        if (r.status === 401) { toSignIn(); return; }
        r.text().then(function (t) { input.title = t; });
      }, function (e) { input.title = "not sent: " + e; });
    };
    return form;
  }

  function renderJobs(jobs) {
    var tbody = document.querySelector("#jobs tbody");
    document.getElementById("no-jobs").hidden = jobs.length > 0;
    tbody.replaceChildren.apply(tbody, jobs.map(function (j) {
      var tr = el("tr");
      [j.id, jobServer(j), j.pane, jobTool(j) || "run_command", jobStatus(j),
        j.exit_status === undefined || j.exit_status === null ? "" : j.exit_status, j.elapsed.toFixed(0) + "s"].forEach(function (v) {
        tr.appendChild(el("td", "", v));
      });
      tr.dataset.job = j.id;
      return tr;
    }));
  }

  function onOverview(ov) {
    state.overviews++;
    overview = ov;
    var jobsByPane = new Map();
    (ov.jobs || []).forEach(function (j) { if (j.state === "running") jobsByPane.set(key(jobServer(j), j.pane), j); });
    var live = new Set(), panes = 0, up = 0;
    used = new Set();
    var cards = ov.servers.map(function (sv) {
      var card = renderServer(sv, jobsByPane);
      var shown = (sv.health && sv.health.state || "unknown") + (sv.health && sv.health.restoring ? "+restoring" : "");
      var seen = state.seen[sv.key] || (state.seen[sv.key] = []);
      if (seen[seen.length - 1] !== shown) seen.push(shown);
      if (sv.health && sv.health.state === "up") up++;
      (sv.sessions || []).forEach(function (se) {
        se.windows.forEach(function (w) { w.panes.forEach(function (p) { live.add(key(sv.key, p.id)); panes++; }); });
      });
      return card;
    });
    if (!ov.servers.length) {
      var none = node("none", "p", "muted");
      setText(none, "No tmux server is supervised yet: the first tool call adopts or starts one.");
      cards.push(none);
    }
    place(document.getElementById("servers"), cards);
    nodes.forEach(function (_, k) { if (!used.has(k)) nodes.delete(k); });
    screens.forEach(function (_, k) { if (!live.has(k)) screens.delete(k); });
    renderJobs(ov.jobs || []);
    setText(document.getElementById("summary"), ov.servers.length + " server(s), " + up + " up, " + panes + " pane(s)");
  }

  // The stream, as server-sent events: blocks apart by a blank line, of
  // "event:", "data:" and "retry:" fields; ":" lines are comments.
  function dispatch(block, stream) {
    var event = "message", data = [];
    block.split("\n").forEach(function (line) {
      if (line === "" || line[0] === ":") return;
      var at = line.indexOf(":"), field = at < 0 ? line : line.slice(0, at), value = at < 0 ? "" : line.slice(at + 1);
      if (value[0] === " ") value = value.slice(1);
      if (field === "event") event = value;
      else if (field === "data") data.push(value);
      else if (field === "retry" && /^\d+$/.test(value)) stream.retry = parseInt(value, 10);
    });
    if (!data.length) return;
    if (event === "overview") onOverview(JSON.parse(data.join("\n")));
    else if (event === "frame") onFrame(JSON.parse(data.join("\n")));
  }

  // connect reads the stream until it ends, then connects again: after
  // the stream's retry time once it had been live (it starts again from
  // keyframes), doubling up to 8 s while tmux-mcp cannot be reached.
  var stream = { retry: 1000, failures: 0 };
  function connect() {
    var conn = document.getElementById("conn");
    function lost() {
      if (leaving) return;
      conn.textContent = "reconnecting";
      conn.className = "conn conn-lost";
      var delay = Math.min(8000, stream.retry * Math.pow(2, stream.failures));
      stream.failures++;
      setTimeout(connect, delay);
    }
    fetch("/view/stream", { cache: "no-store", credentials: "omit", headers: Cred.headers({ Accept: "text/event-stream" }) }).then(function (r) {
      if (r.status === 401 || r.status === 403) { toSignIn(); return; }
      if (!r.ok || !r.body) throw new Error("stream: HTTP " + r.status);
      state.connects++;
      stream.failures = 0;
      conn.textContent = "live";
      conn.className = "conn conn-live";
      var reader = r.body.getReader(), decoder = new TextDecoder(), buf = "";
      function pump() {
        return reader.read().then(function (chunk) {
          if (chunk.done) return;
          buf += decoder.decode(chunk.value, { stream: true });
          for (var end = buf.indexOf("\n\n"); end >= 0; end = buf.indexOf("\n\n")) {
            var block = buf.slice(0, end);
            buf = buf.slice(end + 2);
            dispatch(block, stream);
          }
          return pump();
        });
      }
      return pump().then(lost);
    }).catch(lost);
  }

  // Without a credential the stream is refused (unless tmux-mcp serves
  // without a token): the page goes to the sign-in.
  scheduleRenewal();
  connect();
})();
