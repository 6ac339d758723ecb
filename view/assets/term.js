// term.js draws tmux screen rows (capture-pane -e: text with SGR escape
// sequences) as DOM nodes: colours (16, 256 and 24-bit), bold, dim,
// italic, underline, reverse, strike-through, hidden, and the cursor.
// Text is only ever set as textContent: a pane's bytes never become markup.
"use strict";
(function (global) {
  var base16 = ["#000000", "#cd3131", "#0dbc79", "#e5e510", "#2472c8", "#bc3fbc", "#11a8cd", "#e5e5e5",
    "#666666", "#f14c4c", "#23d18b", "#f5f543", "#3b8eea", "#d670d6", "#29b8db", "#ffffff"];

  function color256(n) {
    if (n < 16) return base16[n];
    if (n < 232) {
      n -= 16;
      var steps = [0, 95, 135, 175, 215, 255];
      return "rgb(" + steps[Math.floor(n / 36)] + "," + steps[Math.floor(n / 6) % 6] + "," + steps[n % 6] + ")";
    }
    var g = 8 + (n - 232) * 10;
    return "rgb(" + g + "," + g + "," + g + ")";
  }

  function blank() {
    return { fg: null, bg: null, b: false, d: false, i: false, u: false, r: false, s: false, h: false };
  }

  // sgr applies one SGR parameter list to st.
  function sgr(st, params) {
    var p = params === "" ? [0] : params.split(/[;:]/).map(function (x) { return x === "" ? 0 : parseInt(x, 10); });
    for (var k = 0; k < p.length; k++) {
      var n = p[k];
      if (n === 0) { var z = blank(); for (var key in z) st[key] = z[key]; }
      else if (n === 1) st.b = true;
      else if (n === 2) st.d = true;
      else if (n === 3) st.i = true;
      else if (n === 4 || n === 21) st.u = true;
      else if (n === 7) st.r = true;
      else if (n === 8) st.h = true;
      else if (n === 9) st.s = true;
      else if (n === 22) { st.b = false; st.d = false; }
      else if (n === 23) st.i = false;
      else if (n === 24) st.u = false;
      else if (n === 27) st.r = false;
      else if (n === 28) st.h = false;
      else if (n === 29) st.s = false;
      else if (n >= 30 && n <= 37) st.fg = base16[n - 30];
      else if (n === 39) st.fg = null;
      else if (n >= 40 && n <= 47) st.bg = base16[n - 40];
      else if (n === 49) st.bg = null;
      else if (n >= 90 && n <= 97) st.fg = base16[n - 90 + 8];
      else if (n >= 100 && n <= 107) st.bg = base16[n - 100 + 8];
      else if (n === 38 || n === 48 || n === 58) {
        var c = null;
        if (p[k + 1] === 5 && k + 2 < p.length) { c = color256(p[k + 2] & 255); k += 2; }
        else if (p[k + 1] === 2 && k + 4 < p.length) { c = "rgb(" + (p[k + 2] & 255) + "," + (p[k + 3] & 255) + "," + (p[k + 4] & 255) + ")"; k += 4; }
        else break;
        if (n === 38) st.fg = c; else if (n === 48) st.bg = c;
      }
    }
  }

  // segments splits text into [state, text] runs; escapes other than SGR
  // (OSC hyperlinks, anything else) are skipped.
  function segments(text) {
    var out = [], st = blank(), buf = "", i = 0;
    function flush() {
      if (buf !== "") { out.push([Object.assign({}, st), buf]); buf = ""; }
    }
    while (i < text.length) {
      var ch = text.charCodeAt(i);
      if (ch === 27) {
        var next = text[i + 1];
        if (next === "[") {
          var j = i + 2;
          while (j < text.length && !(text.charCodeAt(j) >= 0x40 && text.charCodeAt(j) <= 0x7e)) j++;
          if (j < text.length && text[j] === "m") { flush(); sgr(st, text.slice(i + 2, j)); }
          i = j + 1;
        } else if (next === "]" || next === "P" || next === "_" || next === "^") {
          var e = i + 2;
          while (e < text.length && text.charCodeAt(e) !== 7 && !(text.charCodeAt(e) === 27 && text[e + 1] === "\\")) e++;
          i = text.charCodeAt(e) === 7 ? e + 1 : e + 2;
        } else {
          i += 2;
        }
        continue;
      }
      if (ch < 32 || ch === 127) { i++; continue; }
      buf += text[i];
      i++;
    }
    flush();
    return out;
  }

  function span(st, text, cursor) {
    var el = document.createElement("span");
    el.textContent = text;
    var fg = st.fg, bg = st.bg;
    if (st.r) { var t = fg; fg = bg || "var(--term-bg)"; bg = t || "var(--term-fg)"; }
    if (fg) el.style.color = fg;
    if (bg) el.style.backgroundColor = bg;
    var cls = [];
    ["b", "d", "i", "u", "s", "h"].forEach(function (k) { if (st[k]) cls.push(k); });
    if (cursor) cls.push("cursor");
    if (cls.length) el.className = cls.join(" ");
    return el;
  }

  // renderRow fills el with text's runs; cursorCol >= 0 marks that
  // column as the cursor.
  function renderRow(el, text, cursorCol) {
    var frag = document.createDocumentFragment(), col = 0, placed = false;
    segments(text).forEach(function (seg) {
      var chars = Array.from(seg[1]);
      if (!placed && cursorCol >= col && cursorCol < col + chars.length) {
        var at = cursorCol - col;
        if (at > 0) frag.appendChild(span(seg[0], chars.slice(0, at).join(""), false));
        frag.appendChild(span(seg[0], chars[at], true));
        if (at + 1 < chars.length) frag.appendChild(span(seg[0], chars.slice(at + 1).join(""), false));
        placed = true;
      } else {
        frag.appendChild(span(seg[0], seg[1], false));
      }
      col += chars.length;
    });
    if (!placed && cursorCol >= 0) {
      if (cursorCol > col) frag.appendChild(document.createTextNode(" ".repeat(cursorCol - col)));
      frag.appendChild(span(blank(), " ", true));
    }
    el.replaceChildren(frag);
  }

  // plain is text without its escapes.
  function plain(text) {
    return segments(text).map(function (s) { return s[1]; }).join("");
  }

  // Screen is one pane's terminal: rows of .row divs inside a pre.
  function Screen(pre) {
    this.pre = pre;
    this.rows = [];
    this.els = [];
    this.cx = 0; this.cy = 0; this.cv = false;
    this.dirty = new Set();
  }
  Screen.prototype.apply = function (f) {
    var r;
    if (f.full || f.h !== this.els.length) {
      this.rows = new Array(f.h).fill("");
      this.els = [];
      var frag = document.createDocumentFragment();
      for (r = 0; r < f.h; r++) {
        var d = document.createElement("div");
        d.className = "row";
        this.els.push(d);
        frag.appendChild(d);
        this.dirty.add(r);
      }
      this.pre.replaceChildren(frag);
    } else if (f.sc > 0 && f.sc < this.els.length) {
      // The screen moved up: move the row elements, drawn as they are.
      var moved = this.els.splice(0, f.sc);
      this.rows.splice(0, f.sc);
      var self0 = this, dirty = new Set();
      this.dirty.forEach(function (x) { if (x - f.sc >= 0) dirty.add(x - f.sc); });
      this.dirty = dirty;
      moved.forEach(function (d) {
        d.replaceChildren();
        self0.pre.appendChild(d);
        self0.els.push(d);
        self0.rows.push("");
        self0.dirty.add(self0.els.length - 1);
      });
      this.dirty.add(this.cy - f.sc);
    }
    var self = this;
    f.rows.forEach(function (pair) {
      if (pair[0] < self.rows.length) { self.rows[pair[0]] = pair[1]; self.dirty.add(pair[0]); }
    });
    if (this.cy !== f.cy || this.cx !== f.cx || this.cv !== f.cv) { this.dirty.add(this.cy); this.dirty.add(f.cy); }
    this.cx = f.cx; this.cy = f.cy; this.cv = f.cv;
  };
  // draw renders the rows changed since the last draw.
  Screen.prototype.draw = function () {
    var self = this;
    this.dirty.forEach(function (r) {
      if (r >= 0 && r < self.els.length) renderRow(self.els[r], self.rows[r], self.cv && r === self.cy ? self.cx : -1);
    });
    this.dirty.clear();
  };
  Screen.prototype.text = function () { return this.rows.map(plain).join("\n"); };

  global.TmuxTerm = { renderRow: renderRow, plain: plain, Screen: Screen, segments: segments };
})(typeof window !== "undefined" ? window : this);
