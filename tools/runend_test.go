package tools

import (
	"fmt"
	"slices"
	"strconv"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/drive"
)

// TestRunCommandNoHistory: in a pane that keeps no history (history-limit
// 0), where lines that scroll off the screen are gone uncounted, the
// output is still the command's, found after its prompt.
func TestRunCommandNoHistory(t *testing.T) {
	e := newEnv(t, Mutating)
	e.tmux("set-option", "-g", "history-limit", "0")
	p := e.shell()
	e.tmux("resize-window", "-t", p, "-x", "60", "-y", "8")
	for i := range 3 {
		var r drive.RunResult
		e.ok("run_command", map[string]any{"pane_id": p, "command": fmt.Sprintf("seq %d 4", i+1)}, &r)
		var want []string
		for n := i + 1; n <= 4; n++ {
			want = append(want, strconv.Itoa(n))
		}
		if !slices.Equal(r.Output, want) || deref(r.ExitStatus) != 0 || r.Truncated {
			t.Errorf("run %d: output %q, exit %v, truncated %v; want %q, exit 0", i, r.Output, deref(r.ExitStatus), r.Truncated, want)
		}
	}
}
