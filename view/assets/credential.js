// credential.js keeps the view's credential: what tmux-mcp answers a
// sign-in with, sent in the Authorization header of every data request.
// It lives in this origin's localStorage, which the browser keeps per
// origin (port included) and sends nowhere by itself: a page of another
// port, another user's perhaps, can neither read it nor make the browser
// send it. Never a cookie (a browser sends cookies to every port of a
// host), and never the token itself.
"use strict";
var TmuxViewCredential = (function () {
  var KEY = "tmux-mcp-view";

  // kept is {c: credential, end: ms since the epoch, life: ms}, or null
  // when none is kept or it has ended.
  function kept() {
    try {
      var v = JSON.parse(localStorage.getItem(KEY));
      if (v && typeof v.c === "string" && v.end > Date.now()) return v;
    } catch (e) { /* none kept, or storage refused */ }
    return null;
  }
  // keep stores an answer of /view/login or /view/renew. Its end is
  // counted by this clock from expires_in, whatever the server's says.
  function keep(answer) {
    var v = { c: answer.credential, end: Date.now() + answer.expires_in * 1000, life: answer.expires_in * 1000 };
    try { localStorage.setItem(KEY, JSON.stringify(v)); } catch (e) { /* the page works until it reloads */ }
    return v;
  }
  function drop() {
    try { localStorage.removeItem(KEY); } catch (e) { /* nothing kept */ }
  }
  // headers is h (or {}) with the Authorization of the credential kept.
  function headers(h) {
    h = h || {};
    var v = kept();
    if (v && v.c) h.Authorization = "Bearer " + v.c;
    return h;
  }
  // answered posts to path and keeps the credential it answers; it
  // resolves to the HTTP status (200 kept).
  function answered(path, init) {
    return fetch(path, Object.assign({ method: "POST", cache: "no-store", credentials: "omit" }, init)).then(function (r) {
      if (!r.ok) return r.status;
      return r.json().then(function (a) { keep(a); return 200; });
    });
  }
  // signIn posts the token (never kept) for a credential.
  function signIn(token) {
    return answered("/view/login", { headers: { "Content-Type": "application/json" }, body: JSON.stringify({ token: token }) });
  }
  // renew trades the credential kept for a new one.
  function renew() {
    return answered("/view/renew", { headers: headers() });
  }
  return { kept: kept, drop: drop, headers: headers, signIn: signIn, renew: renew };
})();
