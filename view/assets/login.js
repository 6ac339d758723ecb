// login.js signs in with the token in the link's fragment (#token=...),
// which never reaches a server log, then drops it from the address bar.
"use strict";
(function () {
  var msg = document.getElementById("msg");
  if (/[?&]refused=1/.test(location.search)) msg.textContent = "That token was refused.";
  function signIn() {
    var m = /(?:^#|&)token=([^&]+)/.exec(location.hash);
    if (!m) return;
    history.replaceState(null, "", location.pathname);
    fetch("/view/login", {
      method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: "token=" + m[1], redirect: "manual"
    }).then(function (r) {
      if (r.type === "opaqueredirect" || r.ok) location.replace("/view/");
      else msg.textContent = "That token was refused.";
    });
  }
  window.addEventListener("hashchange", signIn);
  signIn();
})();
