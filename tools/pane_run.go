package tools

import (
	"context"
	"os/exec"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/drive"
	"github.com/tmux-mcp/tmux-mcp/supervisor/capture"
	"github.com/tmux-mcp/tmux-mcp/taskext"
	"github.com/tmux-mcp/tmux-mcp/tooldef"
)

// Shared parameters of the tools that wait.
var (
	pTimeout  = mcp.WithNumber("timeout")
	pMaxLines = mcp.WithInteger("max_lines")
)

var runSchema = tooldef.Record(tField, []string{"pane_id", "timed_out", "elapsed_seconds", "output", "output_truncated",
	"output_truncated_lines", "effective_timeout", "ready_timed_out", "history_overflowed"},
	map[string]any{"exit_status": tIntNull})

// RunCommand runs a shell command in a pane and returns its exit status and
// output.
func RunCommand(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("run_command", "Run a command at a pane's prompt; returns its exit status and output.",
		tooldef.Shell, runSchema,
		paneTarget(mcp.WithString("command", mcp.Required()), pTimeout, pMaxLines, pSuppressHist, pIfSHA256,
			mcp.WithBoolean("background"), pAllowAttended)...)
	return t, withRequest(handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		start := time.Now()
		cmd := p.Str("command")
		noHistory := p.Flag("suppress_history", true)
		switch {
		case strings.TrimSpace(cmd) == "":
			return nil, &toolError{msg: "command must not be empty", class: "argument"}
		case noHistory && strings.ContainsAny(cmd, "\r\n"):
			return nil, &toolError{msg: "command must be a single line when suppress_history=True", class: "argument",
				hint: "Pass suppress_history=false for a multi-line command."}
		}
		if p.Bool("background") {
			return d.startJob(ctx, p, cmd, noHistory)
		}
		timeout, err := d.timeoutArg(p, 30)
		if err != nil {
			return nil, err
		}
		maxLines, err := tooldef.Positive(p, "max_lines", d.Sup.Config().CaptureLines)
		if err != nil {
			return nil, err
		}
		tp, err := d.startTyping(ctx, p)
		if err != nil {
			return nil, err
		}
		defer tp.unlock()
		srv, pn, notReady := tp.srv, tp.pane, tp.notReady
		if err := jobError(d.jobs.CheckFree(srv.Socket(), pn.ID)); err != nil {
			return nil, err
		}
		r := d.newRun(srv, pn.ID)
		res, err := r.Do(ctx, d.runs, d.tmuxPath(), cmd, noHistory, timeout)
		if err != nil {
			if ctx.Err() != nil && taskext.From(ctx).Task() != "" {
				// A task cancelled (tasks/cancel, stop_job): its command
				// stops too, as stop_job's first step would stop a job's.
				ictx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
				_ = drive.Keystroke{Keys: "C-c"}.Send(ictx, srv, pn.ID)
				cancel()
			}
			return nil, err
		}
		if res.ExitStatus != nil && !res.Prompted {
			// The prompt is late: the next call that types waits for it.
			if now, err := drive.ReadPane(ctx, srv, pn.ID); err == nil && now.CursorX == 0 {
				d.panes.ExpectPrompt(srv.Socket(), now)
			}
		}
		res.Output, res.TruncatedLines = capture.TailLines(res.Output, maxLines, res.TruncatedLines)
		res.Truncated = res.TruncatedLines > 0 || res.Truncated
		res.PaneID = string(pn.ID)
		res.EffectiveTimeout = timeout.Seconds()
		res.ReadyTimedOut = notReady
		res.Elapsed = seconds(time.Since(start))
		return structured(res)
	}))
}

// timeoutArg returns the timeout argument (def seconds when absent),
// clamped to the ceiling.
func (d Deps) timeoutArg(p tooldef.Args, def float64) (time.Duration, error) {
	secs := def
	if v, ok := p.Number("timeout"); ok {
		secs = v
	}
	if secs <= 0 {
		return 0, &toolError{msg: "timeout must be positive", class: "argument"}
	}
	return min(time.Duration(secs*float64(time.Second)), d.maxWait()), nil
}

// tmuxPath is the tmux binary as a shell in a pane can run it.
func (d Deps) tmuxPath() string {
	bin := d.Sup.Config().Binary
	if p, err := exec.LookPath(bin); err == nil {
		return p
	}
	return bin
}
