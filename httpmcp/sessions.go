package httpmcp

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// sessionCap is the session ID manager of the HTTP transport: it knows the
// live sessions and lets no more than limit of them be. mcp-go's stateful
// manager keeps every ID it ever issued (ended ones in a set of their
// own) and has no bound; here an ended session is forgotten, and an ID
// that is not live is unknown (404 either way).
type sessionCap struct {
	mu       sync.Mutex
	live     map[string]struct{}
	reserved int
	limit    int
}

var _ server.SessionIdManager = (*sessionCap)(nil)

func newSessionCap(limit int) *sessionCap {
	return &sessionCap{live: map[string]struct{}{}, limit: limit}
}

// errNoSession is Validate's answer for an ID that is not live.
var errNoSession = errors.New("no live session with this ID")

// Generate issues a session ID. At the cap (only when an initialize got
// past capSessions, which reserves a place first) the ID is not kept: the
// session ends with its first response.
func (s *sessionCap) Generate() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24)
	id := "mcp-session-" + hex.EncodeToString(b)
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.live) < s.limit {
		s.live[id] = struct{}{}
	}
	return id
}

// Validate reports whether id is a live session.
func (s *sessionCap) Validate(id string) (isTerminated bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.live[id]; !ok {
		return false, errNoSession
	}
	return false, nil
}

// Terminate ends a session: on the client's DELETE, when it has been idle
// for the session TTL, and at shutdown.
func (s *sessionCap) Terminate(id string) (isNotAllowed bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.live, id)
	return false, nil
}

// reserve holds a place for a session about to be initialized; false
// when the live and reserved ones fill the cap.
func (s *sessionCap) reserve() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.live)+s.reserved >= s.limit {
		return false
	}
	s.reserved++
	return true
}

// release gives back a place reserve held; by then the session it was
// for is live, or was never made.
func (s *sessionCap) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reserved--
}

// capSessions answers 503 Service Unavailable to an initialize when
// sessions are at the cap, and holds a place for the session while the
// initialize runs, so concurrent ones cannot overshoot. It needs the body
// read whole (limitBody runs first).
func capSessions(s *sessionCap, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get(server.HeaderKeySessionID) != "" ||
			mcp.IsModernProtocol(r.Header.Get(mcp.HeaderProtocolVersion)) {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, "Bad Request: reading the body: "+err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		var msg struct {
			Method string `json:"method"`
		}
		if json.Unmarshal(body, &msg) != nil || msg.Method != string(mcp.MethodInitialize) {
			next.ServeHTTP(w, r)
			return
		}
		if !s.reserve() {
			http.Error(w, fmt.Sprintf("Service Unavailable: %d MCP sessions are open (--http-max-sessions); "+
				"end one (DELETE) or wait for idle ones to expire (--http-session-ttl)", s.limit), http.StatusServiceUnavailable)
			return
		}
		defer s.release()
		next.ServeHTTP(w, r)
	})
}
