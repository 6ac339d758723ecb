package httpmcp

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// The live view (--view) is served under /view/ behind the same Host
// check as /mcp, the Origin list, and a stricter Origin rule of its own:
// a browser's request must come from the view's own origin (ownOrigin),
// not from any loopback port. Its page, scripts and sign-in page are
// public: they hold no data. Its data (the stream, the input, anything
// else under /view/) needs the bearer token or a view credential
// (viewcredential.go) in the Authorization header, never a cookie. The
// page signs in by posting the token to /view/login from its own script
// (the link tmux-mcp prints carries the token in its fragment, #token=,
// which browsers never send to a server), keeps the credential it gets
// in its storage, and renews it at /view/renew.

// oldViewCookie is the cookie earlier versions signed the view in with;
// it is no longer taken, and the view ends it where a browser still has
// it.
const oldViewCookie = "tmux_mcp_view"

// SetView mounts the live view's handler (the page, its assets, the
// sign-in page and the data). Call before Serve.
func (s *Server) SetView(h http.Handler) { s.view = h }

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

// viewPublic reports whether r asks for a file of the view that anyone
// may have: the page, its assets, the sign-in page. Everything else
// under /view/ is data.
func viewPublic(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	p := r.URL.Path
	return p == "/view/" || p == "/view/login" || strings.HasPrefix(p, "/view/assets/")
}

// viewCredentialAnswer is what /view/login and /view/renew answer.
type viewCredentialAnswer struct {
	Credential string `json:"credential"`
	// ExpiresIn is the credential's life in seconds.
	ExpiresIn int `json:"expires_in"`
}

// viewHandler wraps the view with its Origin rule and its sign-in; now is
// the clock the credentials are minted and checked by.
func (s *Server) viewHandler(now func() time.Time) http.Handler {
	token, logger := s.token, s.o.Logger
	creds := newViewCredentials(token, viewCredentialTTL)
	want := sha256.Sum256([]byte(token))
	isToken := func(got string) bool {
		sum := sha256.Sum256([]byte(got))
		return subtle.ConstantTimeCompare(sum[:], want[:]) == 1
	}
	authorized := func(r *http.Request) bool {
		if token == "" {
			return true
		}
		got, given := bearer(r.Header.Get("Authorization"))
		if !given {
			return false
		}
		if strings.HasPrefix(got, viewCredentialPrefix) {
			return creds.valid(got, now())
		}
		return isToken(got)
	}
	answer := func(w http.ResponseWriter) {
		at := now()
		cred, end := creds.mint(at)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		json.NewEncoder(w).Encode(viewCredentialAnswer{Credential: cred, ExpiresIn: int(end.Sub(at).Seconds())}) //nolint:errcheck // the browser went away
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origin, ok := ownOrigin(r); !ok {
			logger.Debug("http: view refused another origin", "remote", r.RemoteAddr)
			http.Error(w, fmt.Sprintf("Forbidden: Origin %q is not the view's own (%s)", origin, r.Host), http.StatusForbidden)
			return
		}
		switch p := r.URL.Path; {
		case p == "/view/login" && r.Method == http.MethodPost:
			got, err := postedToken(w, r)
			if err != nil {
				http.Error(w, "Bad Request: post {\"token\": \"...\"} as application/json", http.StatusBadRequest)
				return
			}
			if token != "" && !isToken(got) {
				logger.Debug("http: view sign-in refused", "remote", r.RemoteAddr)
				http.Error(w, "Forbidden: wrong token. Give the token tmux-mcp serves HTTP with.", http.StatusForbidden)
				return
			}
			answer(w)
		case p == "/view/renew" && r.Method == http.MethodPost && authorized(r):
			answer(w)
		case viewPublic(r):
			if _, err := r.Cookie(oldViewCookie); err == nil {
				// An earlier tmux-mcp's sign-in, which the browser sends
				// to every port of the host: end it.
				http.SetCookie(w, &http.Cookie{Name: oldViewCookie, Value: "", Path: "/view/", MaxAge: -1, HttpOnly: true})
			}
			s.view.ServeHTTP(w, r)
		case authorized(r):
			s.view.ServeHTTP(w, r)
		default:
			logger.Debug("http: view refused", "remote", r.RemoteAddr)
			w.Header().Set("WWW-Authenticate", `Bearer realm="tmux-mcp view"`)
			http.Error(w, "Unauthorized: sign in at /view/login with the token tmux-mcp serves HTTP with", http.StatusUnauthorized)
		}
	})
}

// postedToken reads the token a sign-in posts: {"token": ...} as
// application/json, or a form's token field.
func postedToken(w http.ResponseWriter, r *http.Request) (string, error) {
	r.Body = http.MaxBytesReader(w, r.Body, 4096)
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct == "application/json" {
		var in struct {
			Token string `json:"token"`
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			return "", fmt.Errorf("sign-in body: %w", err)
		}
		return strings.TrimSpace(in.Token), nil
	}
	if err := r.ParseForm(); err != nil {
		return "", fmt.Errorf("sign-in form: %w", err)
	}
	return strings.TrimSpace(r.PostFormValue("token")), nil
}
