package httpmcp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// Server is how --http or --http-socket serves: decided and checked by
// New before anything starts, opened by Open (listener, generated token)
// before the rest of tmux-mcp starts, then served by Serve.
type Server struct {
	o       Options
	origins []originRule
	// token is the bearer token requests must carry; "" with
	// --http-no-auth.
	token string
	// tokenFile is the file the token was read from or generated into;
	// generated says it is ours to remove at exit.
	tokenFile string
	generated bool
	ln        net.Listener
	// view serves the live view (SetView); nil: no view.
	view http.Handler
}

// New checks the options and reads a given token. It refuses what would
// let others in: a non-loopback address without --http-allow-remote
// (Options.AllowRemote), and --http-no-auth with it.
func New(o Options) (*Server, error) {
	o = o.withDefaults()
	switch {
	case o.Addr != "" && o.Socket != "":
		return nil, errors.New("give --http or --http-socket, not both")
	case o.Addr != "":
		if err := checkListenAddr(o.Addr, o.AllowRemote); err != nil {
			return nil, err
		}
	}
	origins, err := parseOrigins(o.Origins)
	if err != nil {
		return nil, fmt.Errorf("--http-origins: %w", err)
	}
	s := &Server{o: o, origins: origins}
	if o.NoAuth {
		switch {
		case o.AllowRemote:
			return nil, errors.New("--http-allow-remote refuses --http-no-auth: whoever reaches the port could run commands as you; " +
				"use the token (generated, --http-token-file or $TMUX_MCP_HTTP_TOKEN) and put TLS in front")
		case o.TokenFile != "" || o.Token != "":
			return nil, errors.New("--http-no-auth and a token (--http-token-file or $TMUX_MCP_HTTP_TOKEN) contradict each other")
		}
		return s, nil
	}
	if s.token, err = givenToken(o); err != nil {
		return nil, err
	}
	s.tokenFile = o.TokenFile
	return s, nil
}

// Open listens, then generates the token when none was given, into a
// file named after the address it guards (under $XDG_RUNTIME_DIR/tmux-mcp,
// else $XDG_STATE_HOME/tmux-mcp, else ~/.local/state/tmux-mcp, as getenv
// reads them). A unix socket is made under a process-wide umask: call Open
// before anything else of the process starts.
func (s *Server) Open(getenv func(string) string) error {
	ln, err := listen(s.o)
	if err != nil {
		return err
	}
	s.ln = ln
	if s.token != "" || s.o.NoAuth {
		return nil
	}
	dir, err := tokenDir(getenv)
	if err == nil {
		if s.token, err = newToken(); err == nil {
			s.tokenFile, err = writeToken(dir, tokenFileName(ln.Addr().String()), s.token)
		}
	}
	if err != nil {
		ln.Close()
		return fmt.Errorf("http token: %w", err)
	}
	s.generated = true
	return nil
}

// Close removes a generated token file: the token dies with the process.
func (s *Server) Close() {
	if s.generated {
		os.Remove(s.tokenFile)
	}
}

// checkListenAddr refuses non-loopback addresses unless allowed.
func checkListenAddr(addr string, allowRemote bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--http %q: want host:port: %w", addr, err)
	}
	if allowRemote {
		return nil
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("--http %q is not a loopback address; pass --http-allow-remote to serve other hosts "+
		"(with the bearer token, and TLS in front: see the README)", addr)
}

// Drainer is the MCP server behind the transport, as it stops: Serve
// calls BeginShutdown once ctx ends, shuts the HTTP server, then waits
// with Drain for the calls in flight (tools.Server is one).
type Drainer interface {
	BeginShutdown()
	Drain(ctx context.Context) error
}

// Serve serves streamable HTTP at /mcp on the listener Open opened until
// ctx ends, then shuts down within Options.DrainTimeout. Around mcp-go's
// handler of mcpServer, outermost first: browser checks (Host, Origin:
// 403), the bearer token (400 without one, 403 with another: see
// auth.go), the body limit (413), the session cap (503), and a session
// for the notification stream (GET), then each of layers (the first
// outermost; tmux-mcp's MCP tasks), then mcp-go. With a view (SetView),
// /view/ is the view behind checks of its own (view.go) and /view
// redirects there. Every other path is 404, without a token too: OAuth
// discovery finds nothing.
func (s *Server) Serve(ctx context.Context, mcpServer *server.MCPServer, d Drainer, layers ...func(http.Handler) http.Handler) error {
	o, logger := s.o, s.o.Logger
	sessions := newSessionCap(o.MaxSessions)
	h := server.NewStreamableHTTPServer(mcpServer, server.WithEndpointPath("/mcp"),
		server.WithStreamableHTTPLogger(logger), server.WithSessionIdManager(sessions),
		server.WithSessionIdleTTL(o.SessionTTL))
	url := "http://" + s.ln.Addr().String() + "/mcp"
	if o.Socket != "" {
		url = "http://localhost/mcp"
	}
	var inner http.Handler = h
	for i := len(layers) - 1; i >= 0; i-- {
		inner = layers[i](inner)
	}
	var mcpHandler http.Handler = limitBody(int64(o.MaxBody), capSessions(sessions, requireSessionForGET(sessions, inner)))
	if s.token != "" {
		mcpHandler = requireBearer(s.token, newTokenHelp(s, url), logger, mcpHandler)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcpHandler)
	if s.view != nil {
		mux.Handle("/view/", s.viewHandler(time.Now))
		mux.Handle("/view", http.RedirectHandler("/view/", http.StatusMovedPermanently))
	}
	mux.Handle("/", notFound(url))
	hs := &http.Server{
		Handler:           guardBrowser(s.origins, mux),
		ReadHeaderTimeout: o.ReadHeaderTimeout,
		ReadTimeout:       o.ReadTimeout,
		IdleTimeout:       o.IdleTimeout,
	}
	if c, ok := s.view.(interface{ Close() }); ok {
		// The view's event streams never go idle: end them, or the
		// shutdown waits for them the whole drain timeout.
		hs.RegisterOnShutdown(c.Close)
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(limitConns(s.ln, o.MaxConns)) }()
	attrs := []any{"url", url}
	if o.Socket != "" {
		attrs = append(attrs, "socket", o.Socket)
	}
	switch {
	case s.token == "":
		attrs = append(attrs, "auth", "none")
	case s.tokenFile != "":
		attrs = append(attrs, "auth", "bearer", "token_file", s.tokenFile)
	default:
		attrs = append(attrs, "auth", "bearer", "token_from", "$TMUX_MCP_HTTP_TOKEN")
	}
	logger.Info("listening", attrs...)
	select {
	case err := <-errc:
		return fmt.Errorf("http: %w", err)
	case <-ctx.Done():
	}
	logger.Info("signal received, shutting down")
	d.BeginShutdown()
	sctx, cancel := context.WithTimeout(context.Background(), o.DrainTimeout)
	defer cancel()
	// Ends the sessions (their streams) and the idle-session sweeper.
	if err := h.Shutdown(sctx); err != nil {
		logger.Warn("mcp http shutdown", "err", err)
	}
	if err := hs.Shutdown(sctx); err != nil {
		logger.Warn("http shutdown", "err", err)
	}
	if err := d.Drain(sctx); err != nil {
		logger.Warn("drain", "err", err)
	}
	logger.Info("tmux-mcp stopped")
	return nil
}
