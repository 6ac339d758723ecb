package tmux_test

import (
	"context"
	"errors"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// TestRunSequence runs command lists over both transports: the outputs in
// order; tmux stops at the first command that fails, and the connection
// stays in step with the blocks it owes.
func TestRunSequence(t *testing.T) {
	for _, kind := range []string{"control", "exec"} {
		t.Run(kind, func(t *testing.T) {
			c, _ := newClient(t, kind)
			type sequencer interface {
				RunSequence(ctx context.Context, cmds ...[]string) ([]byte, error)
			}
			tr, ok := c.Transport().(sequencer)
			if !ok {
				t.Fatalf("the %s transport has no RunSequence", kind)
			}
			out, err := tr.RunSequence(ctx(t),
				[]string{"display-message", "-p", "one;"},
				[]string{"set-buffer", "-b", "seq", "x"},
				[]string{"display-message", "-p", "two"})
			if got, want := string(out), "one;\ntwo\n"; err != nil || got != want {
				t.Errorf("sequence = %q, %v; want %q", got, err, want)
			}
			// The second fails: the third never runs (its buffer is not
			// set), and the error is the second's.
			_, err = tr.RunSequence(ctx(t),
				[]string{"display-message", "-p", "first"},
				[]string{"kill-pane", "-t", "%999999"},
				[]string{"set-buffer", "-b", "seq", "changed"})
			if !errors.Is(err, tmux.ErrPaneNotFound) {
				t.Errorf("failing sequence error = %v, want ErrPaneNotFound", err)
			}
			if got := run(t, c, "show-buffer", "-b", "seq"); got != "x" {
				t.Errorf("buffer after the failed sequence = %q, want x (the command after the failure must not run)", got)
			}
			if got := run(t, c, "display-message", "-p", "still"); got != "still" {
				t.Errorf("after the sequences: %q, want still", got)
			}
		})
	}
}
