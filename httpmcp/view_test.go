package httpmcp

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// viewTestToken is the token of the view's tests.
const viewTestToken = "a-token-of-enough-length-0123456789"

// viewUnderTest is the view's handler on a clock the test moves.
type viewUnderTest struct {
	h   http.Handler
	now time.Time
}

func newViewUnderTest(t *testing.T, o Options) *viewUnderTest {
	t.Helper()
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	s.SetView(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("view " + r.URL.Path)) }))
	v := &viewUnderTest{now: time.Unix(1_800_000_000, 0)}
	v.h = s.viewHandler(func() time.Time { return v.now })
	return v
}

// do sends a request to the view at 127.0.0.1:8765; body is posted as
// JSON when it is a string, as a form when url.Values.
func (v *viewUnderTest) do(method, path string, body any, header map[string]string) *httptest.ResponseRecorder {
	var r *http.Request
	switch b := body.(type) {
	case string:
		r = httptest.NewRequest(method, path, strings.NewReader(b))
		r.Header.Set("Content-Type", "application/json")
	case url.Values:
		r = httptest.NewRequest(method, path, strings.NewReader(b.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	default:
		r = httptest.NewRequest(method, path, nil)
	}
	r.Host = "127.0.0.1:8765"
	for k, val := range header {
		r.Header.Set(k, val)
	}
	w := httptest.NewRecorder()
	v.h.ServeHTTP(w, r)
	return w
}

// credential signs in with token and returns the credential answered.
func (v *viewUnderTest) credential(t *testing.T, token string) viewCredentialAnswer {
	t.Helper()
	w := v.do(http.MethodPost, "/view/login", `{"token": "`+token+`"}`, map[string]string{"Origin": "http://127.0.0.1:8765"})
	var a viewCredentialAnswer
	if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &a) != nil || a.Credential == "" {
		t.Fatalf("sign-in: %d %q, want 200 and a credential", w.Code, w.Body.String())
	}
	return a
}

// TestViewSignIn: the view's routes: the page, its assets and the
// sign-in page public; the data for the bearer token or a view
// credential, which signing in answers (never a cookie, never holding
// the token), lasts 15 minutes and is renewed with itself; nothing for a
// wrong token, a credential of another token, an ended one, or a cookie;
// a browser's request from another origin (another loopback port among
// them) refused whatever it holds; without a token (--http-no-auth) open.
func TestViewSignIn(t *testing.T) {
	v := newViewUnderTest(t, Options{Addr: "127.0.0.1:0", Token: viewTestToken})
	a := v.credential(t, viewTestToken)
	if a.ExpiresIn != 900 || strings.Contains(a.Credential, viewTestToken) {
		t.Errorf("credential %+v: want 900 s, not holding the token", a)
	}
	signIn := v.do(http.MethodPost, "/view/login", `{"token": "`+viewTestToken+`"}`, nil)
	if c := signIn.Result().Cookies(); len(c) != 0 || signIn.Header().Get("Cache-Control") != "no-store" {
		t.Errorf("sign-in set cookies %v, Cache-Control %q; want none, no-store", c, signIn.Header().Get("Cache-Control"))
	}
	other := newViewUnderTest(t, Options{Addr: "127.0.0.1:0", Token: viewTestToken + "-another"}).credential(t, viewTestToken+"-another")
	oldCookie := func() string { // what earlier versions set
		m := hmac.New(sha256.New, []byte(viewTestToken))
		m.Write([]byte("tmux-mcp view cookie"))
		return hex.EncodeToString(m.Sum(nil))
	}()
	cred := map[string]string{"Authorization": "Bearer " + a.Credential}
	with := func(h map[string]string, k, val string) map[string]string {
		out := map[string]string{k: val}
		for hk, hv := range h {
			out[hk] = hv
		}
		return out
	}
	for _, c := range []struct {
		name, method, path string
		body               any
		header             map[string]string
		want               int
	}{
		{"page, public", http.MethodGet, "/view/", nil, nil, http.StatusOK},
		{"asset, public", http.MethodGet, "/view/assets/view.js", nil, nil, http.StatusOK},
		{"sign-in page, public", http.MethodGet, "/view/login", nil, nil, http.StatusOK},
		{"stream, nothing", http.MethodGet, "/view/stream", nil, nil, http.StatusUnauthorized},
		{"input, nothing", http.MethodPost, "/view/input", `{}`, nil, http.StatusUnauthorized},
		{"an unknown path is data", http.MethodGet, "/view/other", nil, nil, http.StatusUnauthorized},
		{"a POST to the page is data", http.MethodPost, "/view/", `{}`, nil, http.StatusUnauthorized},
		{"stream, the token", http.MethodGet, "/view/stream", nil, map[string]string{"Authorization": "Bearer " + viewTestToken}, http.StatusOK},
		{"stream, a wrong token", http.MethodGet, "/view/stream", nil, map[string]string{"Authorization": "Bearer " + viewTestToken + "x"}, http.StatusUnauthorized},
		{"stream, the credential", http.MethodGet, "/view/stream", nil, cred, http.StatusOK},
		{"input, the credential", http.MethodPost, "/view/input", `{}`, cred, http.StatusOK},
		{"stream, the credential, own origin", http.MethodGet, "/view/stream", nil, with(cred, "Origin", "http://127.0.0.1:8765"), http.StatusOK},
		{"stream, the credential of another token", http.MethodGet, "/view/stream", nil, map[string]string{"Authorization": "Bearer " + other.Credential}, http.StatusUnauthorized},
		{"stream, the credential as a cookie", http.MethodGet, "/view/stream", nil, map[string]string{"Cookie": "tmux_mcp_view=" + a.Credential}, http.StatusUnauthorized},
		{"stream, an earlier version's cookie", http.MethodGet, "/view/stream", nil, map[string]string{"Cookie": "tmux_mcp_view=" + oldCookie}, http.StatusUnauthorized},
		{"stream, the credential, another loopback port", http.MethodGet, "/view/stream", nil, with(cred, "Origin", "http://127.0.0.1:9999"), http.StatusForbidden},
		{"input, the credential, another loopback port", http.MethodPost, "/view/input", `{}`, with(cred, "Origin", "http://127.0.0.1:9999"), http.StatusForbidden},
		{"input, the credential, Origin null", http.MethodPost, "/view/input", `{}`, with(cred, "Origin", "null"), http.StatusForbidden},
		{"renew, another loopback port", http.MethodPost, "/view/renew", nil, with(cred, "Origin", "http://localhost:8765"), http.StatusForbidden},
		{"page, another loopback port", http.MethodGet, "/view/", nil, map[string]string{"Origin": "http://127.0.0.1:9999"}, http.StatusForbidden},
		{"sign-in, another loopback port", http.MethodPost, "/view/login", `{"token": "` + viewTestToken + `"}`, map[string]string{"Origin": "http://127.0.0.1:9999"}, http.StatusForbidden},
		{"sign-in as a form", http.MethodPost, "/view/login", url.Values{"token": {viewTestToken}}, nil, http.StatusOK},
		{"sign-in, a wrong token", http.MethodPost, "/view/login", `{"token": "nope"}`, nil, http.StatusForbidden},
		{"sign-in, the token in the query", http.MethodPost, "/view/login?token=" + viewTestToken, url.Values{}, nil, http.StatusForbidden},
		{"sign-in, not JSON", http.MethodPost, "/view/login", `token`, nil, http.StatusBadRequest},
		{"renew, nothing", http.MethodPost, "/view/renew", nil, nil, http.StatusUnauthorized},
		{"renew, the credential of another token", http.MethodPost, "/view/renew", nil, map[string]string{"Authorization": "Bearer " + other.Credential}, http.StatusUnauthorized},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := v.do(c.method, c.path, c.body, c.header).Code; got != c.want {
				t.Errorf("%s %s: %d, want %d", c.method, c.path, got, c.want)
			}
		})
	}

	t.Run("renewed before it ends, ended after", func(t *testing.T) {
		v.now = v.now.Add(10 * time.Minute)
		w := v.do(http.MethodPost, "/view/renew", nil, cred)
		var renewed viewCredentialAnswer
		if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &renewed) != nil || renewed.Credential == a.Credential {
			t.Fatalf("renew at 10 min: %d %q, want 200 and a new credential", w.Code, w.Body.String())
		}
		v.now = v.now.Add(5 * time.Minute) // 15 min since the sign-in
		if got := v.do(http.MethodGet, "/view/stream", nil, cred).Code; got != http.StatusUnauthorized {
			t.Errorf("the first credential at its end: %d, want 401", got)
		}
		if got := v.do(http.MethodPost, "/view/renew", nil, cred).Code; got != http.StatusUnauthorized {
			t.Errorf("renewing the first credential at its end: %d, want 401", got)
		}
		if got := v.do(http.MethodGet, "/view/stream", nil, map[string]string{"Authorization": "Bearer " + renewed.Credential}).Code; got != http.StatusOK {
			t.Errorf("the renewed credential 5 min after: %d, want 200", got)
		}
	})

	t.Run("an earlier version's cookie is ended", func(t *testing.T) {
		w := v.do(http.MethodGet, "/view/", nil, map[string]string{"Cookie": "tmux_mcp_view=" + oldCookie})
		cs := w.Result().Cookies()
		if len(cs) != 1 || cs[0].Name != "tmux_mcp_view" || cs[0].MaxAge >= 0 || cs[0].Path != "/view/" {
			t.Errorf("cookies set %v, want tmux_mcp_view expired at /view/", cs)
		}
	})

	open := newViewUnderTest(t, Options{Addr: "127.0.0.1:0", NoAuth: true})
	if got := open.do(http.MethodGet, "/view/stream", nil, nil).Code; got != http.StatusOK {
		t.Errorf("--http-no-auth: stream %d, want 200", got)
	}
	if got := open.do(http.MethodGet, "/view/stream", nil, map[string]string{"Origin": "http://127.0.0.1:9999"}).Code; got != http.StatusForbidden {
		t.Errorf("--http-no-auth: stream from another port %d, want 403", got)
	}
}

// TestViewCredential: a credential is valid for its TTL and no longer,
// under the key of its own token only, and not when any byte of it is
// changed.
func TestViewCredential(t *testing.T) {
	at := time.Unix(1_800_000_000, 0)
	c := newViewCredentials(viewTestToken, 15*time.Minute)
	cred, end := c.mint(at)
	if !end.Equal(at.Add(15 * time.Minute)) {
		t.Errorf("end %v, want %v", end, at.Add(15*time.Minute))
	}
	endText := strings.Split(cred, ".")[1]
	tampered := []byte(cred)
	tampered[len(tampered)-1] ^= 1
	for _, tc := range []struct {
		name string
		c    viewCredentials
		cred string
		now  time.Time
		want bool
	}{
		{"at once", c, cred, at, true},
		{"a second before its end", c, cred, end.Add(-time.Second), true},
		{"at its end", c, cred, end, false},
		{"after its end", c, cred, end.Add(time.Hour), false},
		{"before it was minted (the clock went back)", c, cred, at.Add(-time.Hour), false},
		{"another token's key", newViewCredentials(viewTestToken+"x", 15*time.Minute), cred, at, false},
		{"a byte of the MAC changed", c, string(tampered), at, false},
		{"a later end under the same MAC", c, strings.Replace(cred, endText, endText[:len(endText)-1]+"9", 1), at, false},
		{"a leading zero", c, strings.Replace(cred, endText, "0"+endText, 1), at, false},
		{"no prefix", c, strings.TrimPrefix(cred, viewCredentialPrefix), at, false},
		{"empty", c, "", at, false},
		{"no MAC", c, viewCredentialPrefix + endText, at, false},
		{"the token", c, viewTestToken, at, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.c.valid(tc.cred, tc.now); got != tc.want {
				t.Errorf("valid(%q) at %v = %v, want %v", tc.cred, tc.now.Sub(at), got, tc.want)
			}
		})
	}
}

// TestOwnOrigin: the view takes a browser's request from its own origin
// only: the scheme's default port counts, another port or host does not.
func TestOwnOrigin(t *testing.T) {
	for _, c := range []struct {
		host, origin string
		want         bool
	}{
		{"127.0.0.1:8765", "", true},
		{"127.0.0.1:8765", "http://127.0.0.1:8765", true},
		{"127.0.0.1:8765", "HTTP://127.0.0.1:8765", true},
		{"localhost:8765", "http://LOCALHOST:8765", true},
		{"[::1]:8765", "http://[::1]:8765", true},
		{"view.example", "https://view.example", true}, // behind a TLS proxy
		{"view.example:443", "https://view.example", true},
		{"127.0.0.1:8765", "http://127.0.0.1:9999", false},
		{"127.0.0.1:8765", "http://localhost:8765", false},
		{"127.0.0.1:8765", "http://127.0.0.1", false},
		{"127.0.0.1", "http://127.0.0.1:8765", false},
		{"view.example", "http://view.example:8080", false},
		{"127.0.0.1:8765", "null", false},
		{"127.0.0.1:8765", "file://", false},
		{"127.0.0.1:8765", "ws://127.0.0.1:8765", false},
		{"127.0.0.1:8765", "http://user@127.0.0.1:8765", false},
		{"127.0.0.1:8765", "http://127.0.0.1:8765/view/", false},
	} {
		r := httptest.NewRequest(http.MethodGet, "/view/stream", nil)
		r.Host = c.host
		if c.origin != "" {
			r.Header.Set("Origin", c.origin)
		}
		if _, got := ownOrigin(r); got != c.want {
			t.Errorf("Host %s, Origin %q: %v, want %v", c.host, c.origin, got, c.want)
		}
	}
}
