package tmux_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor/tmux"
	"github.com/tmux-mcp/tmux-mcp/supervisor/tmux/tmuxtest"
)

// TestHandshakeGateUnderChurn: control clients attach and leave through
// one Client while sessions are created, renamed and killed through it,
// over control mode and over exec, as tmux-mcp's watchers and its agents'
// sessions do. Before 3.7 tmux notifies a control client that is still
// identifying itself and dies of it (IdentifyingClientNotified); the
// handshake gate keeps the server alive. With the gate off, 3.3a and 3.6b
// died in most runs of this test. On 3.7 the gate is off and tmux itself
// is safe: the test checks that too.
func TestHandshakeGateUnderChurn(t *testing.T) {
	c, s := newClient(t, "control")
	pid := s.PID()
	cctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	const diallers, dials = 2, 40
	errs := make(chan error, diallers+2)
	var dialled sync.WaitGroup
	for range diallers {
		dialled.Add(1)
		go func() {
			defer dialled.Done()
			for range dials {
				ctrl, err := tmux.DialControl(cctx, tmux.ControlOptions{
					Exec: c.Exec(), Target: "=main", Flags: "no-output,ignore-size", NoStartServer: true,
				})
				if err != nil {
					errs <- fmt.Errorf("dial: %w", err)
					return
				}
				ctrl.Close() //nolint:errcheck // leaving is part of the churn
			}
		}()
	}
	done := make(chan struct{})
	var churned sync.WaitGroup
	churn := func(name string, tr tmux.Transport) {
		defer churned.Done()
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			default:
			}
			s := name + strconv.Itoa(i)
			for _, args := range [][]string{
				{"new-session", "-d", "-s", s, "exec cat"},
				{"rename-session", "-t", "=" + s, s + "r"},
				{"kill-session", "-t", "=" + s + "r"},
			} {
				if _, err := tr.Run(cctx, args...); err != nil {
					errs <- fmt.Errorf("%s over %s: %w", args[0], tr.Kind(), err)
					return
				}
			}
		}
	}
	churned.Add(2)
	go churn("ctl", c.Transport())
	go churn("exec", c.Exec())
	dialled.Wait()
	close(done)
	churned.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if !tmuxtest.Alive(pid) {
		t.Fatalf("tmux server %d died during the churn (%d dials)", pid, diallers*dials)
	}
}
