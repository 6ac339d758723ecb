package tools

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/drive"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// runRoundsEnv sets how many run_commands TestRunCommandMarksRounds times
// per way (docs/tools.md's figures: 100).
const runRoundsEnv = "TMUX_MCP_RUN_ROUNDS"

// TestRunCommandMarksRounds measures issue 46's figure: run_command back
// to back in bash with the marks (the command typed as is) and in bash
// without them (the line that sources run_command's file), p50, p95 and
// max: at the default read rate (20 captures a second per pane, which
// bounds both ways) and with it raised out of the way. It runs only when
// that variable is set.
func TestRunCommandMarksRounds(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv(runRoundsEnv))
	if n <= 0 {
		t.Skip("measures run_command with and without marks; set " + runRoundsEnv + "=100")
	}
	for _, rate := range []float64{0, 10000} {
		tm := tmuxtest.New(t)
		tm.Start("main")
		cfg := testConfig(tm)
		cfg.ReadRate, cfg.ReadBurst, cfg.ServerRate, cfg.ServerBurst = rate, int(rate), rate, int(rate)
		e := newEnvOver(t, tm, cfg, Mutating)
		if e.caps().DeadPaneOutputCrash {
			t.Skip("no watcher on this tmux (3.2a)")
		}
		runRounds(t, e, n, rate)
	}
}

func runRounds(t *testing.T, e *env, n int, rate float64) {
	t.Helper()
	for _, way := range []string{"marks", "file"} {
		cmd := "env PS1='$ ' HISTFILE=/dev/null bash --noprofile --norc"
		if way == "marks" {
			cmd = markingShell(t, "bash")
		}
		p := e.window(cmd)
		e.waitScreen(p, "prompt", func(s string) bool { return strings.HasSuffix(s, "$") })
		e.ok("capture_pane", map[string]any{"pane_id": p}, nil)
		e.typeLine(p, "")
		var took []time.Duration
		for i := range n {
			start := time.Now()
			var r drive.RunResult
			e.ok("run_command", map[string]any{"pane_id": p, "command": "echo " + strconv.Itoa(i)}, &r)
			took = append(took, time.Since(start))
			if r.ExitStatus == nil || *r.ExitStatus != 0 || !slices.Equal(r.Output, []string{strconv.Itoa(i)}) {
				t.Fatalf("%s: run %d = %+v", way, i, r)
			}
		}
		slices.Sort(took)
		q := func(f float64) time.Duration {
			return took[min(len(took)-1, int(f*float64(len(took))))].Round(100 * time.Microsecond)
		}
		t.Logf("read rate %v (0: default), %s: %d run_commands (echo N): p50 %s, p95 %s, max %s", rate, way, n, q(0.5), q(0.95),
			took[len(took)-1].Round(100*time.Microsecond))
	}
}
