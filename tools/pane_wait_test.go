package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/drive"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// quiet starts a pane that prints a prompt and then nothing.
func (e *env) quiet() string {
	e.t.Helper()
	p := e.window("printf 'PROMPT> '; exec sleep 1000")
	e.waitScreen(p, "prompt", func(s string) bool { return strings.Contains(s, "PROMPT>") })
	return p
}

// wantDetection is how wait_for_text detects changes in this test run:
// by events on every tmux (a watcher connection, or a pipe feed where
// none may be opened: exec-only mode, tmux 3.2a).
func (e *env) wantDetection() string {
	e.t.Helper()
	return "events"
}

// waitArmed starts wait_for_text and returns once it has taken its
// baseline (it reports progress then).
func (e *env) waitArmed(ctx context.Context, args map[string]any) (<-chan callResult, *progressLog) {
	e.t.Helper()
	prog := e.watchProgress()
	ch := e.async(ctx, "wait_for_text", args)
	prog.next(e.t)
	return ch, prog
}

func TestWaitForText(t *testing.T) {
	e := newEnv(t, Readonly)
	ctx := context.Background()

	t.Run("text printed after the call", func(t *testing.T) {
		e := *e
		e.t = t
		p := e.quiet()
		ch, _ := e.waitArmed(ctx, map[string]any{"pane_id": p, "patterns": []any{"NEVER_yy", "DONE_marker_y2"}, "timeout": 10})
		time.AfterFunc(200*time.Millisecond, func() { e.ttyWrite(p, "\r\nbuilding\r\nDONE_marker_y2 ok\r\n") })
		var r drive.WaitResult
		e.result(ch, &r)
		if !r.Found || r.Outcome != "matched" || deref(r.MatchedIndex) != 1 || !slices.Equal(r.MatchedLines, []string{"DONE_marker_y2 ok"}) ||
			r.Detection != e.wantDetection() || !r.SawNewOutput || r.PaneID != p || r.Elapsed < 0.2 {
			t.Errorf("wait_for_text = %+v, want pattern 1 matched on the new line by %s", r, e.wantDetection())
		}
	})
	t.Run("text already on the screen", func(t *testing.T) {
		e := *e
		e.t = t
		p := e.quiet()
		e.ttyWrite(p, "\r\nSTALE_marker\r\n")
		e.waitScreen(p, "marker", func(s string) bool { return strings.Contains(s, "STALE_marker") })
		var r drive.WaitResult
		e.ok("wait_for_text", map[string]any{"pane_id": p, "patterns": []any{"STALE_marker"}, "timeout": 0.5}, &r)
		if r.Found || r.Outcome != "timeout" || !r.MatchedAtEntry || r.SawNewOutput {
			t.Errorf("wait_for_text = %+v, want a timeout with matched_at_entry", r)
		}
	})
	t.Run("stale paint below the cursor", func(t *testing.T) {
		e := *e
		e.t = t
		p := e.window(`printf 'TOP\nSTALE_BELOW\n'; printf '\033[H'; exec sleep 1000`)
		e.waitScreen(p, "marker", func(s string) bool { return strings.Contains(s, "STALE_BELOW") })
		// The cursor's move home may come in a later read of the pty: the
		// wait must begin with the marker below the cursor.
		tmuxtest.WaitFor(t, 10*time.Second, "the cursor at the top", func() bool {
			return strings.TrimSpace(e.tmux("display-message", "-p", "-t", p, "#{cursor_y}")) == "0"
		})
		var r drive.WaitResult
		e.ok("wait_for_text", map[string]any{"pane_id": p, "patterns": []any{"STALE_BELOW"}, "timeout": 0.5}, &r)
		if r.Found || !r.MatchedAtEntry || !contains(r.Tail, "STALE_BELOW") {
			t.Errorf("wait_for_text = %+v, want no match, matched_at_entry, the marker in tail", r)
		}
	})
	t.Run("stop wins a tie", func(t *testing.T) {
		e := *e
		e.t = t
		p := e.quiet()
		ch, _ := e.waitArmed(ctx, map[string]any{"pane_id": p, "patterns": []any{"DONE"}, "stop": []any{"NEVER_zz", "FAILED"}, "timeout": 10})
		e.ttyWrite(p, "\r\nDONE\r\nFAILED\r\n")
		var r drive.WaitResult
		e.result(ch, &r)
		if r.Found || r.Outcome != "stopped" || deref(r.MatchedIndex) != 1 || !slices.Equal(r.MatchedLines, []string{"FAILED"}) {
			t.Errorf("wait_for_text = %+v, want stopped on stop pattern 1", r)
		}
	})
	t.Run("marker split across writes", func(t *testing.T) {
		e := *e
		e.t = t
		p := e.quiet()
		ch, _ := e.waitArmed(ctx, map[string]any{"pane_id": p, "patterns": []any{"SPLIT_MARKER", "é日本"}, "timeout": 10})
		e.ttyWrite(p, "\r\nSPLIT_MAR")
		e.waitScreen(p, "first half", func(s string) bool { return strings.Contains(s, "SPLIT_MAR") })
		e.ttyWrite(p, "KER\r\n")
		var r drive.WaitResult
		e.result(ch, &r)
		if !r.Found || deref(r.MatchedIndex) != 0 || !slices.Equal(r.MatchedLines, []string{"SPLIT_MARKER"}) {
			t.Errorf("wait_for_text = %+v, want SPLIT_MARKER matched", r)
		}
		// A character split between two writes.
		ch, _ = e.waitArmed(ctx, map[string]any{"pane_id": p, "patterns": []any{"é日本"}, "timeout": 10})
		utf := "é日本\r\n"
		e.ttyWrite(p, utf[:4])
		e.ttyWrite(p, utf[4:])
		e.result(ch, &r)
		if !r.Found || !slices.Equal(r.MatchedLines, []string{"é日本"}) {
			t.Errorf("wait_for_text(split UTF-8) = %+v, want é日本 matched", r)
		}
	})
	t.Run("any output", func(t *testing.T) {
		e := *e
		e.t = t
		p := e.quiet()
		ch, _ := e.waitArmed(ctx, map[string]any{"pane_id": p, "timeout": 10})
		e.ttyWrite(p, "something")
		var r drive.WaitResult
		e.result(ch, &r)
		if !r.Found || r.Outcome != "any_output" || r.MatchedIndex != nil || !r.SawNewOutput {
			t.Errorf("wait_for_text(any output) = %+v, want any_output", r)
		}
		e.ok("wait_for_text", map[string]any{"pane_id": p, "timeout": 0.3}, &r)
		if r.Found || r.Outcome != "timeout" || r.SawNewOutput {
			t.Errorf("wait_for_text(silent) = %+v, want a timeout without new output", r)
		}
	})
	t.Run("timeout with tail", func(t *testing.T) {
		e := *e
		e.t = t
		p := e.quiet()
		ch, _ := e.waitArmed(ctx, map[string]any{"pane_id": p, "patterns": []any{"NEVER"}, "timeout": 3})
		var lines strings.Builder
		for i := range 200 {
			fmt.Fprintf(&lines, "\r\nnoise %d", i)
		}
		e.ttyWrite(p, lines.String())
		var r drive.WaitResult
		e.result(ch, &r)
		size := len(strings.Join(r.Tail, "\n"))
		if r.Found || r.Outcome != "timeout" || !r.SawNewOutput || len(r.Tail) > 20 || size > 2000 ||
			len(r.Tail) == 0 || r.Tail[len(r.Tail)-1] != "noise 199" || r.EffectiveTimeout != 3 {
			t.Errorf("wait_for_text = %+v (tail %d lines, %d bytes), want a timeout with the last lines, capped", r, len(r.Tail), size)
		}
	})
	t.Run("alternate screen", func(t *testing.T) {
		e := *e
		e.t = t
		p := e.quiet()
		ch, _ := e.waitArmed(ctx, map[string]any{"pane_id": p, "patterns": []any{"FULLSCREEN"}, "timeout": 3})
		e.ttyWrite(p, "\033[?1049hFULLSCREEN app")
		var r drive.WaitResult
		e.result(ch, &r)
		if r.Found || r.Outcome != "alternate_screen" || !r.AlternateScreen {
			t.Errorf("wait_for_text = %+v, want outcome alternate_screen", r)
		}
	})
}

func TestWaitForTextErrors(t *testing.T) {
	e := newEnv(t, Readonly, func(d *Deps) { d.MaxWait = time.Second })
	p := e.quiet()
	bad := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"pane_id": p, "patterns": []any{"[x"}, "regex": true}, "Invalid regex pattern: "},
		{map[string]any{"pane_id": p, "patterns": []any{""}}, "patterns pattern must be a non-empty string"},
		{map[string]any{"pane_id": p, "stop": []any{""}}, "stop pattern must be a non-empty string"},
		{map[string]any{"pane_id": p, "patterns": []any{}}, "patterns must be a non-empty list, or null to wait for any new output"},
		{map[string]any{"pane_id": p, "interval": 0}, "interval must be at least 0.01 s (received 0)"},
		{map[string]any{"pane_id": p, "timeout": 0}, "timeout must be positive"},
		{map[string]any{"pane_id": p, "patterns": "x"}, "argument patterns: want array, got string"},
		{map[string]any{"pane_id": "%999999"}, "Pane not found: %999999"},
	}
	for _, tt := range bad {
		e.fails("wait_for_text", tt.args, tt.want)
	}
	var r drive.WaitResult
	start := time.Now()
	e.ok("wait_for_text", map[string]any{"pane_id": p, "patterns": []any{"NEVER"}, "timeout": 3600}, &r)
	if r.EffectiveTimeout != 1 || r.Found || time.Since(start) > 30*time.Second {
		t.Errorf("wait_for_text(timeout 3600) = %+v after %v, want the 1s ceiling", r, time.Since(start))
	}
	e.ok("wait_for_text", map[string]any{"pane_id": p, "timeout": 0.3}, &r)
	if r.EffectiveTimeout != 0.3 {
		t.Errorf("wait_for_text(timeout 0.3) effective_timeout = %v, want 0.3", r.EffectiveTimeout)
	}
}

// TestWaitForTextPaneGone: a pane killed, respawned or dead during the
// wait ends it with an error.
func TestWaitForTextPaneGone(t *testing.T) {
	e := newEnv(t, Readonly)
	ctx := context.Background()
	p := e.quiet()
	ch, _ := e.waitArmed(ctx, map[string]any{"pane_id": p, "patterns": []any{"NEVER"}, "timeout": 10})
	e.tmux("kill-pane", "-t", p)
	if got := failed(t, ch); !strings.Contains(got, "Pane not found: "+p) {
		t.Errorf("wait_for_text on a killed pane: %q, want Pane not found", got)
	}

	p = e.quiet()
	ch, _ = e.waitArmed(ctx, map[string]any{"pane_id": p, "patterns": []any{"NEVER"}, "timeout": 10})
	e.tmux("respawn-pane", "-k", "-t", p, "printf 'again> '; exec sleep 1000")
	if got := failed(t, ch); !strings.Contains(got, "pane "+p+" was respawned") {
		t.Errorf("wait_for_text on a respawned pane: %q, want respawned", got)
	}

	e.tmux("set-option", "-p", "-t", p, "remain-on-exit", "on")
	ch, _ = e.waitArmed(ctx, map[string]any{"pane_id": p, "patterns": []any{"NEVER"}, "timeout": 10})
	e.tmux("respawn-pane", "-k", "-t", p, "printf 'bye'")
	if got := failed(t, ch); !strings.Contains(got, "respawned") && !strings.Contains(got, "died") {
		t.Errorf("wait_for_text on a pane that died: %q, want died or respawned", got)
	}
	tmuxtest.WaitFor(t, 5*time.Second, "pane dead", func() bool { return e.tmux("display-message", "-p", "-t", p, "#{pane_dead}") == "1" })
	e.fails("wait_for_text", map[string]any{"pane_id": p}, "pane "+p+" died")
}

func failed(t *testing.T, ch <-chan callResult) string {
	t.Helper()
	select {
	case r := <-ch:
		if r.err != nil {
			return r.err.Error()
		}
		if !r.res.IsError {
			t.Errorf("got success %s, want an error", text(r.res))
		}
		return text(r.res)
	case <-time.After(10 * time.Second):
		t.Fatal("no result within 10s")
	}
	return ""
}

func TestWaitForTextCancel(t *testing.T) {
	e := newEnv(t, Readonly)
	p := e.quiet()
	ctx, cancel := context.WithCancel(context.Background())
	ch, _ := e.waitArmed(ctx, map[string]any{"pane_id": p, "patterns": []any{"NEVER"}, "timeout": 30})
	cancel()
	select {
	case r := <-ch:
		if r.err == nil {
			t.Errorf("cancelled wait_for_text returned %s, want an error", text(r.res))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("cancelled wait_for_text (timeout 30s) did not return within 10s of the cancel")
	}
}

// TestWaitForTextSilentPane: while the pane prints nothing, the wait makes
// no capture: it is event-driven on every tmux.
func TestWaitForTextSilentPane(t *testing.T) {
	e := newEnv(t, Readonly)
	p := e.quiet()
	captures := countCommands(t, e.sup, "capture-pane")
	var r drive.WaitResult
	e.ok("wait_for_text", map[string]any{"pane_id": p, "patterns": []any{"NEVER"}, "timeout": 1.5}, &r)
	n := captures.count()
	if r.Detection != e.wantDetection() {
		t.Fatalf("detection = %s, want %s", r.Detection, e.wantDetection())
	}
	// The baseline takes one capture (the rows above the screen to find
	// the anchor by, the rows from the cursor down, the screen for
	// matched_at_entry); polling every 50 ms would take about 30 more.
	if r.Detection == "events" && n > 1 {
		t.Errorf("a 1.5s wait on a silent pane made %d capture-pane commands, want at most the 1 of the baseline", n)
	}
}

func TestWaitForTextProgress(t *testing.T) {
	e := newEnv(t, Readonly)
	p := e.quiet()
	ch, prog := e.waitArmed(context.Background(), map[string]any{"pane_id": p, "patterns": []any{"NEVER"}, "timeout": 4})
	e.result(ch, nil)
	got := prog.all()
	if len(got) < 2 {
		t.Fatalf("got %d progress notifications, want at least 2 (arming, then every 2s)", len(got))
	}
	for i, n := range got {
		msg, _ := n["message"].(string)
		if n["total"] != 4.0 || n["progressToken"] != "tok" || !strings.Contains(msg, "waiting for text on pane "+p+": ") ||
			!strings.HasSuffix(msg, " of 4s") {
			t.Errorf("notification %d = %v, want total 4, the token, and a message naming the pane", i, n)
		}
	}
	if got[0]["message"] == got[len(got)-1]["message"] {
		t.Errorf("progress messages do not change: %v", got)
	}
}

// replPane starts a shell whose prompt ends in a blank, as a REPL's does
// (">>> "), and waits for it.
func (e *env) replPane() string {
	e.t.Helper()
	p := e.window("env PS1='>>> ' /bin/sh")
	e.waitScreen(p, "prompt", func(s string) bool { return strings.HasSuffix(s, ">>>") })
	return p
}

// sendAnswered types line into a REPL pane with send_keys and waits until
// the pane shows want and the prompt after it, before any wait begins.
func (e *env) sendAnswered(p, line, want string) {
	e.t.Helper()
	e.ok("send_keys", map[string]any{"pane_id": p, "keys": line}, nil)
	e.waitScreen(p, want, func(s string) bool { return strings.HasSuffix(trimLines(s), want+"\n>>>") })
}

// trimLines drops the trailing blanks of each line of s (tmux before 3.3
// keeps them in a joined capture).
func trimLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// TestWaitForTextSinceSend: a wait after a send sees what the pane
// printed since the send, also when it printed it before the wait began
// (issue 18: a REPL's answer, printed in milliseconds, was missed); text
// from before the send, and the echo of the send itself, never match; a
// match is consumed; since=call waits for new output only.
func TestWaitForTextSinceSend(t *testing.T) {
	e := newEnv(t, Mutating)

	t.Run("a fast answer", func(t *testing.T) {
		e := *e
		e.t = t
		p := e.replPane()
		e.sendAnswered(p, `printf 'ANS_%s\n' 41`, "ANS_41")
		e.sendAnswered(p, `printf 'ANS_%s\n' 42`, "ANS_42")
		tests := []struct {
			name           string
			args           map[string]any
			found, before  bool
			since          string
			matched        []string
			matchedAtEntry bool
		}{
			{"text from before the send", map[string]any{"patterns": []any{"ANS_41"}, "timeout": 0.5},
				false, false, "last_send", nil, true},
			{"since the call", map[string]any{"patterns": []any{"ANS_42"}, "timeout": 0.5, "since": "call"},
				false, false, "call", nil, true},
			{"printed since the send", map[string]any{"patterns": []any{"ans_"}, "timeout": 5},
				true, true, "last_send", []string{"ANS_42"}, false},
			{"consumed by the wait before", map[string]any{"patterns": []any{"ans_"}, "timeout": 0.5},
				false, false, "last_send", nil, true},
			{"the prompt after it, ending in a blank", map[string]any{"patterns": []any{">>> "}, "timeout": 5},
				true, true, "last_send", []string{">>>"}, false},
		}
		for _, tt := range tests {
			tt.args["pane_id"] = p
			var r drive.WaitResult
			e.ok("wait_for_text", tt.args, &r)
			if r.Found != tt.found || r.PrintedBeforeCall != tt.before || r.Since != tt.since ||
				!slices.Equal(r.MatchedLines, tt.matched) || r.MatchedAtEntry != tt.matchedAtEntry || r.HistoryOverflowed {
				t.Errorf("%s: wait_for_text(%v) = %+v; want found %v, printed_before_call %v, since %s, matched_lines %q, matched_at_entry %v",
					tt.name, tt.args, r, tt.found, tt.before, tt.since, tt.matched, tt.matchedAtEntry)
			}
		}
	})
	t.Run("send_keys with wait_for", func(t *testing.T) {
		e := *e
		e.t = t
		p := e.replPane()
		// The echo of the keys holds "43" too; only the answer counts.
		var r struct {
			PaneID string            `json:"pane_id"`
			Wait   *drive.WaitResult `json:"wait"`
		}
		e.ok("send_keys", map[string]any{"pane_id": p, "keys": `printf 'ANS_%s\n' 43`, "wait_for": "43", "timeout": 10}, &r)
		if r.PaneID != p || r.Wait == nil || !r.Wait.Found || r.Wait.Since != "last_send" || !slices.Equal(r.Wait.MatchedLines, []string{"ANS_43"}) {
			t.Errorf("send_keys(wait_for 43) = %+v (wait %+v), want the wait to match ANS_43", r, r.Wait)
		}
		e.ok("send_keys", map[string]any{"pane_id": p, "keys": "true"}, &r)
		if r.Wait != nil {
			t.Errorf("send_keys without wait_for: wait = %+v, want null", r.Wait)
		}
		e.fails("send_keys", map[string]any{"pane_id": p, "keys": "true", "wait_for": ""}, "wait_for", "must not be empty")
	})
	t.Run("after the other tools that type", func(t *testing.T) {
		e := *e
		e.t = t
		p := e.replPane()
		for _, tt := range []struct {
			tool string
			args map[string]any
			want string
		}{
			// run_command's wrapper echoes the command: only its output
			// counts.
			{"run_command", map[string]any{"command": `printf 'TYPED_%s\n' run`}, "TYPED_run"},
			{"paste_text", map[string]any{"text": "printf 'TYPED_%s\\n' paste\n"}, "TYPED_paste"},
			{"send_keys_batch", map[string]any{"operations": []any{map[string]any{"pane_id": p, "keys": `printf 'TYPED_%s\n' batch`}}}, "TYPED_batch"},
		} {
			if tt.tool != "send_keys_batch" {
				tt.args["pane_id"] = p
			}
			e.ok(tt.tool, tt.args, nil)
			e.waitScreen(p, tt.want, func(s string) bool {
				return strings.Contains(trimLines(s), tt.want+"\n") && strings.HasSuffix(s, ">>>")
			})
			var r drive.WaitResult
			e.ok("wait_for_text", map[string]any{"pane_id": p, "patterns": []any{"typed_"}, "timeout": 5}, &r)
			if !r.Found || !r.PrintedBeforeCall || !slices.Equal(r.MatchedLines, []string{tt.want}) {
				t.Errorf("%s, then wait_for_text = %+v, want %s matched at once", tt.tool, r, tt.want)
			}
		}
	})
}

// TestWaitForTextSinceSendAtHistoryLimit: the send's mark is found again
// after tmux freed history lines (several drops since the send), and when
// it was freed itself the wait counts from its call and says so.
func TestWaitForTextSinceSendAtHistoryLimit(t *testing.T) {
	e := newEnv(t, Mutating)
	p := e.historyPane(100, "env PS1='>>> ' /bin/sh", func(s string) bool { return strings.HasSuffix(s, ">>>") })
	e.show(p, "\r\nHIST_OLD 1\r\nHIST_OLD 2")
	e.fillHistory(p, 100)
	// 66 lines: tmux frees ten lines six times, none of them the mark's.
	e.sendAnswered(p, `printf 'HIST_ANS_%s\n' 1; seq 1 64`, "64")
	var r drive.WaitResult
	e.ok("wait_for_text", map[string]any{"pane_id": p, "patterns": []any{"hist_"}, "timeout": 5}, &r)
	if !r.Found || !r.PrintedBeforeCall || r.Since != "last_send" || !slices.Equal(r.MatchedLines, []string{"HIST_ANS_1"}) || r.HistoryOverflowed {
		t.Errorf("wait_for_text after 66 lines at the history limit = %+v, want HIST_ANS_1 matched at once", r)
	}
	if h := e.historySize(p); h > 100 {
		t.Fatalf("history_size %d, want at most the limit", h)
	}
	// More lines than the history holds: the mark is freed.
	e.sendAnswered(p, `seq 1 300`, "300")
	e.ok("wait_for_text", map[string]any{"pane_id": p, "patterns": []any{"HIST_"}, "timeout": 0.5}, &r)
	if r.Found || r.Since != "call" || !r.HistoryOverflowed {
		t.Errorf("wait_for_text after the mark was freed = %+v, want a wait from the call, history_overflowed", r)
	}
}

// TestWaitForTextPromptEndingInBlank: captured lines lose their trailing
// blanks and prompts end in one; a pattern's trailing blank matches the
// end of a line (issue 18: ">>> " never matched the prompt ">>> ").
func TestWaitForTextPromptEndingInBlank(t *testing.T) {
	e := newEnv(t, Readonly)
	p := e.quiet()
	for _, tt := range []struct {
		pattern string
		regex   bool
	}{{">>> ", false}, {`^>>> $`, true}} {
		ch, _ := e.waitArmed(context.Background(), map[string]any{"pane_id": p, "patterns": []any{tt.pattern}, "regex": tt.regex,
			"timeout": 10})
		e.ttyWrite(p, "\r\n>>> ")
		var r drive.WaitResult
		e.result(ch, &r)
		if !r.Found || !slices.Equal(r.MatchedLines, []string{">>>"}) {
			t.Errorf("wait_for_text(%q, regex %v) = %+v, want the new prompt matched", tt.pattern, tt.regex, r)
		}
		e.ttyWrite(p, "\r\nPROMPT> ")
	}
}

func TestLinePattern(t *testing.T) {
	tests := []struct {
		pattern string
		regex   bool
		line    string
		want    bool
	}{
		{">>> ", false, ">>>", true},
		{">>> ", false, ">>> print(1)", true},
		{">>> ", false, ">>>x", false},
		{"a  ", false, "a b", false},
		{"a  ", false, "a  b", true},
		{"a  ", false, "xa", true},
		{" ", false, "a b", true},
		{" ", false, "ab", false},
		{"DONE", false, "done", true},
		{`\$ `, true, "user@host:~$", true},
		{`\$ $`, true, "user@host:~$", true},
		{`\$ $`, true, "a$ b", false},
		{`done$`, true, "all done", true},
		{`^$`, true, "", true},
	}
	for _, tt := range tests {
		lp, err := compileLinePattern(tt.pattern, tt.regex, false)
		if err != nil {
			t.Fatalf("compileLinePattern(%q, %v): %v", tt.pattern, tt.regex, err)
		}
		if got := lp.Match(tt.line); got != tt.want {
			t.Errorf("pattern %q (regex %v) on line %q = %v, want %v", tt.pattern, tt.regex, tt.line, got, tt.want)
		}
	}
}
