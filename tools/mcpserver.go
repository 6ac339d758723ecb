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
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tooldef"
)

// Options configures New: the server's settings (mcpserver.Settings) and
// the toolsets it serves.
type Options struct {
	mcpserver.Settings
	// Toolsets selects groups by ID and presets by name (ParseToolsets);
	// nil selects all.
	Toolsets []string
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
		Settings: opts.Settings,
		Sup:      d.Sup, Events: d.events(), Log: d.log(), SocketDir: d.SocketDir, Jobs: d.jobs,
		Instructions: instructions(d, d.Sup.Config().DefaultSocket.String()),
		Tools:        served,
		Resources:    func(s *server.MCPServer) { addResources(s, d) },
		// The callers a routed call came through (guard/hopcaller.go), for the
		// own-pane guard here and for the calls routed on.
		Middleware: []server.ToolHandlerMiddleware{guard.ReadCallers(hosts.MachineID())},
		SocketArg:  func(name string) (tmux.Socket, error) { return socketArg(tooldef.Args{"socket_name": name}) },
		FindSession: func(ctx context.Context, srv *supervisor.Server, name string) error {
			_, err := findSession(ctx, srv, tooldef.Args{"session_name": name})
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
