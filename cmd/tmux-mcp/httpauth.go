package main

import (
	"crypto/sha256"
	"crypto/subtle"
	"log/slog"
	"net/http"
	"strings"
)

// requireBearer answers 401 Unauthorized, with a WWW-Authenticate: Bearer
// challenge, to a request whose Authorization header does not carry the
// token. The comparison takes the same time whatever the guess: both
// sides are hashed to one length, then compared in constant time. The
// token never reaches a log.
func requireBearer(token string, logger *slog.Logger, next http.Handler) http.Handler {
	want := sha256.Sum256([]byte(token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, given := bearer(r.Header.Get("Authorization"))
		sum := sha256.Sum256([]byte(got))
		if given && subtle.ConstantTimeCompare(sum[:], want[:]) == 1 {
			next.ServeHTTP(w, r)
			return
		}
		challenge, msg := `Bearer realm="tmux-mcp"`, "Unauthorized: send Authorization: Bearer <token>"
		if given {
			challenge += `, error="invalid_token"`
			msg = "Unauthorized: wrong bearer token"
		}
		logger.Debug("http: unauthorized", "remote", r.RemoteAddr, "token_given", given)
		w.Header().Set("WWW-Authenticate", challenge)
		http.Error(w, msg, http.StatusUnauthorized)
	})
}

// bearer returns the token of an "Authorization: Bearer <token>" value;
// the scheme is case-insensitive (RFC 7235).
func bearer(header string) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}
