package tools

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

	"github.com/tmux-mcp/tmux-mcp/drive"
	"github.com/tmux-mcp/tmux-mcp/jobrecord"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/view"
)

// View is the live view's source (package view) over this server's
// supervisor, jobs, journal and agent rules. It starts no tmux server and
// changes nothing, unless typing was asked for (Typist, used by the page
// only when --view-input is set).
func (s *Server) View() view.Source { return viewSource{d: s.deps} }

// viewSource implements view.Source, view.Structure and view.Typist.
type viewSource struct{ d Deps }

// viewEvents is how many journal events of each server the view shows.
const viewEvents = 20

// Overview reads every supervised server; the default server is adopted
// when it runs and nothing is supervised yet, never started.
func (v viewSource) Overview(ctx context.Context) (view.Overview, error) {
	d := v.d
	servers := d.Sup.Servers()
	if d.supervised(d.Sup.Config().DefaultSocket) == nil {
		if srv, err := d.Sup.Existing(ctx, d.Sup.Config().DefaultSocket); err == nil && srv != nil {
			servers = append(servers, srv)
		}
	}
	slices.SortFunc(servers, func(a, b *supervisor.Server) int { return cmp.Compare(a.Socket().String(), b.Socket().String()) })
	ov := view.Overview{Servers: []view.Server{}, Jobs: []view.Job{}}
	running := map[string]string{} // server key + pane -> job
	if d.jobs != nil {
		now := time.Now()
		for _, j := range d.jobs.All() {
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
func (v viewSource) server(ctx context.Context, srv *supervisor.Server, running map[string]string) view.Server {
	out, _ := v.tree(ctx, srv, running)
	return out
}

// tree is server, and the panes it listed (none when the server is not
// up).
func (v viewSource) tree(ctx context.Context, srv *supervisor.Server, running map[string]string) (view.Server, []tmux.Pane) {
	h := srv.Health()
	key := srv.Socket().String()
	out := view.Server{Key: key, Name: socketLabel(srv.Socket()), Health: h, Sessions: []view.Session{}, Events: []view.Event{}}
	if v.d.Journal != nil {
		// Structure changes are many and say little on a timeline.
		if evs, err := v.d.Journal.Events(srv.Socket(), time.Time{}, 4*viewEvents); err == nil {
			evs = slices.DeleteFunc(evs, func(e JournalEvent) bool { return e.Type == "structure" })
			for _, e := range evs[max(0, len(evs)-viewEvents):] {
				out.Events = append(out.Events, view.Event{Time: e.Time, Type: e.Type, Cause: e.Cause, Detail: e.Detail})
			}
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
		if a, _, err := v.d.readAgent(ctx, srv, p); err == nil && a != nil {
			vp.Agent = &view.Agent{Name: a.Name, State: a.State, Question: a.Question}
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
func (v viewSource) viewServer(key string) (*supervisor.Server, error) {
	for _, srv := range v.d.Sup.Servers() {
		if srv.Socket().String() == key {
			return srv, nil
		}
	}
	return nil, fmt.Errorf("%w: no supervised server %q", supervisor.ErrInvalidArgument, key)
}

// viewScreenState is read with the capture, in its round trip: the cursor
// and the pane's size. viewCursorState is the cursor only.
const (
	viewScreenState = "#{cursor_x} #{cursor_y} #{cursor_flag} #{pane_width} #{pane_height}"
	viewCursorState = "#{cursor_x} #{cursor_y} #{cursor_flag}"
)

// stateNumbers parses the n numbers of a StateAfter line.
func stateNumbers(state []byte, n int) ([]int, error) {
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
func (v viewSource) Screen(ctx context.Context, key, pane string) (view.Screen, error) {
	srv, err := v.viewServer(key)
	if err != nil {
		return view.Screen{}, err
	}
	c, err := srv.Capture(ctx, supervisor.CaptureRequest{Pane: tmux.PaneID(pane), Escape: true, StateAfter: viewScreenState})
	if err != nil {
		return view.Screen{}, err
	}
	nums, err := stateNumbers(c.State, 5)
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
func (v viewSource) Changes(ctx context.Context, key, pane string) (<-chan struct{}, func(), error) {
	srv, err := v.viewServer(key)
	if err != nil {
		return nil, nil, err
	}
	return srv.PaneChanges(ctx, tmux.PaneID(pane))
}

// OnStructure calls fn when a server's tree or life changed.
func (v viewSource) OnStructure(fn func()) func() {
	return v.d.events().Subscribe(func(e supervisor.Event) {
		switch e.Type {
		case supervisor.EventStructure, supervisor.EventServerDied, supervisor.EventRestarting, supervisor.EventRestarted,
			supervisor.EventRestored, supervisor.EventServerAdopted, supervisor.EventServerStarted:
			fn()
		}
	})
}

// Type types text into pane (then Enter), as send_keys does, one typist
// at a time per pane. The page offers it only at the destructive tier
// with --view-input: the person at the page decides.
func (v viewSource) Type(ctx context.Context, key, pane, text string, enter bool) error {
	srv, err := v.viewServer(key)
	if err != nil {
		return err
	}
	if v.d.Tier < Destructive {
		return errors.New("typing from the view needs the destructive tier")
	}
	id := tmux.PaneID(pane)
	unlock, err := v.d.panes.lock(ctx, srv.Socket(), id)
	if err != nil {
		return err
	}
	defer unlock()
	if text != "" {
		if err := drive.SendLiteral(ctx, srv, id, text); err != nil {
			return err
		}
	}
	if enter {
		return srv.TypeKeys(ctx, id, "Enter")
	}
	return nil
}
