package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/mcpserver"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tooldef"
)

// addResources registers libtmux-mcp's six tmux:// templates,
// tmux://jobs/{job_id} and tmux://health.
func addResources(s *server.MCPServer, d Deps) {
	jsonT := func(uri, name, desc string, h server.ResourceTemplateHandlerFunc) {
		s.AddResourceTemplate(mcp.NewResourceTemplate(uri, name, mcp.WithTemplateDescription(desc),
			mcp.WithTemplateMIMEType("application/json")), h)
	}
	jsonT(mcpserver.URISessions, "get_sessions", "All sessions.",
		d.resource(func(ctx context.Context, srv *supervisor.Server, _ mcpserver.Vars) (any, error) {
			sessions, err := srv.ListSessions(ctx)
			out := make([]SessionInfo, 0, len(sessions))
			for _, x := range sessions {
				out = append(out, sessionInfo(x))
			}
			return out, err
		}))
	jsonT(mcpserver.URISession, "get_session", "A session and its windows.",
		d.resource(func(ctx context.Context, srv *supervisor.Server, v mcpserver.Vars) (any, error) {
			sess, windows, err := sessionWindows(ctx, srv, v.Get("session_name"))
			if err != nil {
				return nil, err
			}
			return struct {
				SessionInfo
				Windows []WindowInfo `json:"windows"`
			}{sessionInfo(sess), windows}, nil
		}))
	jsonT(mcpserver.URISessionWindows, "get_session_windows", "A session's windows.",
		d.resource(func(ctx context.Context, srv *supervisor.Server, v mcpserver.Vars) (any, error) {
			_, windows, err := sessionWindows(ctx, srv, v.Get("session_name"))
			return windows, err
		}))
	jsonT(mcpserver.URIWindow, "get_window", "A window and its panes.",
		d.resource(func(ctx context.Context, srv *supervisor.Server, v mcpserver.Vars) (any, error) {
			_, windows, err := sessionWindows(ctx, srv, v.Get("session_name"))
			if err != nil {
				return nil, err
			}
			idx := v.Get("window_index")
			for _, w := range windows {
				if w.WindowIndex != idx {
					continue
				}
				panes, err := srv.ListPanesWith(ctx, paneInfoFields...)
				if err != nil {
					return nil, err
				}
				out := []PaneInfo{}
				for _, p := range panes {
					if string(p.WindowID) == w.WindowID && string(p.SessionID) == w.SessionID {
						out = append(out, d.paneInfo(p, srv.Socket()))
					}
				}
				return struct {
					WindowInfo
					Panes []PaneInfo `json:"panes"`
				}{w, out}, nil
			}
			return nil, mcpserver.ResourceNotFound("Window not found: index %s", idx)
		}))
	jsonT(mcpserver.URIPane, "get_pane", "A pane.",
		d.resource(func(ctx context.Context, srv *supervisor.Server, v mcpserver.Vars) (any, error) {
			p, err := paneByID(ctx, srv, tmux.PaneID(v.Get("pane_id")))
			if err != nil {
				return nil, mcpserver.ResourceNotFound("Pane not found: %s", v.Get("pane_id"))
			}
			return d.paneInfo(p, srv.Socket()), nil
		}))
	s.AddResourceTemplate(mcp.NewResourceTemplate(mcpserver.URIPaneContent, "get_pane_content",
		mcp.WithTemplateDescription("A pane's visible text."), mcp.WithTemplateMIMEType("text/plain")),
		func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			v := mcpserver.Vars(req.Params.Arguments)
			srv, err := d.server(ctx, tooldef.Args{"socket_name": v.Get("socket_name")})
			if err != nil {
				return nil, err
			}
			id := tmux.PaneID(v.Get("pane_id"))
			if !paneIDRe.MatchString(string(id)) {
				return nil, mcpserver.ResourceNotFound("Pane not found: %s", id)
			}
			c, err := srv.Capture(ctx, supervisor.CaptureRequest{Pane: id})
			if err != nil {
				if errors.Is(err, tmux.ErrPaneNotFound) {
					return nil, mcpserver.ResourceNotFound("Pane not found: %s", id)
				}
				return nil, err
			}
			text := strings.TrimRight(string(c.Content), "\n")
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, MIMEType: "text/plain", Text: text}}, nil
		})
	s.AddResourceTemplate(mcp.NewResourceTemplate(mcpserver.URIJob, "get_job",
		mcp.WithTemplateDescription("A background job (run_command background): state, exit status, output tail, as get_job gives it."),
		mcp.WithTemplateMIMEType("application/json")),
		func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			id := mcpserver.Vars(req.Params.Arguments).Get("job_id")
			j, err := d.lookupJob(ctx, id)
			if err != nil {
				return nil, mcpserver.ResourceNotFound("Job not found: %s", id)
			}
			v, err := viewJob(ctx, j, jobDefaultLines)
			if err != nil {
				return nil, err
			}
			return jsonContents(req.Params.URI, v)
		})
	addSessionApp(s)
	s.AddResource(mcp.NewResource(mcpserver.URIHealth, "health", mcp.WithResourceDescription("Supervisor health of the default server."),
		mcp.WithMIMEType("application/json")),
		func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			h, err := d.health(ctx, tooldef.Args{})
			if err != nil {
				return nil, err
			}
			return jsonContents(req.Params.URI, h)
		})
}

func (d Deps) resource(fn func(ctx context.Context, srv *supervisor.Server, v mcpserver.Vars) (any, error)) server.ResourceTemplateHandlerFunc {
	return func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		v := mcpserver.Vars(req.Params.Arguments)
		srv, err := d.server(ctx, tooldef.Args{"socket_name": v.Get("socket_name")})
		if err != nil {
			return nil, err
		}
		out, err := fn(ctx, srv, v)
		if err != nil {
			return nil, err
		}
		return jsonContents(req.Params.URI, out)
	}
}

func jsonContents(uri string, v any) ([]mcp.ResourceContents, error) {
	b, err := mcpserver.EncodeJSONIndent(v)
	if err != nil {
		return nil, fmt.Errorf("tools: encode resource: %w", err)
	}
	return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, MIMEType: "application/json", Text: string(b)}}, nil
}

func sessionWindows(ctx context.Context, srv *supervisor.Server, name string) (tmux.Session, []WindowInfo, error) {
	s, err := findSession(ctx, srv, tooldef.Args{"session_name": name})
	if err != nil {
		return tmux.Session{}, nil, mcpserver.ResourceNotFound("Session not found: %s", name)
	}
	windows, err := srv.ListWindows(ctx)
	if err != nil {
		return tmux.Session{}, nil, err
	}
	out := []WindowInfo{}
	for _, w := range windows {
		if w.SessionID == s.ID {
			out = append(out, windowInfo(w))
		}
	}
	return s, out, nil
}
