package tmux_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// churnStockEnv, set to 1, makes TestControlClientsUnderChurn dial with
// tmux's own control client (tmux -C attach-session) instead of
// tmux-mcp's: on 3.2a-3.6b the server then dies (the crash the native
// client's atomic identification removes), which shows that the test
// catches it.
const churnStockEnv = "TMUX_MCP_CHURN_STOCK"

// TestControlClientsUnderChurn: control clients attach and leave while
// sessions are created, renamed and killed, and panes selected and put in
// and out of copy mode and buffers set and deleted, both through
// tmux-mcp's own transports and by another program (tmux client
// processes, which tmux-mcp cannot hold back). Before 3.7 tmux writes
// such notifications to a control client that is still identifying
// itself and dies of it (IdentifyingClientNotified); tmux-mcp's clients
// identify in one turn of the server's loop (package native), so none of them
// is ever in that state where anything can reach it.
func TestControlClientsUnderChurn(t *testing.T) {
	c, s := newClient(t, "control")
	pid := s.PID()
	cctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	stock := os.Getenv(churnStockEnv) == "1"

	const diallers, dials = 3, 60
	errs := make(chan error, diallers+8)
	var dialled sync.WaitGroup
	for range diallers {
		dialled.Add(1)
		go func() {
			defer dialled.Done()
			for range dials {
				if stock {
					cmd := exec.CommandContext(cctx, tmuxtest.Binary(t), "-S", s.Socket, "-C", "attach-session", "-t", "=main", "-f", "no-output")
					cmd.Stdin = nil // EOF at once: the client attaches and leaves
					if out, err := cmd.CombinedOutput(); err != nil && !tmuxtest.Alive(pid) {
						errs <- fmt.Errorf("tmux -C: %v: %s", err, out)
						return
					}
					continue
				}
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
	churn := func(name string, run func(args ...string) error) {
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
				{"split-window", "-d", "-t", "=" + s + "r:", "exec cat"},
				{"select-pane", "-t", "=" + s + "r:.1"},
				{"copy-mode", "-t", "=" + s + "r:.1"},
				{"send-keys", "-X", "-t", "=" + s + "r:.1", "cancel"},
				{"set-buffer", "-b", s, "x"},
				{"delete-buffer", "-b", s},
				{"kill-session", "-t", "=" + s + "r"},
			} {
				if err := run(args...); err != nil {
					errs <- fmt.Errorf("%s by %s: %w", args[0], name, err)
					return
				}
			}
		}
	}
	foreign := func(args ...string) error {
		argv := append([]string{"-S", s.Socket}, args...)
		if out, err := exec.CommandContext(cctx, tmuxtest.Binary(t), argv...).CombinedOutput(); err != nil {
			return fmt.Errorf("%v: %s", err, out)
		}
		return nil
	}
	over := func(tr tmux.Transport) func(args ...string) error {
		return func(args ...string) error { _, err := tr.Run(cctx, args...); return err }
	}
	churned.Add(3)
	go churn("ctl", over(c.Transport()))
	go churn("exec", over(c.Exec()))
	go churn("other", foreign)
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
