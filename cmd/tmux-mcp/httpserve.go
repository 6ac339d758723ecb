package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"

	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/tools"
)

// httpPlan is how --http or --http-socket serves: decided and checked
// before anything starts, opened (listener, generated token) before the
// supervisor starts.
type httpPlan struct {
	c       config
	origins []originRule
	// token is the bearer token requests must carry; "" with
	// --http-no-auth.
	token string
	// tokenFile is the file the token was read from or generated into;
	// generated says it is ours to remove at exit.
	tokenFile string
	generated bool
	ln        net.Listener
}

// planHTTP checks the HTTP settings and reads a given token. It refuses
// what would let others in: a non-loopback address without
// --http-allow-remote, and --http-no-auth with it.
func planHTTP(c config) (*httpPlan, error) {
	switch {
	case c.HTTP != "" && c.HTTPSocket != "":
		return nil, errors.New("give --http or --http-socket, not both")
	case c.HTTP != "":
		if err := checkListenAddr(c.HTTP, c.HTTPAllowRemote); err != nil {
			return nil, err
		}
	}
	origins, err := parseOrigins(c.HTTPOrigins)
	if err != nil {
		return nil, fmt.Errorf("--http-origins: %w", err)
	}
	p := &httpPlan{c: c, origins: origins}
	if c.HTTPNoAuth {
		switch {
		case c.HTTPAllowRemote:
			return nil, errors.New("--http-allow-remote refuses --http-no-auth: whoever reaches the port could run commands as you; " +
				"use the token (generated, --http-token-file or $TMUX_MCP_HTTP_TOKEN) and put TLS in front")
		case c.HTTPTokenFile != "" || c.HTTPToken != "":
			return nil, errors.New("--http-no-auth and a token (--http-token-file or $TMUX_MCP_HTTP_TOKEN) contradict each other")
		}
		return p, nil
	}
	if p.token, err = givenToken(c); err != nil {
		return nil, err
	}
	p.tokenFile = c.HTTPTokenFile
	return p, nil
}

// open listens, then generates the token when none was given, into a
// file named after the address it guards.
func (p *httpPlan) open(getenv func(string) string) error {
	ln, err := listenHTTP(p.c)
	if err != nil {
		return err
	}
	p.ln = ln
	if p.token != "" || p.c.HTTPNoAuth {
		return nil
	}
	dir, err := tokenDir(getenv)
	if err == nil {
		if p.token, err = newToken(); err == nil {
			p.tokenFile, err = writeToken(dir, tokenFileName(ln.Addr().String()), p.token)
		}
	}
	if err != nil {
		ln.Close()
		return fmt.Errorf("http token: %w", err)
	}
	p.generated = true
	return nil
}

// close removes a generated token file: the token dies with the process.
func (p *httpPlan) close() {
	if p.generated {
		os.Remove(p.tokenFile)
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

// serveHTTP serves streamable HTTP at /mcp on the plan's listener until
// ctx ends. Around mcp-go's handler, outermost first: browser checks
// (Host, Origin: 403), the bearer token (400 without one, 403 with
// another: see httpauth.go), the body limit (413), the session cap (503),
// and a session for the notification stream (GET). Every other path is
// 404, without a token too: OAuth discovery finds nothing.
func serveHTTP(ctx context.Context, ts *tools.Server, p *httpPlan, logger *slog.Logger) error {
	c := p.c
	sessions := newSessionCap(c.HTTPMaxSessions)
	h := server.NewStreamableHTTPServer(ts.MCP, server.WithEndpointPath("/mcp"),
		server.WithStreamableHTTPLogger(logger), server.WithSessionIdManager(sessions),
		server.WithSessionIdleTTL(c.HTTPSessionTTL))
	url := "http://" + p.ln.Addr().String() + "/mcp"
	if c.HTTPSocket != "" {
		url = "http://localhost/mcp"
	}
	var mcpHandler http.Handler = limitBody(int64(c.HTTPMaxBody), capSessions(sessions, requireSessionForGET(sessions, h)))
	if p.token != "" {
		mcpHandler = requireBearer(p.token, newTokenHelp(p, url), logger, mcpHandler)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcpHandler)
	mux.Handle("/", notFound(url))
	hs := &http.Server{
		Handler:           guardBrowser(p.origins, mux),
		ReadHeaderTimeout: c.HTTPReadHeader,
		ReadTimeout:       c.HTTPRead,
		IdleTimeout:       c.HTTPIdle,
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(limitConns(p.ln, c.HTTPMaxConns)) }()
	attrs := []any{"url", url}
	if c.HTTPSocket != "" {
		attrs = append(attrs, "socket", c.HTTPSocket)
	}
	switch {
	case p.token == "":
		attrs = append(attrs, "auth", "none")
	case p.tokenFile != "":
		attrs = append(attrs, "auth", "bearer", "token_file", p.tokenFile)
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
	ts.BeginShutdown()
	sctx, cancel := context.WithTimeout(context.Background(), drainTimeout)
	defer cancel()
	// Ends the sessions (their streams) and the idle-session sweeper.
	if err := h.Shutdown(sctx); err != nil {
		logger.Warn("mcp http shutdown", "err", err)
	}
	if err := hs.Shutdown(sctx); err != nil {
		logger.Warn("http shutdown", "err", err)
	}
	if err := ts.Drain(sctx); err != nil {
		logger.Warn("drain", "err", err)
	}
	logger.Info("tmux-mcp stopped")
	return nil
}
