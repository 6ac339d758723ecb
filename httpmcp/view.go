package httpmcp

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// The live view (--view) is served under /view/ behind the same Host and
// Origin checks as /mcp and the same token. A browser cannot send a
// bearer header when it opens a page, so the view also takes a cookie:
// POST /view/login with the token sets it (HttpOnly, SameSite=Strict,
// path /view/), holding an HMAC of the token rather than the token. The
// sign-in page and its script are public (they hold no data); the link
// tmux-mcp prints carries the token in its fragment (#token=...), which
// browsers never send to a server, and the script posts it.

// viewCookie is the view's session cookie.
const viewCookie = "tmux_mcp_view"

// SetView mounts the live view: page serves /view/ (the page, its assets
// and its stream), public the sign-in page's own files (/view/login and
// /view/login.js, /view/login.css). Call before Serve.
func (s *Server) SetView(page, public http.Handler) {
	s.view, s.viewPublic = page, public
}

// ViewURL is the view's address, and the same with the token in its
// fragment (a link that signs in; "" without a token or a view).
func (s *Server) ViewURL() (plain, signIn string) {
	if s.view == nil || s.ln == nil {
		return "", ""
	}
	plain = "http://" + s.ln.Addr().String() + "/view/"
	if s.o.Socket != "" {
		plain = "http://localhost/view/"
	}
	if s.token != "" {
		signIn = plain + "login#token=" + url.QueryEscape(s.token)
	}
	return plain, signIn
}

// viewCookieValue is what the cookie holds for token.
func viewCookieValue(token string) string {
	m := hmac.New(sha256.New, []byte(token))
	m.Write([]byte("tmux-mcp view cookie"))
	return hex.EncodeToString(m.Sum(nil))
}

// viewHandler wraps the view with its sign-in.
func (s *Server) viewHandler() http.Handler {
	token, logger := s.token, s.o.Logger
	want := sha256.Sum256([]byte(token))
	cookie := viewCookieValue(token)
	equal := func(got string) bool {
		sum := sha256.Sum256([]byte(got))
		return subtle.ConstantTimeCompare(sum[:], want[:]) == 1
	}
	authorized := func(r *http.Request) bool {
		if token == "" {
			return true
		}
		if got, given := bearer(r.Header.Get("Authorization")); given && equal(got) {
			return true
		}
		c, err := r.Cookie(viewCookie)
		return err == nil && hmac.Equal([]byte(c.Value), []byte(cookie))
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch p := r.URL.Path; {
		case p == "/view/login" && r.Method == http.MethodPost:
			r.Body = http.MaxBytesReader(w, r.Body, 4096)
			if token != "" && !equal(strings.TrimSpace(r.PostFormValue("token"))) {
				logger.Debug("http: view sign-in refused", "remote", r.RemoteAddr)
				http.Error(w, "Forbidden: wrong token. Go back and give the token tmux-mcp serves HTTP with.", http.StatusForbidden)
				return
			}
			if token != "" {
				http.SetCookie(w, &http.Cookie{Name: viewCookie, Value: cookie, Path: "/view/", HttpOnly: true,
					SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil, MaxAge: int((30 * 24 * time.Hour).Seconds())})
			}
			http.Redirect(w, r, "/view/", http.StatusSeeOther)
		case p == "/view/login" || p == "/view/login.js" || p == "/view/login.css":
			if r.Method != http.MethodGet && r.Method != http.MethodHead {
				http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
				return
			}
			s.viewPublic.ServeHTTP(w, r)
		case authorized(r):
			s.view.ServeHTTP(w, r)
		case p == "/view/" && r.Method == http.MethodGet:
			http.Redirect(w, r, "/view/login", http.StatusSeeOther)
		default:
			logger.Debug("http: view refused", "remote", r.RemoteAddr)
			http.Error(w, "Unauthorized: sign in at /view/login with the token tmux-mcp serves HTTP with", http.StatusUnauthorized)
		}
	})
}
