package tools

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/drive"
	"github.com/tmux-mcp/tmux-mcp/guard"
	"github.com/tmux-mcp/tmux-mcp/hosts"
	"github.com/tmux-mcp/tmux-mcp/jobs"
	"github.com/tmux-mcp/tmux-mcp/mcpserver"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/taskext"
	"github.com/tmux-mcp/tmux-mcp/tmux"
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

// Hosts routes calls to the tmux-mcp of other machines (hosts.Router).
type Hosts = mcpserver.Hosts

// Server is the MCP server over a supervisor (mcpserver.Server) with the
// tools it serves and what they hold: the background jobs, the buffers
// and run_command's files.
type Server struct {
	*mcpserver.Server
	Tools []Entry // the tools listed at the tier, sorted by group and name
	jobs  *jobs.Table
	deps  Deps
}

// New builds the MCP server: the tools of the selected toolsets, the
// resources and their subscriptions, the prompts, completions, log
// notifications of supervisor events, the instructions, and the
// middleware (package mcpserver). Tools above d.Tier are
// registered but hidden: tools/list leaves them out, and calling one fails
// with a tool error naming the tier it needs, without running its handler.
// Close it to stop event delivery.
func New(d Deps, opts Options) (*Server, error) {
	if d.Sup == nil {
		return nil, errors.New("tools: Deps.Sup is nil")
	}
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
	d.initGuard()
	registered := Select(Catalog(d), Destructive, opts.Toolsets)
	d.index.byName = make(map[string]Entry, len(registered))
	var hostNames []string
	if opts.Hosts != nil {
		hostNames = opts.Hosts.Names()
	}
	for i, e := range registered {
		registered[i] = withTaskSupport(e)
		if len(hostNames) > 0 {
			registered[i].Tool = mcpserver.WithHostArg(registered[i].Tool, hostNames)
		}
		d.index.byName[e.Tool.Name] = registered[i]
	}
	var selected []Entry
	served := make([]mcpserver.Tool, 0, len(registered))
	for _, e := range registered {
		if e.Tier > d.Tier {
			served = append(served, mcpserver.Tool{Tool: e.Tool, Handler: unavailable(e.Tool.Name, e.Tier), Hidden: true})
			continue
		}
		served = append(served, mcpserver.Tool{Tool: e.Tool, Handler: e.Handler})
		selected = append(selected, e)
	}
	var callers func(context.Context) []hosts.Caller
	if len(hostNames) > 0 {
		self := d.guard().SelfCaller()
		callers = func(ctx context.Context) []hosts.Caller { return guard.HopCallersOf(ctx).Chain(self) }
	}
	ms, err := mcpserver.New(mcpserver.Config{
		Name: opts.Name, Version: opts.Version, DrainTimeout: opts.DrainTimeout, NotifyEvery: opts.NotifyEvery,
		ServerOptions: opts.ServerOptions, ValidateOutput: opts.ValidateOutput, TaskBudget: opts.TaskBudget,
		Hosts: opts.Hosts, TaskTracer: opts.TaskTracer,
		Sup: d.Sup, Events: d.events(), Log: d.log(), SocketDir: d.SocketDir, Jobs: d.jobs,
		Instructions: instructions(d, d.Sup.Config().DefaultSocket.String()),
		Tools:        served,
		Resources:    func(s *server.MCPServer) { addResources(s, d) },
		// The callers a routed call came through (guard/hopcaller.go), for the
		// own-pane guard here and for the calls routed on.
		Middleware: []server.ToolHandlerMiddleware{guard.ReadCallers(hosts.MachineID())},
		SocketArg:  func(name string) (tmux.Socket, error) { return socketArg(params{"socket_name": name}) },
		FindSession: func(ctx context.Context, srv *supervisor.Server, name string) error {
			_, err := findSession(ctx, srv, params{"session_name": name})
			return err
		},
		LookupJob: d.lookupJob,
		Callers:   callers,
	})
	if err != nil {
		return nil, err
	}
	srv := &Server{Server: ms, Tools: selected, jobs: d.jobs, deps: d}
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

// Close stops watching background jobs (they run on, and the journal
// keeps them for the next tmux-mcp), stops notifications (resource list
// changes, subscriptions and log messages), deletes the buffers this
// server loaded (load_buffer) on the servers that are up, and removes
// run_command's directory.
func (s *Server) Close() error {
	s.jobs.Close()
	s.deps.jobFiles.CloseIfEmpty()
	s.Server.Close()
	s.deps.deleteBuffers(2 * time.Second)
	return s.deps.runs.Close()
}
