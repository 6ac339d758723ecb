package httpmcp

import (
	"log/slog"
	"time"
)

// Options are the settings of the HTTP transport. cmd/tmux-mcp fills them
// from its flags and environment (the flag each field comes from is
// named, and the refusals name the flags too). A zero bound takes its
// default (DefaultMaxBody and the others).
type Options struct {
	// Addr is the TCP host:port to listen on (--http); Socket is a unix
	// socket to listen on instead (--http-socket). One of them, not both.
	Addr   string
	Socket string
	// AllowRemote lets Addr be a non-loopback address
	// (--http-allow-remote).
	AllowRemote bool
	// TokenFile is a file holding the bearer token (--http-token-file);
	// Token is the token itself ($TMUX_MCP_HTTP_TOKEN). Neither: Open
	// generates one. NoAuth serves without one (--http-no-auth).
	TokenFile string
	Token     string
	NoAuth    bool
	// Origins is the comma-separated list of browser origins let in
	// (--http-origins; DefaultOrigins is this machine's pages). Empty
	// lets in no browser origin.
	Origins string
	// MaxBody is the largest request body in bytes (--http-max-body).
	MaxBody int
	// ReadHeaderTimeout, ReadTimeout and IdleTimeout are the HTTP
	// server's (--http-read-header-timeout, --http-read-timeout,
	// --http-idle-timeout).
	ReadHeaderTimeout time.Duration
	ReadTimeout       time.Duration
	IdleTimeout       time.Duration
	// MaxConns bounds the connections open at once (--http-max-conns),
	// MaxSessions the MCP sessions (--http-max-sessions); SessionTTL ends
	// a session idle that long (--http-session-ttl).
	MaxConns    int
	MaxSessions int
	SessionTTL  time.Duration
	// DrainTimeout bounds shutdown: the sessions, the HTTP server and
	// the calls in flight (Drainer). Zero is 5s.
	DrainTimeout time.Duration
	// Logger gets the listening line, refusals (at debug) and shutdown;
	// nil logs nothing.
	Logger *slog.Logger
}

// withDefaults returns o with its zero bounds set to their defaults.
func (o Options) withDefaults() Options {
	setInt := func(v *int, def int) {
		if *v == 0 {
			*v = def
		}
	}
	setDuration := func(v *time.Duration, def time.Duration) {
		if *v == 0 {
			*v = def
		}
	}
	setInt(&o.MaxBody, DefaultMaxBody)
	setInt(&o.MaxConns, DefaultMaxConns)
	setInt(&o.MaxSessions, DefaultMaxSessions)
	setDuration(&o.ReadHeaderTimeout, DefaultReadHeaderTimeout)
	setDuration(&o.ReadTimeout, DefaultReadTimeout)
	setDuration(&o.IdleTimeout, DefaultIdleTimeout)
	setDuration(&o.SessionTTL, DefaultSessionTTL)
	setDuration(&o.DrainTimeout, 5*time.Second)
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}
