package supervisor

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// cmdFixture is a fresh session for one case of TestCmdMethods: window w
// holds panes p (which printed 1 to 100, so it has history) and p2, and
// window w2 one more pane; all run cat.
type cmdFixture struct {
	ts     *tmuxtest.Server
	srv    *Server
	name   string // the session's name, also the case's prefix for buffers
	s      tmux.SessionID
	w, w2  tmux.WindowID
	p, p2  tmux.PaneID
	other  tmux.SessionID // a second session, for MoveWindow
	tmpDir string
}

// newCmdFixture creates the sessions of one case through srv.
func newCmdFixture(t *testing.T, ts *tmuxtest.Server, srv *Server, name string) *cmdFixture {
	t.Helper()
	f := &cmdFixture{ts: ts, srv: srv, name: name, tmpDir: t.TempDir()}
	ids := strings.Fields(mustDo(t, srv, "new-session", "-d", "-P", "-F", "#{session_id} #{window_id} #{pane_id}",
		"-s", name, "-x", "120", "-y", "40", "seq 1 100; exec cat"))
	f.s, f.w, f.p = tmux.SessionID(ids[0]), tmux.WindowID(ids[1]), tmux.PaneID(ids[2])
	f.p2 = tmux.PaneID(mustDo(t, srv, "split-window", "-d", "-P", "-F", "#{pane_id}", "-t", string(f.p), "exec cat"))
	f.w2 = tmux.WindowID(mustDo(t, srv, "new-window", "-d", "-P", "-F", "#{window_id}", "-t", string(f.s)+":", "exec cat"))
	f.other = tmux.SessionID(mustDo(t, srv, "new-session", "-d", "-P", "-F", "#{session_id}", "-s", name+"-other", "exec cat"))
	// All of seq's output read by tmux (its last line on the screen), so
	// that nothing the pane prints later moves what a case checks (the
	// cursor after ResetTerminal); exec cat prints nothing.
	tmuxtest.WaitFor(t, 10*time.Second, "seq's last line on the screen", func() bool {
		return slices.Contains(strings.Split(f.ts.MustTmux("capture-pane", "-p", "-t", string(f.p)), "\n"), "100") &&
			f.q(t, string(f.p), "#{history_size}") != "0"
	})
	return f
}

// q expands format for target with the tmux CLI: the state the case
// checks, read past the supervisor.
func (f *cmdFixture) q(t *testing.T, target, format string) string {
	t.Helper()
	return f.ts.MustTmux("display-message", "-p", "-t", target, format)
}

// list runs a list command with the tmux CLI and returns its lines.
func (f *cmdFixture) list(t *testing.T, args ...string) []string {
	t.Helper()
	return strings.Split(f.ts.MustTmux(args...), "\n")
}

// wantEq fails the test unless got is want.
func wantEq(t *testing.T, what, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %q, want %q", what, got, want)
	}
}

// cmdCase is one case of the typed command methods' tests.
type cmdCase struct {
	name string
	run  func(ctx context.Context, t *testing.T, f *cmdFixture) error
	// check reads the state; nil: run's own checks are the test.
	check func(t *testing.T, f *cmdFixture)
}

// runCmdCases runs each case against an isolated tmux server, on a
// fixture of its own, over both transports.
func runCmdCases(t *testing.T, cases []cmdCase) {
	t.Helper()
	for _, execOnly := range []bool{false, true} {
		t.Run("execOnly="+strconv.FormatBool(execOnly), func(t *testing.T) {
			ts := tmuxtest.New(t)
			srv := mustServer(t, newSup(t, ts, Config{ExecOnly: execOnly}))
			for i, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					f := newCmdFixture(t, ts, srv, "c"+strconv.Itoa(i))
					if err := c.run(testCtx(t), t, f); err != nil {
						t.Fatalf("%s: %v", c.name, err)
					}
					if c.check != nil {
						c.check(t, f)
					}
				})
			}
		})
	}
}

// TestCmdMethods runs each typed command method against an isolated
// tmux server, over both transports, and checks the state tmux is left
// in with a query of its own. Names, titles and paths hold "#{...}",
// "#(...)", "%" and a leading "-": the methods must keep them literal.
func TestCmdMethods(t *testing.T) {
	cases := []cmdCase{
		{"KillPane", func(ctx context.Context, t *testing.T, f *cmdFixture) error { return f.srv.KillPane(ctx, f.p2) },
			func(t *testing.T, f *cmdFixture) {
				if panes := f.list(t, "list-panes", "-t", string(f.w), "-F", "#{pane_id}"); slices.Contains(panes, string(f.p2)) {
					t.Errorf("pane %s still listed: %v", f.p2, panes)
				}
			}},
		{"SelectPane", func(ctx context.Context, t *testing.T, f *cmdFixture) error { return f.srv.SelectPane(ctx, f.p2) },
			func(t *testing.T, f *cmdFixture) {
				wantEq(t, "pane_active", f.q(t, string(f.p2), "#{pane_active}"), "1")
			}},
		{"SelectPaneToward", func(ctx context.Context, t *testing.T, f *cmdFixture) error {
			if err := f.srv.SelectPane(ctx, f.p2); err != nil {
				return err
			}
			return f.srv.SelectPaneToward(ctx, f.w, PaneLast)
		}, func(t *testing.T, f *cmdFixture) {
			wantEq(t, "pane_active", f.q(t, string(f.p), "#{pane_active}"), "1")
		}},
		{"SetPaneTitle", func(ctx context.Context, t *testing.T, f *cmdFixture) error {
			return f.srv.SetPaneTitle(ctx, f.p, "-T #{pane_id} #(false) 100%")
		}, func(t *testing.T, f *cmdFixture) {
			wantEq(t, "pane_title", f.q(t, string(f.p), "#{pane_title}"), "-T #{pane_id} #(false) 100%")
		}},
		{"SwapPanes", func(ctx context.Context, t *testing.T, f *cmdFixture) error { return f.srv.SwapPanes(ctx, f.p, f.p2) },
			func(t *testing.T, f *cmdFixture) {
				wantEq(t, "pane indexes", f.q(t, string(f.p), "#{pane_index}")+" "+f.q(t, string(f.p2), "#{pane_index}"), "1 0")
			}},
		{"ResizePane", func(ctx context.Context, t *testing.T, f *cmdFixture) error { return f.srv.ResizePane(ctx, f.p, 0, 5) },
			func(t *testing.T, f *cmdFixture) {
				wantEq(t, "pane_height", f.q(t, string(f.p), "#{pane_height}"), "5")
			}},
		{"ToggleZoom", func(ctx context.Context, t *testing.T, f *cmdFixture) error { return f.srv.ToggleZoom(ctx, f.p) },
			func(t *testing.T, f *cmdFixture) {
				wantEq(t, "window_zoomed_flag", f.q(t, string(f.w), "#{window_zoomed_flag}"), "1")
			}},
		{"ResetTerminal", func(ctx context.Context, t *testing.T, f *cmdFixture) error { return f.srv.ResetTerminal(ctx, f.p) },
			func(t *testing.T, f *cmdFixture) {
				wantEq(t, "cursor", f.q(t, string(f.p), "#{cursor_x},#{cursor_y}"), "0,0")
			}},
		{"ClearHistory", func(ctx context.Context, t *testing.T, f *cmdFixture) error { return f.srv.ClearHistory(ctx, f.p) },
			func(t *testing.T, f *cmdFixture) {
				wantEq(t, "history_size", f.q(t, string(f.p), "#{history_size}"), "0")
			}},
		{"PipePane", func(ctx context.Context, t *testing.T, f *cmdFixture) error {
			return f.srv.PipePane(ctx, f.p, "cat >> '"+filepath.Join(f.tmpDir, "out-%H-#{pane_id}.log")+"'")
		}, func(t *testing.T, f *cmdFixture) {
			wantEq(t, "pane_pipe", f.q(t, string(f.p), "#{pane_pipe}"), "1")
			tmuxtest.WaitFor(t, 5*time.Second, "the pipe's file, named literally", func() bool {
				_, err := os.Stat(filepath.Join(f.tmpDir, "out-%H-#{pane_id}.log"))
				return err == nil
			})
		}},
		{"StopPipe", func(ctx context.Context, t *testing.T, f *cmdFixture) error {
			if err := f.srv.PipePane(ctx, f.p, "cat > /dev/null"); err != nil {
				return err
			}
			return f.srv.StopPipe(ctx, f.p)
		}, func(t *testing.T, f *cmdFixture) { wantEq(t, "pane_pipe", f.q(t, string(f.p), "#{pane_pipe}"), "0") }},
		{"CopyModeScrollUp", func(ctx context.Context, t *testing.T, f *cmdFixture) error {
			if err := f.srv.CopyMode(ctx, f.p); err != nil {
				return err
			}
			return f.srv.ScrollUp(ctx, f.p, 5)
		}, func(t *testing.T, f *cmdFixture) {
			wantEq(t, "mode", f.q(t, string(f.p), "#{pane_in_mode} #{scroll_position}"), "1 5")
		}},
		{"CancelCopyMode", func(ctx context.Context, t *testing.T, f *cmdFixture) error {
			if err := f.srv.CopyMode(ctx, f.p); err != nil {
				return err
			}
			return f.srv.CancelCopyMode(ctx, f.p)
		}, func(t *testing.T, f *cmdFixture) {
			wantEq(t, "pane_in_mode", f.q(t, string(f.p), "#{pane_in_mode}"), "0")
		}},
		{"RenameWindow", func(ctx context.Context, t *testing.T, f *cmdFixture) error {
			return f.srv.RenameWindow(ctx, f.w, "-n #{session_name} #(false)")
		}, func(t *testing.T, f *cmdFixture) {
			wantEq(t, "window_name", f.q(t, string(f.w), "#{window_name}"), "-n #{session_name} #(false)")
		}},
		{"KillWindow", func(ctx context.Context, t *testing.T, f *cmdFixture) error { return f.srv.KillWindow(ctx, f.w2) },
			func(t *testing.T, f *cmdFixture) {
				if ws := f.list(t, "list-windows", "-t", string(f.s), "-F", "#{window_id}"); slices.Contains(ws, string(f.w2)) {
					t.Errorf("window %s still listed: %v", f.w2, ws)
				}
			}},
		{"SelectWindow", func(ctx context.Context, t *testing.T, f *cmdFixture) error { return f.srv.SelectWindow(ctx, f.w2) },
			func(t *testing.T, f *cmdFixture) {
				wantEq(t, "window_active", f.q(t, string(f.w2), "#{window_active}"), "1")
			}},
		{"NextWindow", func(ctx context.Context, t *testing.T, f *cmdFixture) error { return f.srv.NextWindow(ctx, f.s) },
			func(t *testing.T, f *cmdFixture) {
				wantEq(t, "current window", f.q(t, string(f.s), "#{window_id}"), string(f.w2))
			}},
		{"PreviousWindow", func(ctx context.Context, t *testing.T, f *cmdFixture) error { return f.srv.PreviousWindow(ctx, f.s) },
			func(t *testing.T, f *cmdFixture) {
				wantEq(t, "current window", f.q(t, string(f.s), "#{window_id}"), string(f.w2))
			}},
		{"LastWindow", func(ctx context.Context, t *testing.T, f *cmdFixture) error {
			if err := f.srv.SelectWindow(ctx, f.w2); err != nil {
				return err
			}
			return f.srv.LastWindow(ctx, f.s)
		}, func(t *testing.T, f *cmdFixture) {
			wantEq(t, "current window", f.q(t, string(f.s), "#{window_id}"), string(f.w))
		}},
		{"SelectLayout", func(ctx context.Context, t *testing.T, f *cmdFixture) error {
			return f.srv.SelectLayout(ctx, f.w, "even-horizontal")
		},
			func(t *testing.T, f *cmdFixture) {
				wantEq(t, "side by side", f.q(t, string(f.p), "#{pane_top}")+" "+f.q(t, string(f.p2), "#{pane_top}"), "0 0")
			}},
		{"ResizeWindow", func(ctx context.Context, t *testing.T, f *cmdFixture) error {
			return f.srv.ResizeWindow(ctx, f.w, 100, 30)
		},
			func(t *testing.T, f *cmdFixture) {
				wantEq(t, "window size", f.q(t, string(f.w), "#{window_width}x#{window_height}"), "100x30")
			}},
		{"MoveWindow", func(ctx context.Context, t *testing.T, f *cmdFixture) error {
			return f.srv.MoveWindow(ctx, f.w2, f.other, "7")
		},
			func(t *testing.T, f *cmdFixture) {
				wantEq(t, "window", f.q(t, string(f.w2), "#{session_id}:#{window_index}"), string(f.other)+":7")
			}},
		{"RenameSession", func(ctx context.Context, t *testing.T, f *cmdFixture) error {
			return f.srv.RenameSession(ctx, f.other, "-s #{pane_id} #(false)")
		}, func(t *testing.T, f *cmdFixture) {
			wantEq(t, "session_name", f.q(t, string(f.other), "#{session_name}"), "-s #{pane_id} #(false)")
		}},
		{"KillSession", func(ctx context.Context, t *testing.T, f *cmdFixture) error { return f.srv.KillSession(ctx, f.other) },
			func(t *testing.T, f *cmdFixture) {
				if ss := f.list(t, "list-sessions", "-F", "#{session_id}"); slices.Contains(ss, string(f.other)) {
					t.Errorf("session %s still listed: %v", f.other, ss)
				}
			}},
		{"Buffers", func(ctx context.Context, t *testing.T, f *cmdFixture) error {
			name := f.name + "-#{b}"
			if err := f.srv.SetBuffer(ctx, name, "-a #{x}"); err != nil {
				return err
			}
			if err := f.srv.AppendBuffer(ctx, name, " %d"); err != nil {
				return err
			}
			path := filepath.Join(f.tmpDir, "#{x}.buf")
			if err := f.srv.SaveBuffer(ctx, name, path); err != nil {
				return err
			}
			if b, err := os.ReadFile(path); err != nil || string(b) != "-a #{x} %d" {
				t.Errorf("saved buffer = %q, %v; want %q", b, err, "-a #{x} %d")
			}
			if err := f.srv.LoadBuffer(ctx, f.name+"-loaded", path); err != nil {
				return err
			}
			names, err := f.srv.ListBuffers(ctx)
			if err != nil {
				return err
			}
			if !slices.Contains(names, name) || !slices.Contains(names, f.name+"-loaded") {
				t.Errorf("ListBuffers = %v, want %s and %s-loaded among them", names, name, f.name)
			}
			return f.srv.PasteBuffer(ctx, f.p2, f.name+"-loaded", PasteOptions{Delete: true, Bracket: true})
		}, func(t *testing.T, f *cmdFixture) {
			wantEq(t, "set buffer", f.ts.MustTmux("show-buffer", "-b", f.name+"-#{b}"), "-a #{x} %d")
			if bs := f.list(t, "list-buffers", "-F", "#{buffer_name}"); slices.Contains(bs, f.name+"-loaded") {
				t.Errorf("PasteBuffer with Delete left the buffer: %v", bs)
			}
			tmuxtest.WaitFor(t, 5*time.Second, "the pasted text in the pane", func() bool {
				out, _ := f.ts.Tmux("capture-pane", "-p", "-t", string(f.p2))
				return strings.Contains(out, "-a #{x} %d")
			})
		}},
		{"Display", func(ctx context.Context, t *testing.T, f *cmdFixture) error {
			out, err := f.srv.DisplayMessage(ctx, f.p, "-#{pane_id}-")
			if err != nil {
				return err
			}
			wantEq(t, "DisplayMessage", out, "-"+string(f.p)+"-")
			rec, err := f.srv.DisplayRecord(ctx, f.p, "window_id", "session_name")
			if err != nil {
				return err
			}
			wantEq(t, "DisplayRecord", strings.Join(rec, " "), string(f.w)+" "+f.name)
			return nil
		}, nil},
		{"FilterPanes", func(ctx context.Context, t *testing.T, f *cmdFixture) error {
			ids, err := f.srv.FilterPanes(ctx, "#{==:#{session_id},"+string(f.s)+"}")
			if err != nil {
				return err
			}
			slices.Sort(ids)
			exp := []tmux.PaneID{f.p, f.p2, tmux.PaneID(f.q(t, string(f.w2), "#{pane_id}"))}
			slices.Sort(exp)
			if !slices.Equal(ids, exp) {
				t.Errorf("FilterPanes = %v, want %v", ids, exp)
			}
			return nil
		}, nil},
		{"SynchronizedPanes", func(ctx context.Context, t *testing.T, f *cmdFixture) error {
			f.ts.MustTmux("set-option", "-p", "-t", string(f.p2), "synchronize-panes", "on")
			got, err := f.srv.SynchronizedPanes(ctx, f.p)
			if err != nil {
				return err
			}
			if len(got) != 2 || got[f.p] || !got[f.p2] {
				t.Errorf("SynchronizedPanes = %v, want %s off and %s on", got, f.p, f.p2)
			}
			return nil
		}, nil},
		{"Environment", func(ctx context.Context, t *testing.T, f *cmdFixture) error {
			for _, s := range []tmux.SessionID{f.s, ""} {
				value := "v #{x} $HOME " + string(s)
				if err := f.srv.SetEnvironment(ctx, s, "TMCP_"+f.name, value); err != nil {
					return err
				}
				vars, skipped, err := f.srv.ShowEnvironment(ctx, s)
				if err != nil {
					return err
				}
				if v := vars["TMCP_"+f.name]; v == nil || *v != value || skipped != 0 {
					t.Errorf("ShowEnvironment(%q) = %v (skipped %d), want TMCP_%s=%q", s, v, skipped, f.name, value)
				}
			}
			return nil
		}, func(t *testing.T, f *cmdFixture) {
			// show-environment escapes "$" before a name (`\$HOME`) up to tmux
			// 3.4: read it in -s form with the decoder, as the tools do.
			for _, c := range []struct{ what, scope, want string }{
				{"session environment", "-t" + string(f.s), "v #{x} $HOME " + string(f.s)},
				{"global environment", "-g", "v #{x} $HOME "},
			} {
				vars, _ := tmux.ParseEnvironment([]byte(f.ts.MustTmux("show-environment", "-s", c.scope, "TMCP_"+f.name)))
				got := "<unset>"
				if v := vars["TMCP_"+f.name]; v != nil {
					got = *v
				}
				wantEq(t, c.what, got, c.want)
			}
		}},
		{"PaneOptions", func(ctx context.Context, t *testing.T, f *cmdFixture) error {
			f.ts.MustTmux("set-option", "-p", "-t", string(f.p), "@tmcp_"+f.name, "v #{pane_id} #(true)")
			names, err := f.srv.PaneOptionNames(ctx, f.p)
			if err != nil {
				return err
			}
			if !slices.Contains(names, "@tmcp_"+f.name) {
				t.Errorf("PaneOptionNames = %q, want it to hold @tmcp_%s", names, f.name)
			}
			v, err := f.srv.PaneOption(ctx, f.p, "@tmcp_"+f.name)
			if err != nil {
				return err
			}
			wantEq(t, "PaneOption", strings.TrimSpace(v), "v #{pane_id} #(true)")
			return f.srv.UnsetPaneOption(ctx, f.p, "@tmcp_"+f.name)
		}, func(t *testing.T, f *cmdFixture) {
			wantEq(t, "the option after UnsetPaneOption", f.ts.MustTmux("show-options", "-p", "-q", "-v", "-t", string(f.p), "@tmcp_"+f.name), "")
		}},
		{"Channels", func(ctx context.Context, t *testing.T, f *cmdFixture) error {
			// tmux keeps a signal no client waited for and wakes the next
			// wait with it: signal, then wait.
			ch := "tmcp-" + f.name
			if err := f.srv.SignalChannel(ctx, ch); err != nil {
				return err
			}
			return f.srv.WaitForChannel(ctx, ch)
		}, nil},
		{"Typing", func(ctx context.Context, t *testing.T, f *cmdFixture) error {
			// cat echoes each line: key names are keys, TypeText's text
			// is text, and "--" keeps "-l" a key, not a flag.
			if err := f.srv.TypeText(ctx, f.p2, "Enter"); err != nil {
				return err
			}
			if err := f.srv.TypeKeys(ctx, f.p2, "Enter"); err != nil {
				return err
			}
			if err := f.srv.TypeKeys(ctx, f.p2, "-l", "Enter"); err != nil {
				return err
			}
			tmuxtest.WaitFor(t, 10*time.Second, "the typed lines echoed", func() bool {
				out, _ := f.ts.Tmux("capture-pane", "-p", "-t", string(f.p2))
				lines := strings.Split(out, "\n")
				return count(lines, "Enter") == 2 && count(lines, "-l") == 2
			})
			return nil
		}, nil},
		{"Records", func(ctx context.Context, t *testing.T, f *cmdFixture) error {
			rec, err := f.srv.ServerRecord(ctx, "pid", "socket_path")
			if err != nil {
				return err
			}
			wantEq(t, "ServerRecord", strings.Join(rec, " "), f.ts.MustTmux("display-message", "-p", "#{pid} #{socket_path}"))
			recs, err := f.srv.PaneRecords(ctx, "pane_id", "session_name")
			if err != nil {
				return err
			}
			found := 0
			for _, r := range recs {
				if r[1] == f.name && (r[0] == string(f.p) || r[0] == string(f.p2)) {
					found++
				}
			}
			if found != 2 {
				t.Errorf("PaneRecords = %q, want %s and %s in session %s", recs, f.p, f.p2, f.name)
			}
			return nil
		}, nil},
		{"Replay", func(ctx context.Context, t *testing.T, f *cmdFixture) error {
			_, err := f.srv.Replay(ctx, []string{"rename-window", "-t", string(f.w), "--", "-r #{window_id} #(false)"})
			return err
		}, func(t *testing.T, f *cmdFixture) {
			wantEq(t, "window_name", f.q(t, string(f.w), "#{window_name}"), "-r #{window_id} #(false)")
		}},
		{"Errors", func(ctx context.Context, t *testing.T, f *cmdFixture) error {
			if err := f.srv.SelectPaneToward(ctx, f.w, "sideways"); !errors.Is(err, ErrInvalidArgument) {
				t.Errorf("SelectPaneToward(sideways) = %v, want ErrInvalidArgument", err)
			}
			if err := f.srv.KillPane(ctx, "%999999"); !errors.Is(err, tmux.ErrNotFound) {
				t.Errorf("KillPane(%%999999) = %v, want tmux.ErrNotFound", err)
			}
			if _, err := f.srv.SynchronizedPanes(ctx, "%999999"); !errors.Is(err, tmux.ErrNotFound) {
				t.Errorf("SynchronizedPanes(%%999999) = %v, want tmux.ErrNotFound", err)
			}
			// tmux 3.3a expands a display-message for a pane that does
			// not exist with no pane at all: the caller compares pane_id.
			if rec, err := f.srv.DisplayRecord(ctx, "%999999", "pane_id"); err == nil && rec[0] == "%999999" {
				t.Errorf("DisplayRecord(%%999999) = %q", rec)
			}
			return nil
		}, nil},
	}
	runCmdCases(t, cases)
}

// count returns how many of lines are s.
func count(lines []string, s string) int {
	n := 0
	for _, l := range lines {
		if l == s {
			n++
		}
	}
	return n
}
