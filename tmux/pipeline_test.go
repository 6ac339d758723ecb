package tmux_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

func TestControlPipeline(t *testing.T) {
	c, _ := newClient(t, "control")
	ctrl := c.Control()
	outs, errs := ctrl.Pipeline(ctx(t),
		[]string{"set-buffer", "-b", "p1", "one"},
		[]string{"show-buffer", "-b", "p1"},
		[]string{"kill-pane", "-t", "%999"},
		[]string{"display-message", "-p", "after"},
		[]string{"delete-buffer", "-b", "p1"},
	)
	want := []struct {
		out string
		err error
	}{{"", nil}, {"one", nil}, {"", tmux.ErrPaneNotFound}, {"after", nil}, {"", nil}}
	for i, w := range want {
		if got := strings.TrimSpace(string(outs[i])); w.err == nil && got != w.out {
			t.Errorf("command %d output = %q, want %q", i, got, w.out)
		}
		if (w.err == nil) != (errs[i] == nil) || (w.err != nil && !errors.Is(errs[i], w.err)) {
			t.Errorf("command %d error = %v, want %v", i, errs[i], w.err)
		}
	}
	// A command that cannot be sent fails, and so do the ones after it.
	_, errs = ctrl.Pipeline(ctx(t), []string{"display-message", "-p", "x"}, []string{"select-layout", "x"}, []string{"list-sessions"})
	if errs[0] != nil || !errors.Is(errs[1], tmux.ErrRefused) || !errors.Is(errs[2], tmux.ErrRefused) {
		t.Errorf("errors = %v, want nil, then ErrRefused twice", errs)
	}
	// The connection is still in step.
	if got := run(t, c, "display-message", "-p", "still"); got != "still" {
		t.Errorf("after pipelines: %q, want still", got)
	}
}
