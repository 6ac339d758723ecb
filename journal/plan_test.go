package journal

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// layout3 is a real tmux layout of three panes (one above, two below).
const layout3 = "4211,200x50,0,0[200x25,0,0,1,200x24,0,26{100x24,0,26,2,99x24,101,26,3}]"

// layout2 is a real tmux layout of two panes side by side.
const layout2 = "b25d,200x50,0,0{100x50,0,0,4,99x50,101,0,5}"

// testSnap is a snapshot of server 100 with two sessions:
//
//	$1 work: @1 "edit" (index 0, panes %1 %2 %3, layout3, %2 active, zoomed), @2 "logs" (index 2, pane %4)
//	$2 play: @3 (automatic name, index 0, pane %5)
func testSnap() *Snapshot {
	return &Snapshot{Seq: 7, Server: Server{PID: 100, StartTime: 1000, BaseIndex: 0}, Sessions: []Session{
		{ID: "$1", Name: "work", Width: 200, Height: 50, Windows: []Window{
			{ID: "@1", Index: 0, Name: "edit", Layout: layout3, Active: true, Zoomed: true, Width: 200, Height: 50, Panes: []Pane{
				{ID: "%1", Index: 0, Title: "one", Path: "/src"},
				{ID: "%2", Index: 1, Title: "two", Path: "/src/a", Active: true},
				{ID: "%3", Index: 2, Path: "/src/b"},
			}},
			{ID: "@2", Index: 2, Name: "logs", Layout: "c0d1,200x50,0,0,4", Width: 200, Height: 50, Panes: []Pane{
				{ID: "%4", Index: 0, Path: "/var/log", Active: true},
			}},
		}},
		{ID: "$2", Name: "play", Width: 80, Height: 24, Windows: []Window{
			{ID: "@3", Index: 0, Name: "bash", AutomaticRename: true, Active: true, Layout: "c0d1,80x24,0,0,5", Panes: []Pane{
				{ID: "%5", Index: 0, Path: "/home", Active: true},
			}},
		}},
	}}
}

// live returns the live state of an empty server (base-index base).
func emptyLive(base int) *Snapshot {
	return &Snapshot{Server: Server{PID: 200, StartTime: 2000, BaseIndex: base}, Sessions: []Session{}}
}

func stepStrings(p RestorePlan) []string {
	out := make([]string, len(p.Steps))
	for i, s := range p.Steps {
		out[i] = s.String()
	}
	return out
}

func diffSteps(t *testing.T, got RestorePlan, want []string) {
	t.Helper()
	g := stepStrings(got)
	if !slices.Equal(g, want) {
		t.Errorf("steps:\ngot:\n  %s\nwant:\n  %s", strings.Join(g, "\n  "), strings.Join(want, "\n  "))
	}
}

const pf = `-P -F "#{session_id} #{window_id} #{pane_id}"`

func TestPlanEmptyLive(t *testing.T) {
	got := Plan(testSnap(), emptyLive(0), nil, PlanOptions{})
	diffSteps(t, got, []string{
		`new-session -d -s work -x 200 -y 50 -n edit ` + pf + ` -c /src`,
		`split-window -d -t {%1} ` + pf + ` -c /src/a`,
		`select-layout -t {@1} tiled`,
		`split-window -d -t {%2} ` + pf + ` -c /src/b`,
		`select-layout -t {@1} tiled`,
		`select-pane -t {%1} -T one`,
		`select-pane -t {%2} -T two`,
		`select-layout -t {@1} ` + layout3,
		`select-pane -t {%2}`,
		`resize-pane -Z -t {%2}`,
		`new-window -d -t {$1}:2 -n logs ` + pf + ` -c /var/log`,
		`select-layout -t {@2} c0d1,200x50,0,0,4`,
		`select-pane -t {%4}`,
		`select-window -t {@1}`,
		`new-session -d -s play -x 80 -y 24 ` + pf + ` -c /home`,
		`select-layout -t {@3} c0d1,80x24,0,0,5`,
		`select-pane -t {%5}`,
		`select-window -t {@3}`,
	})
	creates := map[string]Creates{}
	for _, s := range got.Steps {
		if s.Creates != nil {
			creates[s.Args[0].Text] = *s.Creates
		}
	}
	if len(got.Matched) != 0 {
		t.Errorf("Matched = %v, want nothing on an empty server", got.Matched)
	}
	if c := got.Steps[0].Creates; c == nil || c.Session != "$1" || c.Window != "@1" || c.Pane != "%1" {
		t.Errorf("new-session creates %+v, want $1 @1 %%1", c)
	}
	if c := got.Steps[1].Creates; c == nil || c.Pane != "%2" || c.Session != "" || c.Window != "" {
		t.Errorf("split-window creates %+v, want %%2 only", c)
	}
}

// TestPlanReplaysTitlesAsStored: a title recorded from a tmux that stores
// titles escaped (3.7: a backslash doubled) is replayed unescaped, so that
// tmux stores it as recorded; one recorded from an older tmux is replayed
// as it is.
func TestPlanReplaysTitlesAsStored(t *testing.T) {
	tests := []struct{ version, recorded, replayed string }{
		{"3.7c", `a\\b \\$HOME`, `a\b \$HOME`},
		{"master", `a\\b`, `a\b`},
		{"3.6b", `a\\b`, `a\\b`},
		{"", `a\\b`, `a\\b`}, // version unknown: as it is
	}
	for _, tt := range tests {
		snap := testSnap()
		snap.Server.Version = tt.version
		snap.Sessions[0].Windows[0].Panes[0].Title = tt.recorded
		got := "(no select-pane -T)"
		for _, s := range Plan(snap, emptyLive(0), nil, PlanOptions{}).Steps {
			if len(s.Args) == 5 && s.Args[0].Text == "select-pane" && s.Args[2].Ref == "%1" && s.Args[3].Text == "-T" {
				got = s.Args[4].Text
			}
		}
		if got != tt.replayed {
			t.Errorf("tmux %q, title %q recorded: replayed %q, want %q", tt.version, tt.recorded, got, tt.replayed)
		}
	}
}

func TestPlanBaseIndexMovesFirstWindow(t *testing.T) {
	got := Plan(testSnap(), emptyLive(1), nil, PlanOptions{})
	want := `move-window -d -s {@1} -t {$1}:0`
	if g := stepStrings(got); len(g) < 2 || g[1] != want {
		t.Errorf("second step = %q, want %q", g[1], want)
	}
	if want := `move-window -d -s {@3} -t {$2}:0`; !slices.Contains(stepStrings(got), want) {
		t.Errorf("steps %q: want %q (play's first window has index 0, the server's base-index is 1)", stepStrings(got), want)
	}
}

// restoredLive returns the state a faithful restore of snap leaves on a
// new server (IDs renumbered, +100), and the ID map of that restore.
func restoredLive(snap *Snapshot) (*Snapshot, map[string]string) {
	ids := map[string]string{}
	renum := func(id string) string {
		n := fmt.Sprintf("%c%d", id[0], idNumber(id)+100)
		ids[id] = n
		return n
	}
	live := &Snapshot{Server: Server{PID: 300, StartTime: 3000}}
	for _, s := range snap.Sessions {
		ls := s
		ls.ID = tmux.SessionID(renum(string(s.ID)))
		ls.Windows = nil
		for _, w := range s.Windows {
			lw := w
			lw.ID = tmux.WindowID(renum(string(w.ID)))
			lw.Panes = nil
			for _, p := range w.Panes {
				lp := p
				lp.ID = tmux.PaneID(renum(string(p.ID)))
				lw.Panes = append(lw.Panes, lp)
			}
			ls.Windows = append(ls.Windows, lw)
		}
		live.Sessions = append(live.Sessions, ls)
	}
	return live, ids
}

func TestPlanTwiceChangesNothing(t *testing.T) {
	snap := testSnap()
	live, ids := restoredLive(snap)
	got := Plan(snap, live, ids, PlanOptions{RestoreCommands: true})
	diffSteps(t, got, []string{})
	if len(got.Matched) != len(ids) {
		t.Errorf("matched %d objects, want %d: %v", len(got.Matched), len(ids), got.Matched)
	}
	for old, n := range ids {
		if got.Matched[old] != n {
			t.Errorf("Matched[%s] = %q, want %q", old, got.Matched[old], n)
		}
	}
}

func TestPlanSameServerComparesIDs(t *testing.T) {
	snap := testSnap()
	live := testSnap()
	live.Sessions = live.Sessions[:1] // session play was killed
	live.Sessions[0].Name = "renamed" // and work renamed: same ID, left alone
	live.Sessions[0].Windows[0].Panes = live.Sessions[0].Windows[0].Panes[:2]
	got := Plan(snap, live, nil, PlanOptions{})
	diffSteps(t, got, []string{
		`split-window -d -t {%2} ` + pf + ` -c /src/b`,
		`select-layout -t {@1} tiled`,
		`select-layout -t {@1} ` + layout3,
		`select-pane -t {%2}`,
		`resize-pane -Z -t {%2}`,
		`select-window -t {@1}`,
		`new-session -d -s play -x 80 -y 24 ` + pf + ` -c /home`,
		`select-layout -t {@3} c0d1,80x24,0,0,5`,
		`select-pane -t {%5}`,
		`select-window -t {@3}`,
	})
}

func TestPlanPartialLive(t *testing.T) {
	// A new server where someone already made session "work" with one
	// pane in window 0: it is taken for $1 by name, its pane for %1 by
	// index; the rest is added to it.
	live := emptyLive(0)
	live.Sessions = []Session{{ID: "$0", Name: "work", Windows: []Window{
		{ID: "@0", Index: 0, Name: "bash", Panes: []Pane{{ID: "%0", Index: 0}}},
	}}}
	got := Plan(testSnap(), live, nil, PlanOptions{})
	diffSteps(t, got, []string{
		`split-window -d -t {%1} ` + pf + ` -c /src/a`,
		`select-layout -t {@1} tiled`,
		`split-window -d -t {%2} ` + pf + ` -c /src/b`,
		`select-layout -t {@1} tiled`,
		`select-pane -t {%2} -T two`,
		`select-layout -t {@1} ` + layout3,
		`select-pane -t {%2}`,
		`resize-pane -Z -t {%2}`,
		`new-window -d -t {$1}:2 -n logs ` + pf + ` -c /var/log`,
		`select-layout -t {@2} c0d1,200x50,0,0,4`,
		`select-pane -t {%4}`,
		`select-window -t {@1}`,
		`new-session -d -s play -x 80 -y 24 ` + pf + ` -c /home`,
		`select-layout -t {@3} c0d1,80x24,0,0,5`,
		`select-pane -t {%5}`,
		`select-window -t {@3}`,
	})
	for old, want := range map[string]string{"$1": "$0", "@1": "@0", "%1": "%0"} {
		if got.Matched[old] != want {
			t.Errorf("Matched[%s] = %q, want %q", old, got.Matched[old], want)
		}
	}
}

func TestPlanRenamedSession(t *testing.T) {
	snap := testSnap()
	live, ids := restoredLive(snap)
	live.Sessions[0].Name = "renamed-by-agent"
	t.Run("mapped", func(t *testing.T) {
		// The map says $1 is now $101: its new name is the agent's choice.
		got := Plan(snap, live, ids, PlanOptions{})
		diffSteps(t, got, []string{})
	})
	t.Run("unmapped", func(t *testing.T) {
		// Without the map nothing says the renamed session is "work".
		got := Plan(snap, live, nil, PlanOptions{})
		if g := stepStrings(got); len(g) == 0 || !strings.HasPrefix(g[0], "new-session -d -s work ") {
			t.Errorf("first step = %q, want work created again", g)
		}
		if _, ok := got.Matched["$1"]; ok {
			t.Errorf("Matched[$1] = %q, want no match", got.Matched["$1"])
		}
		if got.Matched["$2"] != "$102" {
			t.Errorf("Matched[$2] = %q, want $102 (play, by name)", got.Matched["$2"])
		}
	})
}

func TestPlanLayoutCells(t *testing.T) {
	tests := []struct {
		name      string
		layout    string
		panes     int
		wantApply bool
	}{
		{"as many cells as panes", layout3, 3, true},
		{"more cells than panes", layout3, 2, true}, // tmux closes the cells left over
		{"fewer cells than panes", layout2, 3, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := Window{ID: "@1", Index: 0, Name: "w", Layout: tt.layout}
			for i := range tt.panes {
				w.Panes = append(w.Panes, Pane{ID: tmux.PaneID(fmt.Sprintf("%%%d", i+1)), Index: i})
			}
			w.Panes[0].Active = true
			snap := &Snapshot{Server: Server{PID: 1, StartTime: 1}, Sessions: []Session{{ID: "$1", Name: "s", Windows: []Window{w}}}}
			got := Plan(snap, emptyLive(0), nil, PlanOptions{})
			applied := slices.Contains(stepStrings(got), "select-layout -t {@1} "+tt.layout)
			if applied != tt.wantApply {
				t.Errorf("layout applied = %v, want %v; steps %q", applied, tt.wantApply, stepStrings(got))
			}
			noted := slices.ContainsFunc(got.Notes, func(n string) bool { return strings.Contains(n, "layout not applied") })
			if noted == tt.wantApply {
				t.Errorf("notes %q: want a note exactly when the layout is not applied", got.Notes)
			}
		})
	}
	if got := layoutCells(layout3); got != 3 {
		t.Errorf("layoutCells(layout3) = %d, want 3", got)
	}
}

func TestPlanCommands(t *testing.T) {
	pane := func(p Pane) *Snapshot {
		p.ID, p.Index, p.Path, p.Active = "%1", 0, "/w", true
		return &Snapshot{Server: Server{PID: 1, StartTime: 1}, Sessions: []Session{{ID: "$1", Name: "s", Windows: []Window{
			{ID: "@1", Index: 0, Name: "w", Panes: []Pane{p}}}}}}
	}
	created := &Created{Argv: []string{"python3", "-m", "http.server"}, Env: []string{"PORT=8000"}}
	optIn := &Created{Argv: []string{"sleep", "1000"}, Restore: true}
	tests := []struct {
		name string
		pane Pane
		o    PlanOptions
		want []string // the first step, then any typed command
	}{
		{"default shell, not re-run", Pane{Command: "bash"}, PlanOptions{},
			[]string{`new-session -d -s s -n w ` + pf + ` -c /w`}},
		{"created, not re-run by default; its environment is", Pane{Created: created}, PlanOptions{},
			[]string{`new-session -d -s s -n w ` + pf + ` -c /w -e PORT=8000`}},
		{"created, environment names only: not given", Pane{Created: &Created{Env: []string{"PORT"}}}, PlanOptions{},
			[]string{`new-session -d -s s -n w ` + pf + ` -c /w`}},
		{"created, re-run with --restore-commands", Pane{Created: created}, PlanOptions{RestoreCommands: true},
			[]string{`new-session -d -s s -n w ` + pf + ` -c /w -e PORT=8000 -- python3 -m http.server`}},
		{"created with the restore flag", Pane{Created: optIn}, PlanOptions{},
			[]string{`new-session -d -s s -n w ` + pf + ` -c /w -- sleep 1000`}},
		{"start command, unquoted", Pane{StartCommand: `"exec sleep 10000"`}, PlanOptions{RestoreCommands: true},
			[]string{`new-session -d -s s -n w ` + pf + ` -c /w -- "exec sleep 10000"`}},
		{"program typed into the shell", Pane{Argv: []string{"vim", "my file.txt"}, InShell: true}, PlanOptions{RestoreCommands: true},
			[]string{`new-session -d -s s -n w ` + pf + ` -c /w`, `send-keys -t {%1} -l -- "vim 'my file.txt'"`, `send-keys -t {%1} Enter`}},
		{"dead pane, never re-run", Pane{Dead: true, Created: optIn}, PlanOptions{RestoreCommands: true},
			[]string{`new-session -d -s s -n w ` + pf + ` -c /w`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := stepStrings(Plan(pane(tt.pane), emptyLive(0), nil, tt.o))
			var sel []string
			for _, s := range got {
				if strings.HasPrefix(s, "new-session") || strings.HasPrefix(s, "send-keys") {
					sel = append(sel, s)
				}
			}
			if !slices.Equal(sel, tt.want) {
				t.Errorf("got %q, want %q", sel, tt.want)
			}
		})
	}
}

func TestPlanGroupedSessions(t *testing.T) {
	snap := testSnap()
	snap.Sessions[0].Group = "g"
	snap.Sessions = append(snap.Sessions, Session{ID: "$3", Name: "work-view", Group: "g", Windows: snap.Sessions[0].Windows})
	got := stepStrings(Plan(snap, emptyLive(0), nil, PlanOptions{}))
	want := `new-session -d -s work-view -t {$1} ` + pf
	if got[len(got)-1] != want {
		t.Errorf("last step = %q, want %q", got[len(got)-1], want)
	}
	if n := strings.Count(strings.Join(got, "\n"), "-n logs"); n != 1 {
		t.Errorf("window logs created %d times, want once (the group shares it)", n)
	}
}

// TestStepStringQuotes: a step as `journal restore --dry-run` prints it
// quotes every argument a person could misread, and every one holding a
// byte a terminal would act on.
func TestStepStringQuotes(t *testing.T) {
	tests := []struct {
		args []Arg
		want string
	}{
		{lit("new-session", "-s", "work"), `new-session -s work`},
		{lit("new-session", "-s", "a b"), `new-session -s "a b"`},
		{lit("new-window", "-c", "/tmp/d\x1b]2;pwned\a"), `new-window -c "/tmp/d\x1b]2;pwned\a"`},
		{lit("rename-window", "x\u202ey"), `rename-window "x\u202ey"`},
		{[]Arg{{Ref: "$3"}, {Ref: "@1", Text: ":\x1b"}}, `{$3} {@1}":\x1b"`},
	}
	for _, tt := range tests {
		if got := (Step{Args: tt.args}).String(); got != tt.want {
			t.Errorf("Step%v.String() = %s, want %s", tt.args, got, tt.want)
		}
	}
}
