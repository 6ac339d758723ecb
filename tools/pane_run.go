package tools

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/supervisor/tmux"
)

// Shared parameters of the tools that wait.
var (
	pTimeout  = mcp.WithNumber("timeout")
	pMaxLines = mcp.WithInteger("max_lines")
)

// runResult is run_command's result.
type runResult struct {
	PaneID           string   `json:"pane_id"`
	ExitStatus       *int     `json:"exit_status"`
	TimedOut         bool     `json:"timed_out"`
	Elapsed          float64  `json:"elapsed_seconds"`
	Output           []string `json:"output"`
	Truncated        bool     `json:"output_truncated"`
	TruncatedLines   int      `json:"output_truncated_lines"`
	EffectiveTimeout float64  `json:"effective_timeout"`
	ReadyTimedOut    bool     `json:"ready_timed_out"`
	// HistoryOverflowed: the start of the output was freed from the pane's
	// history (its history-limit) before it could be read; how many lines
	// is not known. output_truncated is set too.
	HistoryOverflowed bool `json:"history_overflowed"`
	// prompted: something (the shell's prompt) shows after the end marker.
	prompted bool
}

var runSchema = record(tField, []string{"pane_id", "timed_out", "elapsed_seconds", "output", "output_truncated",
	"output_truncated_lines", "effective_timeout", "ready_timed_out", "history_overflowed"},
	map[string]any{"exit_status": tIntNull})

// RunCommand runs a shell command in a pane and returns its exit status and
// output.
func RunCommand(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := newTool("run_command", "Run a command in a subshell at a pane's prompt; returns its exit status and output.",
		hintsShell, runSchema,
		paneTarget(mcp.WithString("command", mcp.Required()), pTimeout, pMaxLines, pSuppressHist, pIfSHA256,
			mcp.WithBoolean("background"))...)
	return t, withRequest(handle(t, func(ctx context.Context, p params) (*mcp.CallToolResult, error) {
		start := time.Now()
		cmd := p.str("command")
		noHistory := p.flag("suppress_history", true)
		switch {
		case strings.TrimSpace(cmd) == "":
			return nil, &toolError{msg: "command must not be empty", class: "argument"}
		case noHistory && strings.ContainsAny(cmd, "\r\n"):
			return nil, &toolError{msg: "command must be a single line when suppress_history=True", class: "argument",
				hint: "Pass suppress_history=false for a multi-line command."}
		}
		if p.boolean("background") {
			return d.startJob(ctx, p, cmd, noHistory)
		}
		timeout, err := d.timeoutArg(p, 30)
		if err != nil {
			return nil, err
		}
		maxLines, err := positiveArg(p, "max_lines", d.Sup.Config().CaptureLines)
		if err != nil {
			return nil, err
		}
		tp, err := d.startTyping(ctx, p)
		if err != nil {
			return nil, err
		}
		defer tp.unlock()
		srv, pn, notReady := tp.srv, tp.pane, tp.notReady
		if err := d.jobs.checkFree(srv.Socket(), pn.ID); err != nil {
			return nil, err
		}
		r := d.newRun(srv, pn.ID)
		d.markSend(ctx, srv, pn, r.nonce)
		res, err := r.do(ctx, d.runs, d.tmuxPath(), cmd, noHistory, timeout)
		if err != nil {
			return nil, err
		}
		if res.ExitStatus != nil && !res.prompted {
			// The prompt is late: the next call that types waits for it.
			if now, err := readPane(ctx, srv, pn.ID); err == nil && now.CursorX == 0 {
				d.panes.expectPrompt(srv.Socket(), now)
			}
		}
		res.Output, res.TruncatedLines = tailLines(res.Output, maxLines, res.TruncatedLines)
		res.Truncated = res.TruncatedLines > 0 || res.Truncated
		res.PaneID = string(pn.ID)
		res.EffectiveTimeout = timeout.Seconds()
		res.ReadyTimedOut = notReady
		res.Elapsed = seconds(time.Since(start))
		return structured(res)
	}))
}

// positiveArg returns an integer argument that must be at least 1, or
// def when it is absent.
func positiveArg(p params, name string, def int) (int, error) {
	n, ok := p.integer(name)
	switch {
	case !ok:
		return def, nil
	case n < 1:
		return 0, argError(name, "must be at least 1")
	}
	return n, nil
}

// timeoutArg returns the timeout argument (def seconds when absent),
// clamped to the ceiling.
func (d Deps) timeoutArg(p params, def float64) (time.Duration, error) {
	secs := def
	if v, ok := p.number("timeout"); ok {
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

// nonce returns 12 random hex digits.
func nonce() string {
	var b [6]byte
	rand.Read(b[:]) //nolint:errcheck // crypto/rand.Read never fails
	return hex.EncodeToString(b[:])
}

// run is one run_command.
//
// The command runs in a subshell of the pane's shell, typed as one line
// that ends by sourcing a file of this run (see runscript.go); the shell
// then prints an end marker, "[tmux-mcp <nonce>] exit <status>", and
// signals a private wait-for channel. The output is what the pane shows
// between the line typed (the first line that holds the nonce) and the end
// marker: output cannot forge either without knowing the nonce, and the
// typed line never holds the marker. The wait is exact and makes no
// capture while the command runs; the output is read once, from
// scrollback, at the end.
type run struct {
	srv   *supervisor.Server
	pane  tmux.PaneID
	nonce string
	// maxLines and maxBytes are the most a capture may hold.
	maxLines, maxBytes int
	// file is the file the typed line sources, if any.
	file string
}

// newRun prepares a run_command in pane, with a fresh nonce.
func (d Deps) newRun(srv *supervisor.Server, pane tmux.PaneID) *run {
	cfg := d.Sup.Config()
	return &run{srv: srv, pane: pane, nonce: nonce(), maxLines: cfg.MaxCaptureLines, maxBytes: cfg.MaxCaptureBytes}
}

func (r *run) channel() string { return "tmux_mcp_run_" + r.nonce }

// markerGrace bounds the wait for the end marker to show once the channel
// was signalled (tmux may take the signal before it reads the pane's last
// output).
const markerGrace = 2 * time.Second

// promptGrace bounds the wait for the shell's prompt after the end marker.
// A run ends when the prompt shows: keys typed before it (the next
// run_command) would be echoed by the terminal and again by the shell,
// and the pane would show the line twice.
const promptGrace = time.Second

func (r *run) do(ctx context.Context, files *runFiles, tmuxBin, cmd string, noHistory bool, timeout time.Duration) (runResult, error) {
	base, err := r.send(ctx, files, tmuxBin, cmd, noHistory)
	if err != nil {
		return runResult{}, err
	}
	res, err := r.await(ctx, base, timeout)
	if err == nil && !res.TimedOut {
		// The shell has read the file: it signalled the channel.
		files.remove(r.file)
	}
	if err != nil && ctx.Err() == nil {
		return runResult{}, r.sentError(err)
	}
	return res, err
}

// nonPOSIXShells are shells whose syntax is not sh's, by the name tmux
// gives a pane's current command: run_command's line would not run there.
var nonPOSIXShells = []string{"fish", "csh", "tcsh", "nu", "elvish", "xonsh", "pwsh", "ion", "rc", "es"}

// send types the command at the pane's prompt (writing the file it
// sources into files) and returns the pane as it was just before: the
// base that await and collect read the output from.
func (r *run) send(ctx context.Context, files *runFiles, tmuxBin, cmd string, noHistory bool) (tmux.Pane, error) {
	base, err := readPane(ctx, r.srv, r.pane)
	if err != nil {
		return tmux.Pane{}, err
	}
	if base.Dead {
		return tmux.Pane{}, &toolError{msg: fmt.Sprintf("pane %s is dead; nothing was sent", r.pane), class: "pane_dead",
			hint: "Call respawn_pane, or target another pane."}
	}
	if sh := filepath.Base(strings.TrimPrefix(base.CurrentCommand, "-")); slices.Contains(nonPOSIXShells, sh) {
		return tmux.Pane{}, &toolError{msg: fmt.Sprintf("pane %s runs %s; run_command needs a POSIX shell at the prompt (sh, bash, zsh, ksh); nothing was sent", r.pane, sh),
			class: "unsupported_shell", hint: "Use send_keys and wait_for_text, or start sh or bash in the pane."}
	}
	line := r.script(files, tmuxBin, cmd)
	if noHistory {
		line = " " + line
	}
	k := keystroke{keys: line, enter: true, literal: true}
	if err := k.send(ctx, r.srv, r.pane); err != nil {
		files.remove(r.file)
		return tmux.Pane{}, err
	}
	return base, nil
}

// sentError is a failure to learn the result of a command that was sent:
// it may have run, and the caller must not take it for a command that did
// not run and send it again.
func (r *run) sentError(err error) error {
	te := asToolError(err)
	if te == nil {
		te = &toolError{msg: err.Error(), class: "result_unknown"}
	}
	return &toolError{msg: fmt.Sprintf("the command was sent to pane %s and may have run, but its result could not be read: %s", r.pane, te.msg),
		class: te.class, hint: "Do not run it again before reading the pane (capture_pane, capture_since)."}
}

// await waits for the command sent at base to end (or the timeout) and
// reads its result.
func (r *run) await(ctx context.Context, base tmux.Pane, timeout time.Duration) (runResult, error) {
	prog := startProgress(ctx, requestOf(ctx), timeout, "running a command in pane "+string(r.pane))
	wctx, cancel := context.WithTimeout(ctx, timeout)
	_, err := r.srv.DoBlocking(wctx, "wait-for", r.channel())
	cancel()
	prog.stop()
	timedOut := false
	switch {
	case ctx.Err() != nil:
		return runResult{}, ctx.Err()
	case err != nil && wctx.Err() != nil:
		timedOut = true
	case err != nil:
		return runResult{}, err
	}
	res, found, err := r.collect(ctx, base, timedOut)
	if err != nil || timedOut || found && res.prompted {
		return res, err
	}
	// Wait for the end marker (tmux may take the signal before it reads
	// the pane's last output), then for the prompt after it, read again
	// once changes are watched so that none is missed.
	feed := watchPane(ctx, r.srv, r.pane, minPoll)
	defer feed.close()
	wait := time.NewTimer(markerGrace)
	defer wait.Stop()
	for prompting := false; ; {
		next, ok, err := r.collect(ctx, base, false)
		switch {
		case err != nil && found:
			return res, nil // the result was read; what follows is not needed
		case err != nil:
			return runResult{}, err
		case ok:
			res, found = next, true
		}
		if found && res.prompted {
			return res, nil
		}
		if found && !prompting {
			prompting = true
			wait.Reset(promptGrace)
		}
		select {
		case <-ctx.Done():
			return runResult{}, ctx.Err()
		case <-wait.C:
			if found {
				return res, nil
			}
			return runResult{}, fmt.Errorf("the command signalled its end but its end marker did not show within %s", markerGrace)
		case _, ok := <-feed.C:
			if !ok {
				feed.reopen(ctx)
			}
		}
	}
}

// collect reads the output from scrollback: from the row the command was
// typed on (base) to the bottom of the screen, or, when tmux may have
// freed history lines since (the row is then not known, see
// screenAnchor), from as far back as a capture may hold; parse finds the
// markers either way. found reports whether the end marker was there.
func (r *run) collect(ctx context.Context, base tmux.Pane, timedOut bool) (res runResult, found bool, err error) {
	now, err := readPane(ctx, r.srv, r.pane)
	if err != nil {
		return runResult{}, false, err
	}
	a := paneAnchor(base)
	start := -min(now.HistorySize, r.maxLines-now.Height)
	if row, ok := a.settled(now); ok {
		start = max(row+base.CursorY, start)
	}
	c, err := capture(ctx, r.srv, supervisor.CaptureRequest{Pane: r.pane, Start: &start, Join: true,
		MaxLines: max(min(now.Height-start, r.maxLines), 1), MaxBytes: r.maxBytes})
	if err != nil {
		return runResult{}, false, err
	}
	res, found, err = r.parse(string(c.Content), timedOut)
	// Without the start marker in the whole history, tmux freed it.
	res.HistoryOverflowed = res.Truncated && start == -now.HistorySize && a.mayHaveDropped(now)
	return res, found, err
}

// parse finds the output in captured lines: after the first line that
// holds the nonce (the line typed), up to the end marker. Without the
// typed line (scrolled out of the history, or out of the capture) the
// output begins at the first line captured and is marked truncated.
func (r *run) parse(content string, timedOut bool) (res runResult, found bool, err error) {
	lines := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	end := regexp.MustCompile(`^(.*)` + regexp.QuoteMeta(endPrefix(r.nonce)) + `([0-9]+)$`)
	// The first line that holds the nonce before the end marker (which
	// holds it too) is the line typed.
	first := 0
	res.Truncated = true
	for i, l := range lines {
		if end.MatchString(l) {
			break
		}
		if strings.Contains(l, r.nonce) {
			first, res.Truncated = i+1, false
			if rest := r.afterTyped(l); rest != "" {
				lines[i], first = rest, i
			}
			break
		}
	}
	out := lines[first:]
	for j, l := range out {
		m := end.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		status, err := strconv.Atoi(m[2])
		if err != nil {
			return runResult{}, false, fmt.Errorf("tools: run_command exit status %q: %w", m[2], err)
		}
		res.ExitStatus = &status
		res.Output = append(out[:j:j], nonEmpty(m[1])...)
		res.prompted = slices.ContainsFunc(out[j+1:], func(l string) bool { return l != "" })
		return res, true, nil
	}
	if !timedOut {
		return res, false, nil
	}
	// Still running: everything after the line typed so far.
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	res.TimedOut = true
	res.Output = out
	return res, false, nil
}

// afterTyped returns what a captured line holds after the line typed: a
// line typed exactly as wide as the pane is joined with the row after it
// (the shell's line editor wraps there), where the output begins. The
// line typed ends with the file it sources, or with the channel.
func (r *run) afterTyped(l string) string {
	end := r.channel()
	if r.file != "" {
		end = shWord(r.file)
	}
	if i := strings.LastIndex(l, end); i >= 0 {
		return l[i+len(end):]
	}
	return ""
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// tailLines keeps the last n lines; dropped adds to the count already
// known lost.
func tailLines(lines []string, n, dropped int) ([]string, int) {
	if lines == nil {
		lines = []string{}
	}
	if len(lines) <= n {
		return lines, dropped
	}
	return lines[len(lines)-n:], dropped + len(lines) - n
}

// shQuote quotes s for a POSIX shell.
func shQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
