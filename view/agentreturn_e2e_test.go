package view_test

import (
	"net/url"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tmux-mcp/tmux-mcp/agent/agentstub"
	"github.com/tmux-mcp/tmux-mcp/internal/e2etest"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
	"github.com/tmux-mcp/tmux-mcp/view/browsertest"
)

// TestViewShowsAgentsComingBack: a pane running an agent CLI says on the
// page what becomes of the agent when tmux dies, and why. The agent is a
// process named claude whose conversation tmux-mcp cannot read, so with
// --resume-agents it is "not resumed", its reason in the badge's title.
func TestViewShowsAgentsComingBack(t *testing.T) {
	claude := agentstub.Lookalike(t, "claude")
	tm := tmuxtest.New(t)
	tm.MustTmux("new-session", "-d", "-s", "team", "-x", "120", "-y", "32", "exec "+claude+" 600")
	tm.MustTmux("split-window", "-t", "=team:")
	tmuxtest.WaitFor(t, 10*time.Second, "the agent pane's program", func() bool {
		pid, _ := tm.Tmux("display-message", "-p", "-t", "=team:0.0", "#{pane_pid}")
		return agentstub.Execed(pid, claude)
	})
	p := e2etest.StartHTTP(t, tm, "--view", "--resume-agents")
	ctx := browsertest.New(t, 1200, 900)
	base := p.URL[:len(p.URL)-len("/mcp")]
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/view/login#token="+url.QueryEscape(p.Token))); err != nil {
		t.Fatal(err)
	}
	waitPage(t, ctx, 15*time.Second, "two panes drawn", paneCount+` === 2`)
	drawn := time.Now()
	waitPage(t, ctx, 90*time.Second, "the agent's pane says it does not come back, and why",
		`[...document.querySelectorAll('.badge.return-not_resumed')].some(b => b.textContent === "not resumed" && b.title.includes("its conversation is not known"))`)
	t.Logf("the badge showed %v after the panes were drawn", time.Since(drawn).Round(time.Millisecond))
	if n := eval[int](t, ctx, `document.querySelectorAll('.badge[class*="return-"]').length`); n != 1 {
		t.Errorf("%d panes carry a return badge, want 1 (the agent's)", n)
	}
}
