package httpmcp

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
)

// What a client without the right token is told.
//
// tmux-mcp takes a static bearer token and does no OAuth. MCP clients
// take any 401 for the start of the MCP authorization flow, whatever its
// WWW-Authenticate says (tried on Claude Code 2.1.332, Codex CLI 0.171,
// Gemini CLI 0.61 and the MCP Inspector 2.12): they look for OAuth
// metadata, register themselves, and tell the user to log in ("Run `codex
// mcp login`", "/mcp auth", "Interactive OAuth requires a TTY", "Dynamic
// Client Registration rejected"), never what the server said. So a
// request without a bearer token gets 400 (RFC 6750's invalid_request:
// a required parameter is missing) and one with another token 403
// (invalid_token: the credentials given are refused), each with a body
// that says what to do; all four clients show that body. The OAuth
// discovery paths (/.well-known/oauth-protected-resource,
// /.well-known/oauth-authorization-server, and every other path but /mcp
// and the live view's /view/) answer 404, as a server without
// authorization metadata does.

// tokenHelp says where the token comes from, for the refusals.
type tokenHelp struct {
	// url is where MCP is served.
	url string
	// where says where the token is; value is a shell expression that
	// gives it, for the client lines.
	where, value string
}

// newTokenHelp describes the server's token. A server that others may
// reach (--http-allow-remote) does not name its files.
func newTokenHelp(s *Server, url string) tokenHelp {
	h := tokenHelp{url: url, value: "$(cat TOKEN_FILE)"}
	switch {
	case s.tokenFile == "":
		h.where, h.value = "The token is the $TMUX_MCP_HTTP_TOKEN tmux-mcp was started with.", "<token>"
	case s.o.AllowRemote:
		h.where = "The token is in the file tmux-mcp logged when it started (token_file=TOKEN_FILE)."
	case s.generated:
		h.where = "The token is in " + s.tokenFile + ", new at each start unless --http-token-file or $TMUX_MCP_HTTP_TOKEN gives one."
		h.value = "$(cat " + s.tokenFile + ")"
	default:
		h.where = "The token is in " + s.tokenFile + " (--http-token-file)."
		h.value = "$(cat " + s.tokenFile + ")"
	}
	return h
}

// text is a refusal's body: why, then what to do, with each client's
// line. Claude Code shows the first 500 characters or so on one line, and
// the client lines come after what every client needs.
func (h tokenHelp) text(why string) string {
	v := h.value
	return fmt.Sprintf("tmux-mcp: %s Send the header \"Authorization: Bearer <token>\" (tmux-mcp does not do OAuth). %s\n"+
		"  Claude Code: claude mcp add --transport http tmux-mcp %s --header \"Authorization: Bearer %s\"\n"+
		"  Codex CLI:   codex mcp add tmux-mcp --url %s --bearer-token-env-var TMUX_MCP_HTTP_TOKEN, and start codex with TMUX_MCP_HTTP_TOKEN=%s\n"+
		"  Gemini CLI:  gemini mcp add -s user -t http -H \"Authorization: Bearer %s\" tmux-mcp %s\n",
		why, h.where, h.url, v, h.url, v, v, h.url)
}

// requireBearer answers a request whose Authorization header does not
// carry the token: 400 without a bearer token, 403 with another one (see
// above). The comparison takes the same time whatever the guess: both
// sides are hashed to one length, then compared in constant time. The
// token never reaches a log.
func requireBearer(token string, help tokenHelp, logger *slog.Logger, next http.Handler) http.Handler {
	want := sha256.Sum256([]byte(token))
	missing := help.text("no bearer token.")
	wrong := help.text("wrong bearer token (a client that kept an earlier start's token must read it again).")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, given := bearer(r.Header.Get("Authorization"))
		sum := sha256.Sum256([]byte(got))
		if given && subtle.ConstantTimeCompare(sum[:], want[:]) == 1 {
			next.ServeHTTP(w, r)
			return
		}
		logger.Debug("http: refused", "remote", r.RemoteAddr, "token_given", given)
		if !given {
			w.Header().Set("WWW-Authenticate", `Bearer realm="tmux-mcp", error="invalid_request", error_description="no bearer token"`)
			http.Error(w, missing, http.StatusBadRequest)
			return
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="tmux-mcp", error="invalid_token"`)
		http.Error(w, wrong, http.StatusForbidden)
	})
}

// notFound answers every path but /mcp and the view's, the OAuth
// discovery paths among them, with 404 and where MCP is.
func notFound(url string) http.Handler {
	msg := "404 page not found: tmux-mcp serves MCP at " + url + " only; it does not do OAuth " +
		"(no authorization server, no client registration): send the header \"Authorization: Bearer <token>\"."
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, msg, http.StatusNotFound)
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
