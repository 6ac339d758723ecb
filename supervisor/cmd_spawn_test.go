package supervisor

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// waitScreen waits until pane's screen holds text (wrapped lines joined).
func (f *cmdFixture) waitScreen(t *testing.T, pane tmux.PaneID, text string) {
	t.Helper()
	tmuxtest.WaitFor(t, 10*time.Second, "pane "+string(pane)+" to show "+strconv.Quote(text), func() bool {
		out, _ := f.ts.Tmux("capture-pane", "-p", "-J", "-t", string(pane))
		return strings.Contains(out, text)
	})
}

// spawnDir makes a start directory whose name tmux would expand.
func (f *cmdFixture) spawnDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(f.tmpDir, "-c #{pane_id} 100%")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

// spawned is the Spawn of the cases: a directory tmux would expand, a
// variable, and a command that prints both and stays.
func (f *cmdFixture) spawned(t *testing.T, mark string) Spawn {
	t.Helper()
	return Spawn{StartDir: f.spawnDir(t), Env: []string{"TMCP_SPAWN=" + mark + " #{x}"},
		Command: `printf '%s in %s\n' "$TMCP_SPAWN" "$(pwd)"; exec cat`}
}

// wantSpawned checks that pane runs what spawned(mark) asked, where.
func (f *cmdFixture) wantSpawned(t *testing.T, pane tmux.PaneID, mark string) {
	t.Helper()
	f.waitScreen(t, pane, mark+" #{x} in "+filepath.Join(f.tmpDir, "-c #{pane_id} 100%"))
}

// TestSpawnMethods: new-session, new-window, split-window and
// respawn-pane, typed, over both transports. Names, directories and
// commands hold "#{...}", "#(...)", "%" and a leading "-".
func TestSpawnMethods(t *testing.T) {
	runCmdCases(t, []cmdCase{
		{"NewSession", func(ctx context.Context, t *testing.T, f *cmdFixture) error {
			name := f.name + "-new #{pane_id} #(false)"
			s, p, err := f.srv.NewSession(ctx, NewSessionOptions{Name: name, WindowName: "-n #{session_name}",
				Width: 90, Height: 30, Spawn: f.spawned(t, "ns")})
			if err != nil {
				return err
			}
			wantEq(t, "the session's pane", f.q(t, string(s), "#{pane_id}"), string(p))
			wantEq(t, "names", f.q(t, string(p), "#{session_name}|#{window_name}"), name+"|-n #{session_name}")
			if v, err := tmux.ParseVersion(f.ts.MustTmux("-V")); err == nil && !v.Capabilities().ControlClientSizesWindows {
				// Before 3.3 the window takes the size of the client that
				// created it, a known limit (the capability).
				wantEq(t, "size", f.q(t, string(p), "#{window_width}x#{window_height}"), "90x30")
			}
			wantEq(t, "attached", f.q(t, string(s), "#{session_attached}"), "0")
			f.wantSpawned(t, p, "ns")
			return nil
		}, nil},
		{"NewWindow", func(ctx context.Context, t *testing.T, f *cmdFixture) error {
			w, p, err := f.srv.NewWindow(ctx, NewWindowOptions{Session: f.s, Name: "-n #{window_id}", Spawn: f.spawned(t, "nw")})
			if err != nil {
				return err
			}
			wantEq(t, "the window's pane", f.q(t, string(w), "#{pane_id}"), string(p))
			wantEq(t, "window", f.q(t, string(w), "#{session_id}|#{window_index}|#{window_name}|#{window_active}"),
				string(f.s)+"|2|-n #{window_id}|0")
			f.wantSpawned(t, p, "nw")
			return nil
		}, nil},
		{"NewWindowAfter", func(ctx context.Context, t *testing.T, f *cmdFixture) error {
			w, _, err := f.srv.NewWindow(ctx, NewWindowOptions{After: f.w, Select: true})
			if err != nil {
				return err
			}
			wantEq(t, "window", f.q(t, string(w), "#{window_index} #{window_active}"), "1 1")
			wantEq(t, "the window after it", f.q(t, string(f.w2), "#{window_index}"), "2")
			return nil
		}, nil},
		{"NewWindowBefore", func(ctx context.Context, t *testing.T, f *cmdFixture) error {
			w, _, err := f.srv.NewWindow(ctx, NewWindowOptions{Before: f.w2})
			if err != nil {
				return err
			}
			wantEq(t, "window", f.q(t, string(w), "#{window_index} #{window_active}"), "1 0")
			wantEq(t, "the window it went before", f.q(t, string(f.w2), "#{window_index}"), "2")
			return nil
		}, nil},
		{"SplitWindow", func(ctx context.Context, t *testing.T, f *cmdFixture) error {
			p, err := f.srv.SplitWindow(ctx, SplitOptions{Pane: f.p, Horizontal: true, Before: true, Size: "10", Spawn: f.spawned(t, "sp")})
			if err != nil {
				return err
			}
			wantEq(t, "new pane", f.q(t, string(p), "#{window_id} #{pane_width} #{pane_left} #{pane_active}"), string(f.w)+" 10 0 0")
			if left := f.q(t, string(f.p), "#{pane_left}"); left == "0" {
				t.Errorf("the split pane's left = %s, want it right of the new pane", left)
			}
			f.wantSpawned(t, p, "sp")
			return nil
		}, nil},
		{"SplitWindowBelow", func(ctx context.Context, t *testing.T, f *cmdFixture) error {
			top := f.q(t, string(f.w2), "#{pane_id}")
			p, err := f.srv.SplitWindow(ctx, SplitOptions{Window: f.w2, Size: "50%"})
			if err != nil {
				return err
			}
			wantEq(t, "new pane's window", f.q(t, string(p), "#{window_id}"), string(f.w2))
			if a, b := f.q(t, top, "#{pane_top}"), f.q(t, string(p), "#{pane_top}"); a != "0" || b == "0" {
				t.Errorf("pane tops %s (split) and %s (new), want the new one below", a, b)
			}
			return nil
		}, nil},
		{"RespawnPane", func(ctx context.Context, t *testing.T, f *cmdFixture) error {
			if err := f.srv.RespawnPane(ctx, f.p2, RespawnOptions{}); err == nil {
				t.Error("RespawnPane of a live pane without Kill: no error")
			}
			if err := f.srv.RespawnPane(ctx, f.p2, RespawnOptions{Kill: true, Spawn: f.spawned(t, "rp")}); err != nil {
				return err
			}
			f.wantSpawned(t, f.p2, "rp")
			return nil
		}, nil},
		{"SpawnErrors", func(ctx context.Context, t *testing.T, f *cmdFixture) error {
			if _, _, err := f.srv.NewWindow(ctx, NewWindowOptions{Before: f.w, After: f.w2}); !errors.Is(err, ErrInvalidArgument) {
				t.Errorf("NewWindow before and after = %v, want ErrInvalidArgument", err)
			}
			if _, err := f.srv.SplitWindow(ctx, SplitOptions{Pane: f.p, Spawn: Spawn{Env: []string{"NOVALUE"}}}); !errors.Is(err, ErrInvalidArgument) {
				t.Errorf("SplitWindow with env NOVALUE = %v, want ErrInvalidArgument", err)
			}
			if _, err := f.srv.SplitWindow(ctx, SplitOptions{Pane: "%999999"}); !errors.Is(err, tmux.ErrNotFound) {
				t.Errorf("SplitWindow of %%999999 = %v, want tmux.ErrNotFound", err)
			}
			return nil
		}, func(t *testing.T, f *cmdFixture) {
			if n := len(f.list(t, "list-panes", "-t", string(f.w), "-F", "#{pane_id}")); n != 2 {
				t.Errorf("window %s has %d panes after refused splits, want 2", f.w, n)
			}
		}},
	})
}
