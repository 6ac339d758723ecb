package httpmcp

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// TestViewSignIn: the view's routes behind the token: the sign-in page
// public, the page and its data for the bearer header or the cookie that
// signing in sets (an HMAC of the token, never the token), nothing for a
// wrong token or a forged cookie; without a token (--http-no-auth) open.
func TestViewSignIn(t *testing.T) {
	const token = "a-token-of-enough-length-0123456789"
	pages := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("page " + r.URL.Path)) })
	public := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("public " + r.URL.Path)) })
	newView := func(t *testing.T, o Options) http.Handler {
		t.Helper()
		s, err := New(o)
		if err != nil {
			t.Fatal(err)
		}
		s.SetView(pages, public)
		return s.viewHandler()
	}
	do := func(h http.Handler, method, path string, body url.Values, header map[string]string) *httptest.ResponseRecorder {
		var r *http.Request
		if body != nil {
			r = httptest.NewRequest(method, path, strings.NewReader(body.Encode()))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		} else {
			r = httptest.NewRequest(method, path, nil)
		}
		for k, v := range header {
			r.Header.Set(k, v)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}

	h := newView(t, Options{Addr: "127.0.0.1:0", Token: token})
	signIn := do(h, http.MethodPost, "/view/login", url.Values{"token": {token}}, nil)
	cookies := signIn.Result().Cookies()
	if signIn.Code != http.StatusSeeOther || len(cookies) != 1 {
		t.Fatalf("sign-in: %d with cookies %v, want 303 and one cookie", signIn.Code, cookies)
	}
	ck := cookies[0]
	if !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode || ck.Path != "/view/" || strings.Contains(ck.Value, token) {
		t.Errorf("cookie %+v: want HttpOnly, SameSite=Strict, path /view/, not holding the token", ck)
	}
	for _, c := range []struct {
		name, method, path string
		body               url.Values
		header             map[string]string
		want               int
		body0              string
	}{
		{"sign-in page", http.MethodGet, "/view/login", nil, nil, http.StatusOK, "public /view/login"},
		{"sign-in script", http.MethodGet, "/view/login.js", nil, nil, http.StatusOK, "public /view/login.js"},
		{"page, no token: to the sign-in", http.MethodGet, "/view/", nil, nil, http.StatusSeeOther, ""},
		{"stream, no token", http.MethodGet, "/view/stream", nil, nil, http.StatusUnauthorized, ""},
		{"bearer", http.MethodGet, "/view/stream", nil, map[string]string{"Authorization": "Bearer " + token}, http.StatusOK, "page /view/stream"},
		{"wrong bearer", http.MethodGet, "/view/stream", nil, map[string]string{"Authorization": "Bearer " + token + "x"}, http.StatusUnauthorized, ""},
		{"cookie", http.MethodGet, "/view/", nil, map[string]string{"Cookie": ck.Name + "=" + ck.Value}, http.StatusOK, "page /view/"},
		{"forged cookie", http.MethodGet, "/view/", nil, map[string]string{"Cookie": ck.Name + "=" + strings.Repeat("0", len(ck.Value))}, http.StatusSeeOther, ""},
		{"token as the cookie", http.MethodGet, "/view/stream", nil, map[string]string{"Cookie": ck.Name + "=" + token}, http.StatusUnauthorized, ""},
		{"wrong token at sign-in", http.MethodPost, "/view/login", url.Values{"token": {"nope"}}, nil, http.StatusForbidden, ""},
		{"sign-in page is GET only", http.MethodPut, "/view/login.js", nil, nil, http.StatusMethodNotAllowed, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := do(h, c.method, c.path, c.body, c.header)
			if got := w.Code; got != c.want {
				t.Errorf("%s %s: %d, want %d", c.method, c.path, got, c.want)
			}
			if c.body0 != "" && w.Body.String() != c.body0 {
				t.Errorf("%s %s: body %q, want %q", c.method, c.path, w.Body.String(), c.body0)
			}
			if c.want == http.StatusForbidden && len(w.Result().Cookies()) != 0 {
				t.Errorf("a refused sign-in set a cookie")
			}
		})
	}

	open := newView(t, Options{Addr: "127.0.0.1:0", NoAuth: true})
	if got := do(open, http.MethodGet, "/view/stream", nil, nil).Code; got != http.StatusOK {
		t.Errorf("--http-no-auth: stream %d, want 200", got)
	}
}
