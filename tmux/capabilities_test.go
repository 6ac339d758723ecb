package tmux_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// TestCapabilities checks each row of the capability table against the
// tmux under test (make matrix runs it on every version): what the row
// says this version does is what the server does. A row whose behaviour
// cannot be seen in one command names the test that covers it.
func TestCapabilities(t *testing.T) {
	c, s := newClient(t, "control")
	ex, _ := newClient(t, "exec")
	got := caps(t, c)
	t.Logf("tmux %s: %+v", tmuxtest.Binary(t), got)
	tests := []struct {
		row  string
		have bool
		saw  func(t *testing.T) bool
	}{
		// Every supported version has these; a server that lacked them
		// would fail newClient (control flags, -N) or tmuxtest (-D).
		{"ClientFlags", got.ClientFlags, func(t *testing.T) bool { return true }},
		{"Foreground", got.Foreground, func(t *testing.T) bool { return true }},
		{"ShowBufferEscaped", got.ShowBufferEscaped, func(t *testing.T) bool {
			run(t, c, "set-buffer", "-b", "capx", "--", "a\x01b")
			return run(t, c, "show-buffer", "-b", "capx") == `a\001b`
		}},
		{"OutputEscaped", got.OutputEscaped, func(t *testing.T) bool {
			out, err := ex.Exec().Run(ctx(t), "display-message", "-p", "--", "a\x01b")
			if err != nil {
				t.Fatal(err)
			}
			return string(out) == "a\\001b\n"
		}},
		{"OutputDollarEscaped", got.OutputDollarEscaped, func(t *testing.T) bool {
			out, err := ex.Exec().Run(ctx(t), "display-message", "-p", "--", "$x")
			if err != nil {
				t.Fatal(err)
			}
			return string(out) == "\\$x\n"
		}},
		{"ControlClientSizesWindows", got.ControlClientSizesWindows, func(t *testing.T) bool {
			run(t, c, "new-session", "-d", "-s", "sized", "-x", "100", "-y", "30")
			w := run(t, c, "new-window", "-d", "-P", "-F", "#{window_id}", "-t", "=sized:")
			return run(t, c, "display-message", "-p", "-t", w, "#{window_width}x#{window_height}") == "80x24"
		}},
		{"MissingTimeCrashes", got.MissingTimeCrashes, func(t *testing.T) bool {
			// On a server of its own: the crash ends it.
			_, s := newClient(t, "exec")
			pid := s.PID()
			// Guarded, as tmux-mcp reads it: never a crash.
			if _, err := s.Tmux("display-message", "-p", "-t", "%999999", "#{?window_id,#{window_activity},}"); err != nil {
				t.Fatalf("guarded time variable of a missing pane: %v", err)
			}
			s.Tmux("display-message", "-p", "-t", "%999999", "#{window_activity}") //nolint:errcheck // may crash
			return !tmuxtest.Alive(pid) || s.PID() != pid
		}},
		// ControlBuffersCrash: a race (a buffer changed while a control
		// client identifies); TestConcurrentCapturesOfBusyPanesAreFresh
		// crashed 3.5a once in three runs while captures used buffers.
		{"ControlBuffersCrash", got.ControlBuffersCrash, func(t *testing.T) bool { return got.ControlBuffersCrash }},
		// FDLimitLivelock: TestFDLivelockTerminatedAndRestarted drives a
		// server to its fd limit and checks either row value.
		{"FDLimitLivelock", got.FDLimitLivelock, func(t *testing.T) bool { return got.FDLimitLivelock }},
		// ControlNotifyInBlock: %pause inside a reply block is parsed by
		// TestControlPauseInsideBlock and the recorded transcripts; it is
		// assumed on every version (no release has been seen without it).
		{"ControlNotifyInBlock", got.ControlNotifyInBlock, func(t *testing.T) bool { return true }},
		{"TitlesEscaped", got.TitlesEscaped, func(t *testing.T) bool {
			pane := run(t, c, "display-message", "-p", "-t", "=main:", "#{pane_id}")
			run(t, c, "select-pane", "-t", pane, "-T", `a\b`)
			return paneTitle(t, c, pane) == `a\\b`
		}},
		{"NewWindowNameEscaped", got.NewWindowNameEscaped, func(t *testing.T) bool {
			win := run(t, c, "new-window", "-d", "-P", "-F", "#{window_id}", "-t", "=main:", "-n", `n\b`, "exec cat")
			return run(t, c, "display-message", "-p", "-t", win, "#{window_name}") == `n\\b`
		}},
		{"ProgramJobsDefused", got.ProgramJobsDefused, func(t *testing.T) bool {
			// The pane's program sets its title; no client is attached, so
			// no status line shows it and the job never runs either way.
			pane := run(t, c, "split-window", "-d", "-P", "-F", "#{pane_id}", "-t", "=main:",
				`printf '\033]2;p#(true)\033\\'; exec cat`)
			var title string
			tmuxtest.WaitFor(t, 5*time.Second, "the title the pane's program sets", func() bool {
				title = paneTitle(t, c, pane)
				return strings.HasPrefix(title, "p")
			})
			return title == "p_(true)"
		}},
		// SpinRegressions: spins and a livelock under load, not something
		// one command shows. The diagnose tests (TestHealthyServerIsAllOK,
		// TestGoldenHealthy, TestDiagnoseBinary, ...) expect its warning
		// exactly when this row is set.
		{"SpinRegressions", got.SpinRegressions, func(t *testing.T) bool { return got.SpinRegressions }},
		// DeadPaneOutputCrash: on a server of its own (the crash ends
		// it); see deadPaneOutputCrashes.
		{"DeadPaneOutputCrash", got.DeadPaneOutputCrash, deadPaneOutputCrashes},
		// ControlCapture: the leak is in the server's memory, not in what a
		// command answers; TestContractSendKeysAndCapture checks that the
		// path each version takes answers exactly what exec answers.
		{"ControlCapture", got.ControlCapture, func(t *testing.T) bool { return got.ControlCapture }},
		// IdentifyingClientNotified: a race (a notification between two
		// reads of a control client's identity). TestHandshakeGateUnderChurn
		// runs the churn that kills these versions within a second, with
		// the gate on where this row is set, and must keep the server up.
		{"IdentifyingClientNotified", got.IdentifyingClientNotified, func(t *testing.T) bool { return got.IdentifyingClientNotified }},
	}
	for _, tt := range tests {
		t.Run(tt.row, func(t *testing.T) {
			if saw := tt.saw(t); saw != tt.have {
				t.Errorf("%s: table says %v, server does %v", tt.row, tt.have, saw)
			}
		})
	}
	_ = s
}

// paneTitle reads the title of pane through c.
func paneTitle(t *testing.T, c *tmux.Client, pane string) string {
	t.Helper()
	panes, err := c.ListPanes(ctx(t))
	if err != nil {
		t.Fatalf("ListPanes: %v", err)
	}
	for _, p := range panes {
		if string(p.ID) == pane {
			return p.Title
		}
	}
	t.Fatalf("no pane %s", pane)
	return ""
}

// TestRecordsSurviveHostileValues gives a pane a working directory whose
// name holds the bytes that could break or forge a record (separators,
// escapes, newlines, control characters, a forged control-mode "%end",
// invalid UTF-8; a directory name is any bytes but NUL and '/', and
// pane_current_path is the raw name) and reads it back through the
// listings on both transports.
func TestRecordsSurviveHostileValues(t *testing.T) {
	hostile := []string{
		"a|b>c\\d;e",
		"line\n%end 1 2 1\n%exit",
		"ctl\x01\x1e\x1f\x7f\tend",
		"dollar $HOME ${x} $_ \\$x \\\\$y",
		"oct \\001 \\n \\e",
		"utf8 é ✓ 🙂 and bad \xff\xfe",
		"#{pane_id} #(true) ##",
	}
	forEachTransport(t, func(t *testing.T, kind string) {
		c, s := newClient(t, kind)
		pane := run(t, c, "display-message", "-p", "-t", "=main:", "#{pane_id}")
		for i, v := range hostile {
			t.Run(fmt.Sprint(i), func(t *testing.T) {
				dir := filepath.Join(s.Dir, v)
				if err := os.Mkdir(dir, 0o700); err != nil {
					t.Fatal(err)
				}
				name := filepath.Join(s.Dir, "name")
				if err := os.WriteFile(name, []byte(dir), 0o600); err != nil {
					t.Fatal(err)
				}
				// The shell reads the name from a file: no tmux argument
				// carries it.
				run(t, c, "respawn-pane", "-k", "-t", pane, "cd \"$(cat "+name+")\" && exec cat")
				var got string
				tmuxtest.WaitFor(t, 5*time.Second, "the pane in the new directory", func() bool {
					panes, err := c.ListPanes(ctx(t))
					if err != nil {
						t.Fatalf("ListPanes: %v", err)
					}
					if len(panes) != 1 {
						t.Fatalf("ListPanes: %d panes, want 1 (a value split or joined records)", len(panes))
					}
					got = panes[0].CurrentPath
					return got == dir
				})
				rec, err := c.Run(ctx(t), "display-message", "-p", "-t", pane, tmux.RecordFormat("pane_current_path", "pane_id"))
				if err != nil {
					t.Fatal(err)
				}
				f, err := tmux.ParseRecord(rec, 2)
				if err != nil {
					t.Fatal(err)
				}
				if f[0] != dir || f[1] != pane {
					t.Errorf("display-message record = %q, want [%q %q]", f, dir, pane)
				}
			})
		}
	})
}

// TestRecordsReadUTF8WithoutLocale: a client with no locale at all (an MCP
// client's default environment) still reads non-ASCII names exactly,
// because every tmux runs with -u.
func TestRecordsReadUTF8WithoutLocale(t *testing.T) {
	for _, k := range []string{"LANG", "LC_ALL", "LC_CTYPE"} {
		t.Setenv(k, "")
	}
	c, _ := newClient(t, "exec")
	run(t, c, "rename-session", "-t", "=main", "naïve-✓")
	sessions, err := c.ListSessions(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range sessions {
		names = append(names, s.Name)
	}
	if got, want := strings.Join(names, ","), "naïve-✓"; got != want {
		t.Errorf("sessions = %q, want %q", got, want)
	}
	if !bytes.Contains([]byte(fmt.Sprint(names)), []byte("✓")) {
		t.Errorf("non-ASCII lost: %q", names)
	}
}
