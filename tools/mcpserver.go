package tools

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/drive"
	"github.com/tmux-mcp/tmux-mcp/hosts"
	"github.com/tmux-mcp/tmux-mcp/jobrecord"
	"github.com/tmux-mcp/tmux-mcp/jobs"
	"github.com/tmux-mcp/tmux-mcp/taskext"
)

// Options configures New.
type Options struct {
	// Name and Version are the server's implementation info.
	Name, Version string
	// Toolsets selects groups by ID and presets by name (ParseToolsets);
	// nil selects all.
	Toolsets []string
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

// Server is an MCP server over a supervisor.
type Server struct {
	MCP *server.MCPServer
	// Tasks serves MCP tasks (protocol 2026-07-28's extension); the
	// transports wrap their streams with it (Tasks.Stdio, Tasks.HTTP).
	Tasks    *taskext.Manager
	Tools    []Entry // the tools listed at the tier, sorted by group and name
	drain    *drain
	notifier *structureNotifier
	subs     *subscriptions
	log      *eventLog
	jobs     *jobs.Table
	deps     Deps
}

// New builds the MCP server: the tools of the selected toolsets, the
// resources and their subscriptions, the prompts, completions, log
// notifications of supervisor events, the instructions, and the
// middleware. Tools above d.Tier are
// registered but hidden: tools/list leaves them out, and calling one fails
// with a tool error naming the tier it needs, without running its handler.
// Close it to stop event delivery.
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
	if d.bufNS == "" {
		d.bufNS = newBufferNamespace()
	}
	d.index = &toolIndex{}
	d.runs = drive.NewFiles(d.TempDir)
	if d.panes == nil {
		d.panes = newPaneIO()
	}
	d.jobFiles = drive.NewFiles(d.TempDir)
	d.jobs = newJobTable(d)
	if d.own == nil {
		d.own = newOwnPanes(d.selfPIDs)
		d.own.ancestors() // now, before a parent may exit and take the trail with it
	}
	registered := Select(Catalog(d), Destructive, opts.Toolsets)
	d.index.byName = make(map[string]Entry, len(registered))
	var hostNames []string
	if opts.Hosts != nil {
		hostNames = opts.Hosts.Names()
	}
	for i, e := range registered {
		registered[i] = withTaskSupport(e)
		if len(hostNames) > 0 {
			registered[i] = withHostArg(registered[i], hostNames)
		}
		d.index.byName[e.Tool.Name] = registered[i]
	}
	hidden := map[string]bool{}
	for _, e := range registered {
		if e.Tier > d.Tier {
			hidden[e.Tool.Name] = true
		}
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
	tasks := taskext.New(taskext.Options{Budget: opts.TaskBudget, Store: taskStore{d}, Log: log, Lost: lostCall,
		MaxTasks: jobs.MaxCalls, Tracer: opts.TaskTracer})
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
		server.WithPromptCompletionProvider(completer{d}),
		server.WithResourceCompletionProvider(completer{d}),
		server.WithInstructions(instructions(d, d.Sup.Config().DefaultSocket.String())),
	}
	// Outermost first: drain sees every call; the tasks layer runs a call
	// that may become a task apart; logging, inside it, sees the work to
	// its end (a task's too) and panics as error results.
	mcpOpts = append(mcpOpts, server.WithToolHandlerMiddleware(g.middleware))
	mcpOpts = append(mcpOpts, tasks.ServerOptions()...)
	mcpOpts = append(mcpOpts, server.WithToolHandlerMiddleware(logCalls(log)),
		server.WithToolHandlerMiddleware(recoverPanics(log)),
		// The callers a routed call came through (hopcaller.go), for the
		// own-pane guard here and for the calls routed on.
		server.WithToolHandlerMiddleware(readCallers(hosts.MachineID())))
	if opts.ValidateOutput {
		mcpOpts = append(mcpOpts, server.WithOutputSchemaValidation())
	}
	tasks.ListHook(hooks)
	tasks.ListenHook(hooks)
	mcpOpts = append(mcpOpts, opts.ServerOptions...)
	if len(hostNames) > 0 {
		// Innermost, after the binary's tracing: a routed call's span is
		// named for its tool, and its context goes through the hop.
		readOnly := func(tool string) bool {
			e, ok := d.index.byName[tool]
			return ok && e.Tool.Annotations.ReadOnlyHint != nil && *e.Tool.Annotations.ReadOnlyHint
		}
		mcpOpts = append(mcpOpts, server.WithToolHandlerMiddleware(routeHosts(opts.Hosts, readOnly, d.selfCaller())))
	}
	s := server.NewMCPServer(opts.Name, opts.Version, mcpOpts...)
	var selected []Entry
	for _, e := range registered {
		if hidden[e.Tool.Name] {
			s.AddTool(e.Tool, unavailable(e.Tool.Name, e.Tier))
			continue
		}
		s.AddTool(e.Tool, e.Handler)
		selected = append(selected, e)
	}
	tasks.Adapt(s)
	addResources(s, d)
	if len(hostNames) > 0 {
		addHostResources(s, opts.Hosts)
	}
	addPrompts(s, served(selected, "journal_events") && served(selected, "restore_sessions"))
	srv := &Server{MCP: s, Tasks: tasks, Tools: selected, drain: g, deps: d}
	if src := d.events(); src != nil {
		srv.notifier = startNotifier(s, src, opts.NotifyEvery)
	}
	srv.subs = newSubscriptions(s, hooks, d, opts.NotifyEvery)
	if len(hostNames) > 0 {
		srv.subs.hosts = opts.Hosts
	}
	srv.log = newEventLog(s, hooks, d.events())
	srv.jobs = d.jobs
	srv.jobs.OnChange(func(rec jobrecord.Record) {
		srv.subs.jobChanged(rec.ID)
		srv.log.jobEnded(rec)
	})
	srv.jobs.Open()
	return srv, nil
}

// unavailable is the handler of a tool hidden by the safety tier: it
// refuses, naming the tier the tool needs, and runs nothing.
func unavailable(name string, need Tier) server.ToolHandlerFunc {
	te := &toolError{
		msg: fmt.Sprintf("Tool '%s' is not available at the current safety level. Set TMUX_MCP_SAFETY=%s to enable %s tools.",
			name, need, need),
		class: "safety",
		hint:  fmt.Sprintf("Or start tmux-mcp with --safety %s.", need),
	}
	return func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return errorResult(te), nil
	}
}

// BeginShutdown marks the server as shutting down: from now on a call
// whose transport goes away keeps running for up to the drain bound.
func (s *Server) BeginShutdown() { s.drain.stopping.Store(true) }

// Drain waits for calls in flight, at most until ctx ends.
func (s *Server) Drain(ctx context.Context) error { return s.drain.wait(ctx) }

// served reports whether the tool name is among entries.
func served(entries []Entry, name string) bool {
	return slices.ContainsFunc(entries, func(e Entry) bool { return e.Tool.Name == name })
}

// Close stops watching background jobs (they run on, and the journal
// keeps them for the next tmux-mcp), stops notifications (resource list
// changes, subscriptions and log messages), deletes the buffers this
// server loaded (load_buffer) on the servers that are up, and removes
// run_command's directory.
func (s *Server) Close() error {
	s.jobs.Close()
	s.deps.jobFiles.CloseIfEmpty()
	if s.notifier != nil {
		s.notifier.close()
	}
	s.subs.close()
	s.log.close()
	s.deps.deleteBuffers(2 * time.Second)
	return s.deps.runs.Close()
}
