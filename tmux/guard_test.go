package tmux_test

import (
	"errors"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

func TestLayoutGuard(t *testing.T) {
	forEachTransport(t, func(t *testing.T, kind string) {
		c, s := newClient(t, kind)
		pid := s.PID()
		win := run(t, c, "display-message", "-p", "-t", "=main:", "#{window_id}")
		layout := run(t, c, "display-message", "-p", "-t", win, "#{window_layout}")
		tests := []struct {
			layout  string
			refused bool
		}{
			{"x", true},
			{"tiledx", true},
			{"zzzz,80x24,0,0,1", true},
			{"tiled", false},
			{"main-v", false}, // tmux takes name prefixes
			{"even", false},   // ambiguous: tmux answers "invalid layout"
			{layout, false},
			{"b25f,80x24,0,0{", false}, // tmux answers "invalid layout"
		}
		for _, tt := range tests {
			_, err := c.Run(ctx(t), "select-layout", "-t", win, tt.layout)
			if got := errors.Is(err, tmux.ErrRefused); got != tt.refused {
				t.Errorf("select-layout %q: refused = %v (%v), want %v", tt.layout, got, err, tt.refused)
			}
			if !tmuxtest.Alive(pid) {
				t.Fatalf("server died after select-layout %q", tt.layout)
			}
		}
	})
}

// TestLayoutCrashIsReal shows why the guard exists: the same input sent
// behind the wire's back kills the server. Newer tmux may have fixed it.
func TestLayoutCrashIsReal(t *testing.T) {
	s := tmuxtest.New(t)
	pid := s.Start("main")
	if out, _ := s.Tmux("-V"); out != "tmux 3.3a" {
		t.Skipf("crash measured on tmux 3.3a; this is %s", out)
	}
	s.Tmux("select-layout", "-t", "=main:", "x") //nolint:errcheck // expected to fail
	tmuxtest.WaitFor(t, 2*time.Second, "server to die", func() bool { return !tmuxtest.Alive(pid) })
	t.Logf("tmux %d died on select-layout x, as measured on 3.3a", pid)
}

// TestExecNoStart: with SetNoStart, even new-session never starts a server.
func TestExecNoStart(t *testing.T) {
	s := tmuxtest.New(t)
	e := &tmux.Exec{Socket: tmux.Socket{Path: s.Socket}, Config: "/dev/null"}
	e.SetNoStart(true)
	_, err := e.Run(ctx(t), "new-session", "-d", "-s", "x")
	if !tmux.IsServerDown(err) {
		t.Fatalf("new-session with -N and no server: got %v, want a server-down error", err)
	}
	if pid := s.PID(); pid != 0 {
		t.Errorf("a server (pid %d) was started", pid)
	}
}
