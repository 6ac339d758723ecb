package mcpserver

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/jobrecord"
	"github.com/tmux-mcp/tmux-mcp/jobs"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/view"
)

// ViewConfig is what the live view's source reads besides the
// supervisor: the jobs, the journal and the agents, as the tool layer
// knows them, and its typing.
type ViewConfig struct {
	Sup    *supervisor.Supervisor
	Events EventSource
	// Jobs are the background jobs; nil: none shown.
	Jobs *jobs.Table
	// Journal returns the journal's events of sock's server, oldest
	// first, at most limit (the newest); nil: no journal.
	Journal func(sock tmux.Socket, limit int) ([]view.Event, error)
	// Agent reads the coding agent in pane p of srv, if any (nil, nil:
	// none).
	Agent func(ctx context.Context, srv *supervisor.Server, p tmux.Pane) (*view.Agent, error)
	// Type types text into pane of srv, then Enter when enter is set.
	Type func(ctx context.Context, srv *supervisor.Server, pane tmux.PaneID, text string, enter bool) error
}

// ViewSource is the live view's source (package view) over its
// ViewConfig: it implements view.Source, view.Structure and view.Typist.
// It starts no tmux server and changes nothing, unless typing was asked
// for (Type, used by the page only when --view-input is set).
type ViewSource struct{ c ViewConfig }

// NewViewSource is the live view's source over c.
func NewViewSource(c ViewConfig) ViewSource { return ViewSource{c: c} }

// viewEvents is how many journal events of each server the view shows.
const viewEvents = 20

// Overview reads every supervised server; the default server is adopted
// when it runs and nothing is supervised yet, never started.
func (v ViewSource) Overview(ctx context.Context) (view.Overview, error) {
	c := v.c
	servers := c.Sup.Servers()
	def := c.Sup.Config().DefaultSocket
	if !slices.ContainsFunc(servers, func(srv *supervisor.Server) bool { return srv.Socket() == def }) {
		if srv, err := c.Sup.Existing(ctx, def); err == nil && srv != nil {
			servers = append(servers, srv)
		}
	}
	slices.SortFunc(servers, func(a, b *supervisor.Server) int { return cmp.Compare(a.Socket().String(), b.Socket().String()) })
	ov := view.Overview{Servers: []view.Server{}, Jobs: []view.Job{}}
	running := map[string]string{} // server key + pane -> job
	if c.Jobs != nil {
		now := time.Now()
		for _, j := range c.Jobs.All() {
			rec := j.Record()
			ov.Jobs = append(ov.Jobs, view.Listed(rec, now))
			if rec.State == jobrecord.Running {
				running[rec.Socket.String()+" "+string(rec.Pane)] = rec.ID
			}
		}
		slices.SortFunc(ov.Jobs, func(a, b view.Job) int { return b.Started.Compare(a.Started) })
	}
	for _, srv := range servers {
		if srv.State() == supervisor.StateClosed || srv.State() == supervisor.StateUnknown {
			continue
		}
		ov.Servers = append(ov.Servers, v.server(ctx, srv, running))
	}
	return ov, nil
}

// server reads one server: its health, and its tree when it is up.
func (v ViewSource) server(ctx context.Context, srv *supervisor.Server, running map[string]string) view.Server {
	out, _ := v.Tree(ctx, srv, running)
	return out
}

// Tree is server, and the panes it listed (none when the server is not
// up); running maps a server key and pane to the job running there.
func (v ViewSource) Tree(ctx context.Context, srv *supervisor.Server, running map[string]string) (view.Server, []tmux.Pane) {
	h := srv.Health()
	key := srv.Socket().String()
	out := view.Server{Key: key, Name: socketLabel(srv.Socket()), Health: h, Sessions: []view.Session{}, Events: []view.Event{}}
	if v.c.Journal != nil {
		// Structure changes are many and say little on a timeline.
		if evs, err := v.c.Journal(srv.Socket(), 4*viewEvents); err == nil {
			evs = slices.DeleteFunc(evs, func(e view.Event) bool { return e.Type == "structure" })
			out.Events = append(out.Events, evs[max(0, len(evs)-viewEvents):]...)
		}
	}
	if h.State != supervisor.StateUp {
		out.Error = "the server is " + string(h.State)
		if h.RetryInSeconds > 0 {
			out.Error += fmt.Sprintf("; next start attempt in %.1fs", h.RetryInSeconds)
		}
		return out, nil
	}
	panes, err := srv.ListPanes(ctx)
	if err != nil {
		out.Error = "listing panes: " + err.Error()
		return out, nil
	}
	sessions := map[tmux.SessionID]*view.Session{}
	windows := map[tmux.WindowID]*view.Window{}
	var order []tmux.SessionID
	for _, p := range panes {
		se := sessions[p.SessionID]
		if se == nil {
			se = &view.Session{ID: string(p.SessionID), Name: p.SessionName}
			sessions[p.SessionID] = se
			order = append(order, p.SessionID)
		}
		w := windows[p.WindowID]
		if w == nil {
			se.Windows = append(se.Windows, view.Window{ID: string(p.WindowID), Index: p.WindowIndex, Name: p.WindowName,
				Active: p.WindowActive, Zoomed: p.WindowZoomed})
			w = &se.Windows[len(se.Windows)-1]
			windows[p.WindowID] = w
		}
		vp := view.Pane{ID: string(p.ID), Index: p.Index, Left: p.Left, Top: p.Top, Width: p.Width, Height: p.Height,
			Active: p.Active, Dead: p.Dead, Title: p.Title, Command: p.CurrentCommand, Job: running[key+" "+string(p.ID)]}
		if v.c.Agent != nil {
			if a, err := v.c.Agent(ctx, srv, p); err == nil && a != nil {
				vp.Agent = a
			}
		}
		w.Panes = append(w.Panes, vp)
		w.Width, w.Height = max(w.Width, p.Left+p.Width), max(w.Height, p.Top+p.Height)
	}
	slices.SortFunc(order, func(a, b tmux.SessionID) int { return cmp.Compare(idNumber(string(a)), idNumber(string(b))) })
	for _, id := range order {
		se := sessions[id]
		slices.SortFunc(se.Windows, func(a, b view.Window) int { return cmp.Compare(a.Index, b.Index) })
		for i := range se.Windows {
			slices.SortFunc(se.Windows[i].Panes, func(a, b view.Pane) int { return cmp.Compare(a.Index, b.Index) })
		}
		out.Sessions = append(out.Sessions, *se)
	}
	return out, panes
}

// socketLabel names a server as a person knows it: its -L name, or its
// socket path.
func socketLabel(s tmux.Socket) string {
	if s.Name != "" {
		return s.Name
	}
	return s.Path
}

// idNumber is the number of a tmux ID ($3, @3, %3), for ordering.
func idNumber(id string) int {
	n, _ := strconv.Atoi(strings.TrimLeft(id, "$@%"))
	return n
}

// viewServer finds a supervised server by the view's key.
func (v ViewSource) viewServer(key string) (*supervisor.Server, error) {
	for _, srv := range v.c.Sup.Servers() {
		if srv.Socket().String() == key {
			return srv, nil
		}
	}
	return nil, fmt.Errorf("%w: no supervised server %q", supervisor.ErrInvalidArgument, key)
}

// viewScreenState is read with the capture, in its round trip: the cursor
// and the pane's size. ViewCursorState is the cursor only.
const (
	viewScreenState = "#{cursor_x} #{cursor_y} #{cursor_flag} #{pane_width} #{pane_height}"
	ViewCursorState = "#{cursor_x} #{cursor_y} #{cursor_flag}"
)

// StateNumbers parses the n numbers of a StateAfter line.
func StateNumbers(state []byte, n int) ([]int, error) {
	f := strings.Fields(string(state))
	if len(f) != n {
		return nil, errors.New("view: unexpected pane state")
	}
	nums := make([]int, n)
	for i, x := range f {
		var err error
		if nums[i], err = strconv.Atoi(x); err != nil {
			return nil, errors.New("view: unexpected pane state")
		}
	}
	return nums, nil
}

// Screen captures pane's visible screen with its escapes, and its cursor.
func (v ViewSource) Screen(ctx context.Context, key, pane string) (view.Screen, error) {
	srv, err := v.viewServer(key)
	if err != nil {
		return view.Screen{}, err
	}
	c, err := srv.Capture(ctx, supervisor.CaptureRequest{Pane: tmux.PaneID(pane), Escape: true, StateAfter: viewScreenState})
	if err != nil {
		return view.Screen{}, err
	}
	nums, err := StateNumbers(c.State, 5)
	if err != nil {
		return view.Screen{}, err
	}
	var s view.Screen
	s.CursorX, s.CursorY, s.CursorVisible, s.Width, s.Height = nums[0], nums[1], nums[2] == 1, nums[3], nums[4]
	s.Rows = strings.Split(string(bytes.TrimSuffix(c.Content, []byte("\n"))), "\n")
	if len(s.Rows) > s.Height {
		s.Rows = s.Rows[len(s.Rows)-s.Height:]
	}
	for len(s.Rows) < s.Height {
		s.Rows = append(s.Rows, "")
	}
	return s, nil
}

// Changes is the supervisor's change feed of pane.
func (v ViewSource) Changes(ctx context.Context, key, pane string) (<-chan struct{}, func(), error) {
	srv, err := v.viewServer(key)
	if err != nil {
		return nil, nil, err
	}
	return srv.PaneChanges(ctx, tmux.PaneID(pane))
}

// OnStructure calls fn when a server's tree or life changed.
func (v ViewSource) OnStructure(fn func()) func() {
	return v.c.Events.Subscribe(func(e supervisor.Event) {
		switch e.Type {
		case supervisor.EventStructure, supervisor.EventServerDied, supervisor.EventRestarting, supervisor.EventRestarted,
			supervisor.EventRestored, supervisor.EventServerAdopted, supervisor.EventServerStarted:
			fn()
		}
	})
}

// Type types text into pane (then Enter) with ViewConfig.Type. The page
// offers it only at the destructive tier with --view-input: the person at
// the page decides.
func (v ViewSource) Type(ctx context.Context, key, pane, text string, enter bool) error {
	srv, err := v.viewServer(key)
	if err != nil {
		return err
	}
	return v.c.Type(ctx, srv, tmux.PaneID(pane), text, enter)
}
