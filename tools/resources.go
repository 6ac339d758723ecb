package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// The resources: libtmux-mcp's six templates and tmux://health.
const (
	uriSessions       = "tmux://sessions{?socket_name}"
	uriSession        = "tmux://sessions/{session_name}{?socket_name}"
	uriSessionWindows = "tmux://sessions/{session_name}/windows{?socket_name}"
	uriWindow         = "tmux://sessions/{session_name}/windows/{window_index}{?socket_name}"
	uriPane           = "tmux://panes/{pane_id}{?socket_name}"
	uriPaneContent    = "tmux://panes/{pane_id}/content{?socket_name}"
	uriHealth         = "tmux://health"
	uriJob            = "tmux://jobs/{job_id}"
)

// addResources registers libtmux-mcp's six tmux:// templates,
// tmux://jobs/{job_id} and tmux://health.
func addResources(s *server.MCPServer, d Deps) {
	jsonT := func(uri, name, desc string, h server.ResourceTemplateHandlerFunc) {
		s.AddResourceTemplate(mcp.NewResourceTemplate(uri, name, mcp.WithTemplateDescription(desc),
			mcp.WithTemplateMIMEType("application/json")), h)
	}
	jsonT(uriSessions, "get_sessions", "All sessions.",
		d.resource(func(ctx context.Context, srv *supervisor.Server, _ vars) (any, error) {
			sessions, err := srv.ListSessions(ctx)
			out := make([]SessionInfo, 0, len(sessions))
			for _, x := range sessions {
				out = append(out, sessionInfo(x))
			}
			return out, err
		}))
	jsonT(uriSession, "get_session", "A session and its windows.",
		d.resource(func(ctx context.Context, srv *supervisor.Server, v vars) (any, error) {
			sess, windows, err := sessionWindows(ctx, srv, v.get("session_name"))
			if err != nil {
				return nil, err
			}
			return struct {
				SessionInfo
				Windows []WindowInfo `json:"windows"`
			}{sessionInfo(sess), windows}, nil
		}))
	jsonT(uriSessionWindows, "get_session_windows", "A session's windows.",
		d.resource(func(ctx context.Context, srv *supervisor.Server, v vars) (any, error) {
			_, windows, err := sessionWindows(ctx, srv, v.get("session_name"))
			return windows, err
		}))
	jsonT(uriWindow, "get_window", "A window and its panes.",
		d.resource(func(ctx context.Context, srv *supervisor.Server, v vars) (any, error) {
			_, windows, err := sessionWindows(ctx, srv, v.get("session_name"))
			if err != nil {
				return nil, err
			}
			idx := v.get("window_index")
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
			return nil, resourceNotFound("Window not found: index %s", idx)
		}))
	jsonT(uriPane, "get_pane", "A pane.",
		d.resource(func(ctx context.Context, srv *supervisor.Server, v vars) (any, error) {
			p, err := paneByID(ctx, srv, tmux.PaneID(v.get("pane_id")))
			if err != nil {
				return nil, resourceNotFound("Pane not found: %s", v.get("pane_id"))
			}
			return d.paneInfo(p, srv.Socket()), nil
		}))
	s.AddResourceTemplate(mcp.NewResourceTemplate(uriPaneContent, "get_pane_content",
		mcp.WithTemplateDescription("A pane's visible text."), mcp.WithTemplateMIMEType("text/plain")),
		func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			v := vars(req.Params.Arguments)
			srv, err := d.server(ctx, params{"socket_name": v.get("socket_name")})
			if err != nil {
				return nil, err
			}
			id := tmux.PaneID(v.get("pane_id"))
			if !paneIDRe.MatchString(string(id)) {
				return nil, resourceNotFound("Pane not found: %s", id)
			}
			c, err := srv.Capture(ctx, supervisor.CaptureRequest{Pane: id})
			if err != nil {
				if errors.Is(err, tmux.ErrPaneNotFound) {
					return nil, resourceNotFound("Pane not found: %s", id)
				}
				return nil, err
			}
			text := strings.TrimRight(string(c.Content), "\n")
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, MIMEType: "text/plain", Text: text}}, nil
		})
	s.AddResourceTemplate(mcp.NewResourceTemplate(uriJob, "get_job",
		mcp.WithTemplateDescription("A background job (run_command background): state, exit status, output tail, as get_job gives it."),
		mcp.WithTemplateMIMEType("application/json")),
		func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			id := vars(req.Params.Arguments).get("job_id")
			j, err := d.lookupJob(ctx, id)
			if err != nil {
				return nil, resourceNotFound("Job not found: %s", id)
			}
			v, err := viewJob(ctx, j, jobDefaultLines)
			if err != nil {
				return nil, err
			}
			return jsonContents(req.Params.URI, v)
		})
	addSessionApp(s)
	s.AddResource(mcp.NewResource(uriHealth, "health", mcp.WithResourceDescription("Supervisor health of the default server."),
		mcp.WithMIMEType("application/json")),
		func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			h, err := d.health(ctx, params{})
			if err != nil {
				return nil, err
			}
			return jsonContents(req.Params.URI, h)
		})
}

// resourceError is a resource read that failed because its object does
// not exist; the message is libtmux-mcp's.
type resourceError struct{ msg string }

func (e *resourceError) Error() string { return e.msg }

func resourceNotFound(format string, a ...any) error {
	return &resourceError{msg: fmt.Sprintf(format, a...)}
}

// vars are a template's matched variables, already percent-decoded (mcp-go
// passes []string).
type vars map[string]any

func (v vars) get(name string) string {
	var s string
	switch x := v[name].(type) {
	case []string:
		if len(x) > 0 {
			s = x[0]
		}
	case string:
		s = x
	}
	return s
}

func (d Deps) resource(fn func(ctx context.Context, srv *supervisor.Server, v vars) (any, error)) server.ResourceTemplateHandlerFunc {
	return func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		v := vars(req.Params.Arguments)
		srv, err := d.server(ctx, params{"socket_name": v.get("socket_name")})
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
	b, err := encodeJSONIndent(v)
	if err != nil {
		return nil, fmt.Errorf("tools: encode resource: %w", err)
	}
	return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, MIMEType: "application/json", Text: string(b)}}, nil
}

func sessionWindows(ctx context.Context, srv *supervisor.Server, name string) (tmux.Session, []WindowInfo, error) {
	s, err := findSession(ctx, srv, params{"session_name": name})
	if err != nil {
		return tmux.Session{}, nil, resourceNotFound("Session not found: %s", name)
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

// structureNotifier sends notifications/resources/list_changed when the
// supervisor reports sessions or windows coming and going, coalescing
// bursts into one notification per interval.
type structureNotifier struct {
	kick     chan struct{}
	stop     chan struct{}
	done     chan struct{}
	unsub    func()
	stopOnce sync.Once
}

// changeEvents are the events after which the resource list may differ.
func changesResources(e supervisor.Event) bool {
	switch e.Type {
	case supervisor.EventStructure:
		switch tmux.NotificationType(e.Notification) {
		case tmux.NotifyLayoutChange, tmux.NotifyWindowPaneChanged, tmux.NotifyPaneModeChanged,
			tmux.NotifyOutput, tmux.NotifyExtendedOutput, tmux.NotifySubscriptionChanged:
			return false
		}
		return true
	case supervisor.EventRestarted, supervisor.EventRestored, supervisor.EventServerDied:
		return true
	}
	return false
}

func startNotifier(s *server.MCPServer, src EventSource, every time.Duration) *structureNotifier {
	n := &structureNotifier{kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	n.unsub = src.Subscribe(func(e supervisor.Event) {
		if changesResources(e) {
			select {
			case n.kick <- struct{}{}:
			default:
			}
		}
	})
	go func() {
		defer close(n.done)
		for {
			select {
			case <-n.stop:
				return
			case <-n.kick:
			}
			s.SendNotificationToAllClients(string(mcp.MethodNotificationResourcesListChanged), nil)
			select {
			case <-n.stop:
				return
			case <-time.After(every):
			}
		}
	}()
	return n
}

func (n *structureNotifier) close() {
	n.stopOnce.Do(func() {
		n.unsub()
		close(n.stop)
		<-n.done
	})
}
