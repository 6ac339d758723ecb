package journal

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/agent/agentstub"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/supervisor/death"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// roundsEnv sets how many tmux deaths TestAgentsComeBackRounds measures
// per CLI (docs/agents.md's figures: 20).
const roundsEnv = "TMUX_MCP_RESUME_ROUNDS"

// TestAgentsComeBackRounds measures issue 45's figure: from SIGKILL of the
// tmux server to the resumed agent's answer to its next prompt on screen,
// p50 and p95 over TMUX_MCP_RESUME_ROUNDS deaths of the same conversation
// per CLI, and the turns each request after a resume carried of those held
// before it. It runs only when that variable is set.
func TestAgentsComeBackRounds(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv(roundsEnv))
	if n <= 0 {
		t.Skip("measures agents resumed after tmux deaths; set " + roundsEnv + "=20")
	}
	for _, name := range []string{agentstub.Claude, agentstub.Codex} {
		t.Run(name, func(t *testing.T) {
			// Each death is one of its own, as a crash in a day of work is:
			// the server has been up long enough (StableAfter) for the
			// supervisor to restart it at once, not to back off as from a
			// crash loop (5 deaths in a minute: declared down).
			r := startAgent(t, name, &Options{ResumeAgents: true}, death.RestartPolicy{StableAfter: 2 * time.Second})
			p := agentstub.Attach(t, r.ts, "=agent:0.0")
			prompts := []string{"round zero"}
			p.Turn(r.stub, name, prompts[0], 1)
			var restored, ready, took []time.Duration
			kept, want := 0, 0
			for i := 1; i <= n; i++ {
				// The journal must have the conversation before the death.
				if _, err := r.j.TakeSnapshot(testCtx(t), r.srv); err != nil {
					t.Fatal(err)
				}
				flush(t, r.j)
				// Up for StableAfter since the last restart.
				tmuxtest.WaitFor(t, 10*time.Second, "the server to be up for 2 s", func() bool {
					return time.Since(r.srv.Health().UpSince) > 2*time.Second
				})
				restores := r.rec.count(supervisor.EventRestored)
				start := time.Now()
				syscall.Kill(r.srv.Health().PID, syscall.SIGKILL) //nolint:errcheck // the server tmuxtest started and tracks
				tmuxtest.WaitFor(t, 30*time.Second, "the restore", func() bool { return r.rec.count(supervisor.EventRestored) > restores })
				restored = append(restored, time.Since(start))
				prompt := fmt.Sprintf("round %d", i)
				back := agentstub.Attach(t, r.ts, "=agent:0.0")
				back.WaitText(prompts[len(prompts)-1], 60*time.Second) // the transcript
				back.WaitText(agentstub.IdleText(name), 60*time.Second)
				ready = append(ready, time.Since(start))
				back.Turn(r.stub, name, prompt, len(prompts)+1) // waits 1 s of a still screen before typing
				took = append(took, time.Since(start))
				rs := r.stub.Requests()
				j := slices.IndexFunc(rs, func(q agentstub.Request) bool { return strings.Contains(q.Body, prompt) })
				for _, earlier := range prompts {
					want++
					if j >= 0 && strings.Contains(rs[j].Body, earlier) {
						kept++
					}
				}
				prompts = append(prompts, prompt)
			}
			t.Logf("%s on tmux %s, %d deaths (p50 / p95 / max): kill -9 to restored %s; to the resumed CLI's input box %s; to its answer of the next prompt %s (typed after 1 s of a still screen); turns kept %d of %d",
				name, r.srv.Health().Version, n, quantiles(restored), quantiles(ready), quantiles(took), kept, want)
			if kept != want {
				t.Errorf("turns kept %d of %d, want all", kept, want)
			}
		})
	}
}

// quantiles renders the p50, p95 and maximum of ds: the p-th percentile
// is the smallest value at least p% of ds do not exceed (of 20: the 10th
// and the 19th).
func quantiles(ds []time.Duration) string {
	s := slices.Clone(ds)
	slices.Sort(s)
	q := func(p int) time.Duration { return s[max(0, (len(s)*p+99)/100-1)].Round(time.Millisecond) }
	return fmt.Sprintf("%v / %v / %v", q(50), q(95), s[len(s)-1].Round(time.Millisecond))
}
