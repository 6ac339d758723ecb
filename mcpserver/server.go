package mcpserver

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/hosts"
	"github.com/tmux-mcp/tmux-mcp/jobrecord"
	"github.com/tmux-mcp/tmux-mcp/jobs"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/taskext"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// Tool is one tool the server registers: its schema and its handler.
// A hidden tool is registered but left out of tools/list; its handler is
// the one that refuses it (the tool layer's, which names the tier the
// tool needs).
type Tool struct {
	Tool    mcp.Tool
	Handler server.ToolHandlerFunc
	Hidden  bool
}

// Settings are the server's settings, as the binary's flags give them.
type Settings struct {
	// Name and Version are the server's implementation info.
	Name, Version string
	// DrainTimeout bounds how long calls in flight may run on after
	// shutdown began (5s).
	DrainTimeout time.Duration
	// NotifyEvery is the minimum interval between two notifications about
	// one thing: resource list changes, and updates of one subscribed
	// resource to one client (100ms).
	NotifyEvery time.Duration
	// ServerOptions are more mcp-go options (the binary's telemetry),
	// applied after tmux-mcp's own.
	ServerOptions []server.ServerOption
	// ValidateOutput checks every successful result against its tool's
	// output schema (a result that does not conform becomes an error
	// result). Tests turn it on; the binary leaves it off, because it
	// costs a JSON round trip and a schema walk on every call (about a
	// fifth of a read tool's CPU) for a property of the code, not of the
	// call: the results are Go structs whose shape the tool tests check
	// against the schemas.
	ValidateOutput bool
	// TaskBudget is how long a call of a client with MCP tasks may run
	// before it becomes a task (taskext.DefaultBudget).
	TaskBudget time.Duration
	// Hosts are the other machines calls may name (--host); nil: this
	// machine only, and no tool has a host argument.
	Hosts Hosts
	// TaskTracer traces MCP tasks and the requests about them (the
	// binary's telemetry); nil: none.
	TaskTracer taskext.Tracer
}

// Config is everything New needs: the server's settings, the tools, and
// the few answers only the tool layer can give, as functions.
type Config struct {
	Settings

	// Sup is the supervisor every tmux call goes through (required).
	Sup *supervisor.Supervisor
	// Events delivers supervisor events to the notifications; nil: none.
	Events EventSource
	// Log receives one record per tool call; nil discards.
	Log *slog.Logger
	// SocketDir is where socket names are completed from.
	SocketDir string
	// Jobs is the job table: it keeps the MCP tasks, and its changes are
	// pushed to subscribers and logged (required).
	Jobs *jobs.Table
	// Instructions are the server instructions (see Instructions).
	Instructions string

	// Tools are the tools to register, in order.
	Tools []Tool
	// Resources registers the resources whose handlers read tmux (the
	// tool layer's); New calls it once, after the tools.
	Resources func(*server.MCPServer)
	// Middleware runs inside panic recovery, around every handler (the
	// tool layer reads the callers of a routed call there).
	Middleware []server.ToolHandlerMiddleware

	// SocketArg checks a socket_name argument ("" names none, and gives
	// the zero socket).
	SocketArg func(name string) (tmux.Socket, error)
	// FindSession reports whether srv has a session of that name (nil) or
	// why not.
	FindSession func(ctx context.Context, srv *supervisor.Server, name string) error
	// LookupJob finds a job the caller may see.
	LookupJob func(ctx context.Context, id string) (*jobs.Job, error)
	// Callers is the chain of callers a call routed to a host carries:
	// this process, then the callers of the call itself. Needed with
	// Hosts.
	Callers func(ctx context.Context) []hosts.Caller
}

// Server is the MCP server: mcp-go's server with tmux-mcp's hooks,
// middleware, resources, prompts, completions and notifications.
type Server struct {
	MCP *server.MCPServer
	// Tasks serves MCP tasks (protocol 2026-07-28's extension); the
	// transports wrap their streams with it (Tasks.Stdio, Tasks.HTTP).
	Tasks    *taskext.Manager
	drain    *drain
	notifier *structureNotifier
	subs     *subscriptions
	log      *eventLog
}

// New builds the MCP server for c: the tools, the resources and their
// subscriptions, the prompts, completions, log notifications of
// supervisor events, the instructions, and the middleware. Hidden tools
// are registered, and tools/list leaves them out. Close it to stop event
// delivery.
func New(c Config) (*Server, error) {
	if c.Sup == nil {
		return nil, errors.New("mcpserver: Config.Sup is nil")
	}
	if c.Name == "" {
		c.Name = "tmux-mcp"
	}
	if c.Version == "" {
		c.Version = "dev"
	}
	if c.DrainTimeout <= 0 {
		c.DrainTimeout = 5 * time.Second
	}
	if c.NotifyEvery <= 0 {
		c.NotifyEvery = 100 * time.Millisecond
	}
	log := c.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	g := &drain{bound: c.DrainTimeout}
	hidden := map[string]bool{}
	byName := make(map[string]mcp.Tool, len(c.Tools))
	for _, t := range c.Tools {
		byName[t.Tool.Name] = t.Tool
		if t.Hidden {
			hidden[t.Tool.Name] = true
		}
	}
	var hostNames []string
	if c.Hosts != nil {
		hostNames = c.Hosts.Names()
	}
	// mcp-go's WithToolFilter also refuses calls, with a bare "tool not
	// found"; the hook only trims the listing, and the hidden tools'
	// handlers give the reason. (tmux-mcp does not paginate tools/list.)
	hooks := &server.Hooks{}
	hooks.AddAfterListTools(func(_ context.Context, _ any, _ *mcp.ListToolsRequest, res *mcp.ListToolsResult) {
		res.Tools = slices.DeleteFunc(slices.Clone(res.Tools), func(t mcp.Tool) bool { return hidden[t.Name] })
	})
	// The tasks held are bounded as the job table bounds its calls: the
	// same tasks, forgotten in the same order.
	tasks := taskext.New(taskext.Options{Budget: c.TaskBudget, Store: taskStore{c}, Log: log, Lost: lostCall,
		MaxTasks: jobs.MaxCalls, Tracer: c.TaskTracer})
	comp := completer{sup: c.Sup, socketDir: c.SocketDir}
	mcpOpts := []server.ServerOption{
		server.WithHooks(hooks),
		// listChanged for tools and prompts: the lists never change, so
		// nothing is ever sent, but a subscriptions/listen stream that asks
		// for them stays open; one that is granted nothing ends at once,
		// and mcp-go v1.2.1 then often loses its acknowledgement (the
		// notification race of mark3labs/mcp-go#969).
		server.WithToolCapabilities(true),
		server.WithResourceCapabilities(true, true),
		server.WithPromptCapabilities(true),
		server.WithLogging(),
		server.WithCompletions(),
		server.WithPromptCompletionProvider(comp),
		server.WithResourceCompletionProvider(comp),
		server.WithInstructions(c.Instructions),
	}
	// Outermost first: drain sees every call; the tasks layer runs a call
	// that may become a task apart; logging, inside it, sees the work to
	// its end (a task's too) and panics as error results.
	mcpOpts = append(mcpOpts, server.WithToolHandlerMiddleware(g.middleware))
	mcpOpts = append(mcpOpts, tasks.ServerOptions()...)
	mcpOpts = append(mcpOpts, server.WithToolHandlerMiddleware(LogCalls(log)),
		server.WithToolHandlerMiddleware(RecoverPanics(log)))
	for _, m := range c.Middleware {
		mcpOpts = append(mcpOpts, server.WithToolHandlerMiddleware(m))
	}
	if c.ValidateOutput {
		mcpOpts = append(mcpOpts, server.WithOutputSchemaValidation())
	}
	tasks.ListHook(hooks)
	tasks.ListenHook(hooks)
	mcpOpts = append(mcpOpts, c.ServerOptions...)
	if len(hostNames) > 0 {
		// Innermost, after the binary's tracing: a routed call's span is
		// named for its tool, and its context goes through the hop.
		readOnly := func(tool string) bool {
			t, ok := byName[tool]
			return ok && t.Annotations.ReadOnlyHint != nil && *t.Annotations.ReadOnlyHint
		}
		mcpOpts = append(mcpOpts, server.WithToolHandlerMiddleware(routeHosts(c.Hosts, readOnly, c.Callers)))
	}
	s := server.NewMCPServer(c.Name, c.Version, mcpOpts...)
	var served []string
	for _, t := range c.Tools {
		s.AddTool(t.Tool, t.Handler)
		if !t.Hidden {
			served = append(served, t.Tool.Name)
		}
	}
	tasks.Adapt(s)
	if c.Resources != nil {
		c.Resources(s)
	}
	if len(hostNames) > 0 {
		addHostResources(s, c.Hosts)
	}
	addPrompts(s, slices.Contains(served, "journal_events") && slices.Contains(served, "restore_sessions"), c.SocketArg)
	srv := &Server{MCP: s, Tasks: tasks, drain: g}
	if c.Events != nil {
		srv.notifier = startNotifier(s, c.Events, c.NotifyEvery)
	}
	srv.subs = newSubscriptions(s, hooks, c)
	if len(hostNames) > 0 {
		srv.subs.hosts = c.Hosts
	}
	srv.log = newEventLog(s, hooks, c.Events)
	c.Jobs.OnChange(func(rec jobrecord.Record) {
		srv.subs.jobChanged(rec.ID)
		srv.log.jobEnded(rec)
	})
	return srv, nil
}

// BeginShutdown marks the server as shutting down: from now on a call
// whose transport goes away keeps running for up to the drain bound.
func (s *Server) BeginShutdown() { s.drain.stopping.Store(true) }

// Drain waits for calls in flight, at most until ctx ends.
func (s *Server) Drain(ctx context.Context) error { return s.drain.wait(ctx) }

// Subscriptions returns how many resource subscriptions are prepared or
// running.
func (s *Server) Subscriptions() int { return s.subs.total() }

// Close stops notifications: resource list changes, subscriptions and
// log messages.
func (s *Server) Close() {
	if s.notifier != nil {
		s.notifier.close()
	}
	s.subs.close()
	s.log.close()
}
