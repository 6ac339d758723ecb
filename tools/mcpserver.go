package tools

import (
	"context"
	"errors"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// Options configures New.
type Options struct {
	// Name and Version are the server's implementation info.
	Name, Version string
	// Toolsets selects groups by ID; nil selects all.
	Toolsets []string
	// DrainTimeout bounds how long calls in flight may run on after
	// shutdown began (5s).
	DrainTimeout time.Duration
	// NotifyEvery is the minimum interval between two resource list-changed
	// notifications (100ms).
	NotifyEvery time.Duration
}

// Server is an MCP server over a supervisor.
type Server struct {
	MCP      *server.MCPServer
	Tools    []Entry // the tools registered, sorted by group and name
	drain    *drain
	notifier *structureNotifier
}

// New builds the MCP server: the tools allowed at d.Tier in the selected
// toolsets (the others are not registered at all), the resources, the
// instructions, and the middleware. Close it to stop event delivery.
func New(d Deps, opts Options) (*Server, error) {
	if d.Sup == nil {
		return nil, errors.New("tools: Deps.Sup is nil")
	}
	if opts.Name == "" {
		opts.Name = "tmux-mcp"
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	if opts.DrainTimeout <= 0 {
		opts.DrainTimeout = 5 * time.Second
	}
	if opts.NotifyEvery <= 0 {
		opts.NotifyEvery = 100 * time.Millisecond
	}
	log := d.log()
	g := &drain{bound: opts.DrainTimeout}
	s := server.NewMCPServer(opts.Name, opts.Version,
		server.WithToolCapabilities(false),
		server.WithResourceCapabilities(false, true),
		server.WithInstructions(instructions(d, d.Sup.Config().DefaultSocket.String())),
		server.WithOutputSchemaValidation(),
		// Outermost first: logging sees panics as error results, drain
		// sees every call.
		server.WithToolHandlerMiddleware(g.middleware),
		server.WithToolHandlerMiddleware(logCalls(log)),
		server.WithToolHandlerMiddleware(recoverPanics(log)),
	)
	selected := Select(Catalog(d), d.Tier, opts.Toolsets)
	for _, e := range selected {
		s.AddTool(e.Tool, e.Handler)
	}
	addResources(s, d)
	srv := &Server{MCP: s, Tools: selected, drain: g}
	if src := d.events(); src != nil {
		srv.notifier = startNotifier(s, src, opts.NotifyEvery)
	}
	return srv, nil
}

// BeginShutdown marks the server as shutting down: from now on a call
// whose transport goes away keeps running for up to the drain bound.
func (s *Server) BeginShutdown() { s.drain.stopping.Store(true) }

// Drain waits for calls in flight, at most until ctx ends.
func (s *Server) Drain(ctx context.Context) error { return s.drain.wait(ctx) }

// Close stops resource notifications.
func (s *Server) Close() error {
	if s.notifier != nil {
		s.notifier.close()
	}
	return nil
}
