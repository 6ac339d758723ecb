package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/mcpserver"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tooldef"
	"github.com/tmux-mcp/tmux-mcp/view"
)

// The MCP App (ext-apps, SEP-1865): view_session names the ui:// resource
// that clients which render MCP Apps show with its result (the session's
// panes, kept live by calling view_session again from the app); other
// clients get the panes as text.
const (
	uriSessionApp = "ui://tmux-mcp/session-view"
	mimeMCPApp    = "text/html;profile=mcp-app"
)

// viewPaneItem is a pane of view_session: where it is, what runs in it,
// its screen rows and its cursor.
type viewPaneItem struct {
	view.Pane
	Rows          []string `json:"rows"`
	CursorX       int      `json:"cursor_x"`
	CursorY       int      `json:"cursor_y"`
	CursorVisible bool     `json:"cursor_visible"`
}

type viewWindowItem struct {
	view.Window
	Panes []viewPaneItem `json:"panes"`
}

type viewSessionItem struct {
	ID      string           `json:"id"`
	Name    string           `json:"name"`
	Windows []viewWindowItem `json:"windows"`
}

// viewSessionResult is view_session's result.
type viewSessionResult struct {
	Server   string            `json:"server"`
	State    string            `json:"state"`
	Sessions []viewSessionItem `json:"sessions"`
	Escapes  bool              `json:"escapes"`
}

var viewSessionSchema = tooldef.Record(nil, []string{"server", "state", "sessions", "escapes"}, nil)

// ViewSession shows a session's panes (every session's without one) as
// they look now; MCP App clients render them live.
func ViewSession(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("view_session", "A session's panes as they look now (all sessions without one); MCP App clients show them live.",
		tooldef.Read, viewSessionSchema, pSessionID, pSessionName, pSocket, mcp.WithBoolean("escapes"))
	t.Meta = mcp.NewMetaFromMap(map[string]any{
		// Both spellings: hosts read one or the other (ext-apps 2026-01-26).
		"ui":             map[string]any{"resourceUri": uriSessionApp, "visibility": []string{"model", "app"}},
		"ui/resourceUri": uriSessionApp,
	})
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		srv, err := d.server(ctx, p)
		if err != nil {
			return nil, err
		}
		only := ""
		if p.Str("session_id") != "" || p.Str("session_name") != "" {
			s, err := findSession(ctx, srv, p)
			if err != nil {
				return nil, err
			}
			only = string(s.ID)
		}
		res, err := d.viewSession(ctx, srv, only, p.Bool("escapes"))
		if err != nil {
			return nil, err
		}
		out, err := structured(res)
		if err != nil {
			return nil, err
		}
		// The text block is the screens, for clients that render no app
		// and read text: the model reads the panes, not their JSON.
		out.Content = []mcp.Content{mcp.NewTextContent(viewSessionText(res))}
		return out, nil
	})
}

// viewSession reads the sessions of srv (only the one with ID only, when
// set) and each pane's screen, with its escapes when asked.
func (d Deps) viewSession(ctx context.Context, srv *supervisor.Server, only string, escapes bool) (viewSessionResult, error) {
	vs, panes := d.viewSource().Tree(ctx, srv, nil)
	res := viewSessionResult{Server: vs.Key, State: string(srv.Health().State), Sessions: []viewSessionItem{}, Escapes: escapes}
	if vs.Error != "" && len(panes) == 0 {
		return res, &toolError{msg: "Cannot read the server: " + vs.Error, class: "server_unavailable",
			hint: "Call server_health; the view shows the panes again once the server is up."}
	}
	for _, se := range vs.Sessions {
		if only != "" && se.ID != only {
			continue
		}
		item := viewSessionItem{ID: se.ID, Name: se.Name, Windows: []viewWindowItem{}}
		for _, w := range se.Windows {
			wi := viewWindowItem{Window: w, Panes: []viewPaneItem{}}
			wi.Window.Panes = nil
			for _, p := range w.Panes {
				// The cursor as tmux has it when it captures, in the same
				// round trip: its place, and whether the program shows it.
				c, err := srv.Capture(ctx, supervisor.CaptureRequest{Pane: tmux.PaneID(p.ID), Escape: escapes, StateAfter: mcpserver.ViewCursorState})
				if err != nil {
					return res, err
				}
				cur, err := mcpserver.StateNumbers(c.State, 3)
				if err != nil {
					return res, err
				}
				rows := strings.Split(strings.TrimSuffix(string(c.Content), "\n"), "\n")
				for len(rows) < p.Height {
					rows = append(rows, "")
				}
				wi.Panes = append(wi.Panes, viewPaneItem{Pane: p, Rows: rows, CursorX: cur[0], CursorY: cur[1], CursorVisible: cur[2] == 1})
			}
			item.Windows = append(item.Windows, wi)
		}
		res.Sessions = append(res.Sessions, item)
	}
	return res, nil
}

// viewSessionText is the panes as text: a header line a pane, then its
// screen without escapes or trailing blank lines.
func viewSessionText(res viewSessionResult) string {
	var b strings.Builder
	for _, se := range res.Sessions {
		for _, w := range se.Windows {
			for _, p := range w.Panes {
				fmt.Fprintf(&b, "── %s %s:%d.%d %s", p.ID, se.Name, w.Index, p.Index, p.Command)
				if p.Agent != nil {
					fmt.Fprintf(&b, " [%s: %s]", p.Agent.Name, p.Agent.State)
				}
				b.WriteString(" ──\n")
				rows := make([]string, len(p.Rows))
				for i, r := range p.Rows {
					rows[i] = strings.TrimRight(stripEscapes(r), " ")
				}
				for len(rows) > 0 && rows[len(rows)-1] == "" {
					rows = rows[:len(rows)-1]
				}
				for _, r := range rows {
					b.WriteString(r)
					b.WriteByte('\n')
				}
			}
		}
	}
	if b.Len() == 0 {
		return "No panes."
	}
	return b.String()
}

// stripEscapes removes the escape sequences capture-pane -e writes (SGR,
// and OSC hyperlinks) and any other from a row.
func stripEscapes(s string) string {
	if !strings.Contains(s, "\x1b") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != 0x1b || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch s[i+1] {
		case '[':
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j
		case ']', 'P', '_', '^':
			j := i + 2
			for j < len(s) && s[j] != 0x07 && !(s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\') {
				j++
			}
			if j < len(s) && s[j] == 0x1b {
				j++
			}
			i = j
		default:
			i++
		}
	}
	return b.String()
}

// addSessionApp serves the MCP App's page (view.AppHTML): one HTML
// document, its style and scripts inlined, that fetches nothing.
func addSessionApp(s *server.MCPServer) {
	r := mcp.NewResource(uriSessionApp, "session_view", mcp.WithMIMEType(mimeMCPApp),
		mcp.WithResourceDescription("The MCP App of view_session: a session's panes, live."))
	r.Meta = mcp.NewMetaFromMap(map[string]any{"ui": map[string]any{"prefersBorder": true}})
	s.AddResource(r, func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{mcp.TextResourceContents{URI: uriSessionApp, MIMEType: mimeMCPApp, Text: view.AppHTML(),
			Meta: map[string]any{"ui": map[string]any{"prefersBorder": true, "csp": map[string]any{}}}}}, nil
	})
}
