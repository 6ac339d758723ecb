// login.js signs in: with the token in the link's fragment (#token=...),
// which never reaches a server, then dropped from the address bar; or
// with the one typed into the form. The token goes in the body of a
// POST from this page's own script, which carries this page's Origin;
// the credential it is answered with is kept (credential.js), the token
// never is.
"use strict";
(function () {
  var form = document.querySelector("form.login"), field = form.elements.token, msg = document.getElementById("msg");
  if (/[?&]ended=1/.test(location.search)) {
    msg.textContent = "Your sign-in ended (tmux-mcp started again, or it expired): give the token again.";
  }
  function signIn(token) {
    msg.textContent = "";
    TmuxViewCredential.signIn(token).then(function (status) {
      if (status === 200) { location.replace("/view/"); return; }
      msg.textContent = status === 403 ? "That token was refused." : "Sign-in failed (HTTP " + status + ").";
    }, function () { msg.textContent = "tmux-mcp did not answer."; });
  }
  function fromLink() {
    var m = /(?:^#|&)token=([^&]+)/.exec(location.hash);
    if (!m) return;
    history.replaceState(null, "", location.pathname);
    signIn(decodeURIComponent(m[1].replace(/\+/g, " ")));
  }
  form.addEventListener("submit", function (ev) {
    ev.preventDefault();
    var token = field.value.trim();
    if (token) signIn(token);
  });
  window.addEventListener("hashchange", fromLink);
  fromLink();
})();
