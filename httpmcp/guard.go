package httpmcp

import (
	"net/http"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// requireSessionForGET guards the streamable HTTP transport's notification
// stream (GET), which mcp-go opens for any request, session or not, and
// holds: a GET without an Mcp-Session-Id gets 400 Bad Request, and one
// whose session was never initialized or has ended gets 404 Not Found (as
// a POST does, and as the transport specifies, so the client starts a new
// session). sessions is the HTTP server's session ID manager. Requests of
// protocol 2026-07-28, which has no GET stream, pass through: mcp-go
// answers them 405 and names subscriptions/listen.
func requireSessionForGET(sessions server.SessionIdManager, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && !mcp.IsModernProtocol(r.Header.Get(mcp.HeaderProtocolVersion)) {
			id := r.Header.Get(server.HeaderKeySessionID)
			if id == "" {
				http.Error(w, "Bad Request: GET needs the Mcp-Session-Id of an initialized session", http.StatusBadRequest)
				return
			}
			if terminated, err := sessions.Validate(id); err != nil || terminated {
				http.Error(w, "Not Found: no live session with this Mcp-Session-Id; initialize a new one", http.StatusNotFound)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}
