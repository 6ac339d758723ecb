package taskext

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
)

// Whose a task is. A task belongs to the caller whose request made it,
// and to no one else: every other caller gets the answer of an ID that
// never existed, for every method of either protocol (tasks/get,
// tasks/update, tasks/cancel, tasks/result, tasks/list), for task
// notifications, and for the store's own views (tmux-mcp's list_jobs,
// get_job and stop_job read [Owner] too).
//
// Who the caller is, the transport says; the layer puts it in the
// context of each request it passes on, where handlers find it with
// [Owner]:
//
//   - stdio: the stream is one client (the process that started
//     tmux-mcp), whatever protocol its requests speak: every request of
//     it is the same caller, in this process and the next one.
//   - HTTP: the credential (the Authorization header) and the session
//     (the Mcp-Session-Id header) of the request. A client of 2025-11-25
//     or before has a session, which is one client. Protocol 2026-07-28
//     has no sessions: its requests are bound to the credential alone,
//     which every client that holds it shares, so such a task is found
//     only by its ID (128 random bits, sent to no one but its caller), and
//     listed to no one (a list would give its ID away).
//
// An owner is kept as a digest: neither the credential nor the session
// ID reaches the store.

// Owner is the caller a task is bound to.
type Owner struct {
	// Key names the caller; tasks of the same key are the caller's.
	Key string
	// Listed: the caller is one client (a stdio stream, an HTTP session),
	// whose tasks may be listed to it; a sessionless HTTP caller is
	// whoever holds its credential, and its tasks are listed to no one.
	Listed bool
}

// local is the caller of a request the layer did not see (tests that
// drive mcp-go in process): this process's one client.
var local = Owner{Key: "", Listed: true}

// stdioOwner is the client of a stdio stream.
var stdioOwner = Owner{Key: "stdio", Listed: true}

type ownerKey struct{}

// withOwner returns ctx carrying o.
func withOwner(ctx context.Context, o Owner) context.Context {
	return context.WithValue(ctx, ownerKey{}, o)
}

// OwnerOf returns the caller of the request ctx belongs to, as the layer
// found it.
func OwnerOf(ctx context.Context) Owner {
	if o, ok := ctx.Value(ownerKey{}).(Owner); ok {
		return o
	}
	return local
}

// httpOwner is the caller of an HTTP request with headers h: its
// credential and its session.
func httpOwner(h http.Header) Owner {
	session := h.Get("Mcp-Session-Id")
	sum := sha256.New()
	sum.Write([]byte("tmux-mcp task owner\x00"))
	sum.Write([]byte(credential(h.Get("Authorization"))))
	sum.Write([]byte{0})
	sum.Write([]byte(session))
	return Owner{Key: "http:" + hex.EncodeToString(sum.Sum(nil)[:16]), Listed: session != ""}
}

// credential is an Authorization value with its scheme's case folded
// (RFC 7235: the scheme is case-insensitive) and spaces trimmed.
func credential(v string) string {
	scheme, rest, ok := strings.Cut(strings.TrimSpace(v), " ")
	if !ok {
		return strings.ToLower(scheme)
	}
	return strings.ToLower(scheme) + " " + strings.TrimSpace(rest)
}

// Sees reports whether the caller o may act on a task of owner: it is
// the task's caller.
func (o Owner) Sees(owner string) bool { return o.Key == owner }

// Lists reports whether a list of the caller o shows a task of owner: it
// is o's, and o is one client.
func (o Owner) Lists(owner string) bool { return o.Listed && o.Key == owner }
