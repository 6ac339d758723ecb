package tools

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/drive"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tooldef"
)

var waitSchema = tooldef.Record(tField, []string{"found", "outcome", "matched_lines", "tail", "saw_new_output", "matched_at_entry",
	"alternate_screen", "pane_id", "elapsed_seconds", "effective_timeout", "detection", "history_overflowed",
	"since", "printed_before_call"},
	map[string]any{"matched_index": tIntNull})

// WaitForText waits until text printed since the agent's last send to
// the pane, or after the call, matches.
func WaitForText(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("wait_for_text", "Wait until a line printed since your last send to the pane (else this call) holds a pattern (case-insensitive unless match_case; RE2 if regex) or a stop pattern; older text never matches. A pattern's trailing blanks match a line end.",
		tooldef.Read, waitSchema,
		paneTarget(mcp.WithArray("patterns", mcp.WithStringItems()), mcp.WithArray("stop", mcp.WithStringItems()),
			pRegex, pMatchCase, pTimeout, mcp.WithNumber("interval"), mcp.WithString("since", mcp.Enum(drive.SinceSend, drive.SinceCall)))...)
	return t, withRequest(handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		start := time.Now()
		w := &drive.Wait{Start: start}
		var err error
		if w.Patterns, w.Stop, err = waitPatterns(p); err != nil {
			return nil, err
		}
		interval := drive.DefaultInterval.Seconds()
		if v, ok := p.Number("interval"); ok {
			interval = v
		}
		if interval < 0.01 {
			return nil, &toolError{msg: fmt.Sprintf("interval must be at least 0.01 s (received %g)", interval), class: "argument"}
		}
		timeout, err := d.timeoutArg(p, 8)
		if err != nil {
			return nil, err
		}
		srv, id, err := d.paneID(ctx, p)
		if err != nil {
			return nil, err
		}
		res, err := d.runWait(ctx, w, srv, id, timeout, time.Duration(interval*float64(time.Second)), p.Str("since") != drive.SinceCall)
		if err != nil {
			return nil, err
		}
		return structured(res)
	}))
}

// runWait runs w on pane, from the pane's last send if fromSend and one
// was recorded, else from the call.
func (d Deps) runWait(ctx context.Context, w *drive.Wait, srv *supervisor.Server, pane tmux.PaneID, timeout, interval time.Duration,
	fromSend bool) (drive.WaitResult, error) {
	w.Timeout, w.Interval, w.FromSend, w.Ceiling, w.Progress = timeout, interval, fromSend, d.ceiling(), callProgress
	res, err := d.panes.Wait(ctx, srv, pane, *w)
	if err != nil {
		return drive.WaitResult{}, err
	}
	res.Elapsed = seconds(time.Since(w.Start))
	return res, nil
}

// compileLinePattern compiles a wait pattern (see drive.LinePattern).
func compileLinePattern(s string, regex, matchCase bool) (drive.LinePattern, error) {
	if regex {
		re, err := compilePattern(s, true, matchCase)
		return drive.LinePattern{Re: re, Pad: true}, err
	}
	text := strings.TrimRightFunc(s, unicode.IsSpace)
	if text == s || text == "" {
		re, err := compilePattern(s, false, matchCase)
		return drive.LinePattern{Re: re}, err
	}
	re, err := compilePattern(regexp.QuoteMeta(text)+"(?:"+regexp.QuoteMeta(s[len(text):])+"|$)", true, matchCase)
	return drive.LinePattern{Re: re}, err
}

// waitPatterns compiles patterns (nil: any output) and stop.
func waitPatterns(p tooldef.Args) (patterns, stop []drive.LinePattern, err error) {
	regex, matchCase := p.Bool("regex"), p.Bool("match_case")
	compile := func(name, what string) ([]drive.LinePattern, error) {
		var out []drive.LinePattern
		for _, s := range p.Strings(name) {
			if s == "" {
				return nil, &toolError{msg: what + " pattern must be a non-empty string", class: "argument"}
			}
			lp, err := compileLinePattern(s, regex, matchCase)
			if err != nil {
				return nil, err
			}
			out = append(out, lp)
		}
		return out, nil
	}
	if _, ok := p["patterns"]; ok {
		if len(p.Strings("patterns")) == 0 {
			return nil, nil, &toolError{msg: "patterns must be a non-empty list, or null to wait for any new output", class: "argument"}
		}
		if patterns, err = compile("patterns", "patterns"); err != nil {
			return nil, nil, err
		}
	}
	stop, err = compile("stop", "stop")
	return patterns, stop, err
}
