// app.js is the MCP App of view_session (ext-apps, protocol 2026-01-26):
// it speaks JSON-RPC with its host over postMessage (ui/initialize, then
// ui/notifications/initialized), draws the tool result the host sends
// (ui/notifications/tool-result), and keeps the panes live by calling
// view_session through the host (tools/call) twice a second while shown.
// It fetches nothing itself. Every string from tmux is set as textContent.
"use strict";
(function () {
  var nextId = 1, pending = new Map(), args = {}, polling = false, alive = true;
  var screens = new Map();
  window.tmuxApp = { screens: screens, results: 0 };

  function send(msg) { window.parent.postMessage(msg, "*"); }
  function request(method, params) {
    var id = nextId++;
    send({ jsonrpc: "2.0", id: id, method: method, params: params || {} });
    return new Promise(function (resolve, reject) { pending.set(id, { resolve: resolve, reject: reject }); });
  }
  function notify(method, params) { send({ jsonrpc: "2.0", method: method, params: params || {} }); }
  function reply(id, result) { send({ jsonrpc: "2.0", id: id, result: result }); }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = String(text);
    return e;
  }

  function theme(ctx) {
    if (ctx && ctx.theme) document.documentElement.classList.toggle("dark", ctx.theme === "dark");
  }

  function screenFor(id) {
    var s = screens.get(id);
    if (!s) {
      var box = el("div", "pane"), pre = el("pre", "term"), label = el("div", "pane-label");
      box.dataset.pane = id;
      box.appendChild(pre);
      box.appendChild(label);
      s = { el: box, label: label, screen: new TmuxTerm.Screen(pre), rows: null };
      screens.set(id, s);
    }
    return s;
  }

  function draw(p) {
    var s = screenFor(p.id), rows = p.rows || [];
    var full = !s.rows || s.rows.length !== rows.length, changed = [];
    rows.forEach(function (r, i) { if (full || s.rows[i] !== r) changed.push([i, r]); });
    s.screen.apply({ full: full, h: rows.length, rows: changed, cx: p.cursor_x, cy: p.cursor_y, cv: p.cursor_visible });
    s.screen.draw();
    s.rows = rows;
    return s;
  }

  function render(result) {
    var sc = result && result.structuredContent;
    var status = document.getElementById("status");
    if (!sc || !sc.sessions) {
      var text = (result && result.content || []).map(function (c) { return c.text || ""; }).join("\n");
      status.textContent = text || "no panes";
      return;
    }
    window.tmuxApp.results++;
    var root = document.getElementById("sessions"), frag = document.createDocumentFragment(), live = new Set(), n = 0;
    sc.sessions.forEach(function (se) {
      var sd = el("div", "session");
      sd.dataset.session = se.id;
      sd.appendChild(el("div", "session-name", se.name + " (" + se.id + ")"));
      se.windows.forEach(function (w) {
        sd.appendChild(el("div", "window-name", w.index + ": " + w.name + " (" + w.width + "x" + w.height + ")"));
        var box = el("div", "panes");
        box.style.width = "calc(" + w.width + "ch + 2px)";
        box.style.height = "calc(" + w.height + " * var(--cell-h) + 2px)";
        w.panes.forEach(function (p) {
          var s = draw(p);
          live.add(p.id);
          n++;
          s.el.className = "pane" + (p.active ? " pane-active" : "");
          s.el.style.left = p.left + "ch";
          s.el.style.top = "calc(" + p.top + " * var(--cell-h))";
          s.el.style.width = p.width + "ch";
          s.el.style.height = "calc(" + p.height + " * var(--cell-h))";
          s.label.textContent = p.id + " " + (p.command || "") + (p.agent ? " · " + p.agent.name + ": " + p.agent.state.replace(/_/g, " ") + (p.agent.return ? " · " + p.agent.return.replace(/_/g, " ") : "") : "");
          box.appendChild(s.el);
        });
        sd.appendChild(box);
      });
      frag.appendChild(sd);
    });
    root.replaceChildren(frag);
    screens.forEach(function (_, id) { if (!live.has(id)) screens.delete(id); });
    status.textContent = sc.server + " · " + sc.state + " · " + n + " pane(s) · live";
  }

  function poll() {
    if (!alive) return;
    var a = Object.assign({}, args, { escapes: true });
    request("tools/call", { name: "view_session", arguments: a }).then(function (r) {
      if (r && !r.isError) render(r);
      setTimeout(poll, 500);
    }, function () { setTimeout(poll, 2000); });
  }
  function startPolling() {
    if (polling) return;
    polling = true;
    setTimeout(poll, 500);
  }

  window.addEventListener("message", function (ev) {
    if (ev.source !== window.parent) return;
    var m = ev.data;
    if (!m || m.jsonrpc !== "2.0") return;
    if (m.method === undefined && m.id !== undefined) {
      var p = pending.get(m.id);
      if (p) { pending.delete(m.id); if (m.error) p.reject(m.error); else p.resolve(m.result); }
      return;
    }
    switch (m.method) {
      case "ui/notifications/tool-input":
        args = (m.params && m.params.arguments) || {};
        delete args.escapes;
        break;
      case "ui/notifications/tool-result":
        render(m.params);
        startPolling();
        break;
      case "ui/notifications/host-context-changed":
        theme(m.params);
        break;
      case "ui/resource-teardown":
        alive = false;
        reply(m.id, {});
        break;
      case "ping":
        if (m.id !== undefined) reply(m.id, {});
        break;
    }
  });

  request("ui/initialize", {
    protocolVersion: "2026-01-26",
    appInfo: { name: "tmux-mcp session view", version: "1" },
    appCapabilities: { availableDisplayModes: ["inline", "fullscreen"] }
  }).then(function (r) {
    theme(r && r.hostContext);
    notify("ui/notifications/initialized", {});
    if (window.ResizeObserver) {
      new ResizeObserver(function () {
        notify("ui/notifications/size-changed", { width: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight });
      }).observe(document.body);
    }
  });
})();
