package tools

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/drive"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

func TestRunCommand(t *testing.T) {
	e := newEnv(t, Mutating)
	p := e.shell()
	tests := []struct {
		name    string
		command string
		status  int
		output  []string
	}{
		{"success", `printf 'RUN_OK\n'`, 0, []string{"RUN_OK"}},
		{"failure", `printf 'RUN_FAIL\n'; false`, 1, []string{"RUN_FAIL"}},
		{"exit in the subshell", `echo before; exit 3; echo after`, 3, []string{"before"}},
		{"set -e", `set -e; false; echo unreachable`, 1, []string{}},
		{"no output", `true`, 0, []string{}},
		{"no final newline", `printf 'a\nb'`, 0, []string{"a", "b"}},
		{"state changes stay in the subshell", `cd /; PATH=/nonexistent; printf '%s\n' "$PWD"`, 0, []string{"/"}},
		{"text that looks like the markers", `echo TMCPS_x; echo 'TMCPE_fake:7'; printf 'TMCPS %s\n' x; echo "TMCPE_$((1)):0"`,
			0, []string{"TMCPS_x", "TMCPE_fake:7", "TMCPS x", "TMCPE_1:0"}},
		{"quotes and formats", `echo "#{pane_id} %1 ;"' $HOME'`, 0, []string{"#{pane_id} %1 ; $HOME"}},
		{"long lines", `printf '%0300d\n' 7`, 0, []string{strings.Repeat("0", 299) + "7"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := *e
			e.t = t
			var r drive.RunResult
			e.ok("run_command", map[string]any{"pane_id": p, "command": tt.command}, &r)
			if r.ExitStatus == nil || *r.ExitStatus != tt.status || r.TimedOut || !slices.Equal(r.Output, tt.output) ||
				r.Truncated || r.PaneID != p || r.EffectiveTimeout != 30 {
				t.Errorf("run_command(%q) = %+v (exit %v), want exit %d, output %q, not truncated", tt.command, r, deref(r.ExitStatus), tt.status, tt.output)
			}
		})
	}
	var r drive.RunResult
	e.ok("run_command", map[string]any{"pane_id": p, "command": "echo one\necho two", "suppress_history": false}, &r)
	if !slices.Equal(r.Output, []string{"one", "two"}) {
		t.Errorf("multi-line command output = %q, want [one two]", r.Output)
	}

	bad := []struct {
		name string
		args map[string]any
		want string
	}{
		{"blank", map[string]any{"pane_id": p, "command": "  "}, "command must not be empty"},
		{"multi-line without history", map[string]any{"pane_id": p, "command": "a\nb"}, "command must be a single line when suppress_history=True"},
		{"zero timeout", map[string]any{"pane_id": p, "command": "true", "timeout": 0}, "timeout must be positive"},
		{"timeout type", map[string]any{"pane_id": p, "command": "true", "timeout": "soon"}, "argument timeout: want number, got string"},
		{"unknown pane", map[string]any{"pane_id": "%999999", "command": "true"}, "Pane not found: %999999"},
		{"max_lines", map[string]any{"pane_id": p, "command": "true", "max_lines": 0}, "argument max_lines"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			e := *e
			e.t = t
			e.fails("run_command", tt.args, tt.want)
		})
	}
}

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestRunCommandScrollback runs a command printing 5,000 lines: the output
// comes from the scrollback, not the screen, and is cut to max_lines with
// the count of lines cut.
func TestRunCommandScrollback(t *testing.T) {
	e := newEnv(t, Mutating)
	e.tmux("set-option", "-g", "history-limit", "10000")
	p := e.shell()
	var r drive.RunResult
	e.ok("run_command", map[string]any{"pane_id": p, "command": "seq 1 5000", "max_lines": 100}, &r)
	var want []string
	for i := 4901; i <= 5000; i++ {
		want = append(want, strconv.Itoa(i))
	}
	if !slices.Equal(r.Output, want) || !r.Truncated || r.TruncatedLines != 4900 || deref(r.ExitStatus) != 0 {
		t.Errorf("run_command(seq 1 5000) = %d lines from %q, truncated %v (%d), exit %v; want 4901..5000, 4900 cut, exit 0",
			len(r.Output), first(r.Output), r.Truncated, r.TruncatedLines, deref(r.ExitStatus))
	}
	// The default cap is 500 lines.
	e.ok("run_command", map[string]any{"pane_id": p, "command": "seq 1 600"}, &r)
	if len(r.Output) != 500 || r.Output[0] != "101" || r.TruncatedLines != 100 {
		t.Errorf("run_command(seq 1 600) = %d lines from %q, %d cut; want 500 from 101, 100 cut", len(r.Output), first(r.Output), r.TruncatedLines)
	}
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

func TestRunCommandTimeout(t *testing.T) {
	e := newEnv(t, Mutating, func(d *Deps) { d.MaxWait = 3 * time.Second })
	p := e.shell()
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	var r drive.RunResult
	e.ok("run_command", map[string]any{"pane_id": p, "command": "echo started; read x < " + fifo + "; echo LATE_$x", "timeout": 2.5}, &r)
	if !r.TimedOut || r.ExitStatus != nil || !slices.Equal(r.Output, []string{"started"}) || r.EffectiveTimeout != 2.5 {
		t.Errorf("run_command = %+v, want timed out after 2.5s with output [started] and no exit status", r)
	}
	// The command runs on.
	if err := os.WriteFile(fifo, []byte("2\n"), 0); err != nil {
		t.Fatal(err)
	}
	e.waitScreen(p, "the command's late output", func(s string) bool { return strings.Contains(s, "\nLATE_2") })

	start := time.Now()
	e.ok("run_command", map[string]any{"pane_id": p, "command": "sleep 60", "timeout": 3600}, &r)
	if !r.TimedOut || r.EffectiveTimeout != 3 || time.Since(start) > 30*time.Second {
		t.Errorf("run_command(timeout 3600) = %+v after %v, want timed out at the 3s ceiling", r, time.Since(start))
	}
}

// TestRunCommandParallel runs two commands in one pane at once: each gets
// its own output.
func TestRunCommandParallel(t *testing.T) {
	e := newEnv(t, Mutating)
	p := e.shell()
	ctx := context.Background()
	a := e.async(ctx, "run_command", map[string]any{"pane_id": p, "command": "sleep 0.3; echo FIRST"})
	b := e.async(ctx, "run_command", map[string]any{"pane_id": p, "command": "echo SECOND"})
	var ra, rb drive.RunResult
	e.result(a, &ra)
	e.result(b, &rb)
	if !slices.Equal(ra.Output, []string{"FIRST"}) || !slices.Equal(rb.Output, []string{"SECOND"}) {
		t.Errorf("parallel run_command outputs = %q and %q, want [FIRST] and [SECOND]", ra.Output, rb.Output)
	}
}

// TestRunCommandHistory checks that suppress_history (the default) keeps
// the command out of the shell's history, and that without it the command
// is recorded.
func TestRunCommandHistory(t *testing.T) {
	e := newEnv(t, Mutating)
	hist := filepath.Join(t.TempDir(), "history")
	p := e.window("env PS1='$ ' HISTFILE=" + hist + " HISTCONTROL=ignorespace bash --noprofile --norc")
	e.waitScreen(p, "prompt", func(s string) bool { return strings.HasSuffix(s, "$") })
	e.ok("run_command", map[string]any{"pane_id": p, "command": "echo SECRET_TOKEN"}, nil)
	e.ok("run_command", map[string]any{"pane_id": p, "command": "echo VISIBLE_ONE", "suppress_history": false}, nil)
	e.ok("run_command", map[string]any{"pane_id": p, "command": "history -w"}, nil)
	b, err := os.ReadFile(hist)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "SECRET_TOKEN") || !strings.Contains(string(b), "VISIBLE_ONE") {
		t.Errorf("history file:\n%s\nwant VISIBLE_ONE and no SECRET_TOKEN", b)
	}
}

// TestRunCommandCancel cancels a call while it waits: the call ends and
// its wait-for client does not survive.
func TestRunCommandCancel(t *testing.T) {
	e := newEnv(t, Mutating)
	p := e.shell()
	ctx, cancel := context.WithCancel(context.Background())
	ch := e.async(ctx, "run_command", map[string]any{"pane_id": p, "command": "echo RUNNING; sleep 30"})
	e.waitScreen(p, "the command running", func(s string) bool { return strings.Contains(s, "\nRUNNING") })
	tmuxtest.WaitFor(t, 5*time.Second, "the wait-for client", func() bool { return e.waitClients("") > 0 })
	cancel()
	select {
	case r := <-ch:
		if r.err == nil {
			t.Errorf("cancelled run_command returned %v, want an error", text(r.res))
		}
	case <-time.After(5 * time.Second):
		t.Fatal("cancelled run_command did not return within 5s")
	}
	tmuxtest.WaitFor(t, 2*time.Second, "no wait-for client left", func() bool { return e.waitClients("") == 0 })
}

func TestRunCommandDeadPane(t *testing.T) {
	e := newEnv(t, Mutating)
	e.tmux("set-option", "-g", "remain-on-exit", "on")
	p := e.window("true")
	tmuxtest.WaitFor(t, 5*time.Second, "pane dead", func() bool {
		return e.tmux("display-message", "-p", "-t", p, "#{pane_dead}") == "1"
	})
	e.fails("run_command", map[string]any{"pane_id": p, "command": "true"}, "pane "+p+" is dead; nothing was sent", "[pane_dead]")
}

// TestRunCommandPaneGoneAfterSend: a command that takes its pane with it
// was sent and ran; the error says so, so that it is not sent again.
func TestRunCommandPaneGoneAfterSend(t *testing.T) {
	e := newEnv(t, Mutating)
	p := e.shell()
	e.fails("run_command", map[string]any{"pane_id": p, "command": "kill -9 $$", "timeout": 2},
		"the command was sent to pane "+p+" and may have run, but its result could not be read", "[pane_not_found]",
		"Do not run it again before reading the pane")
}

func TestRunSentError(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{errors.New("the command signalled its end but its end marker did not show within 2s"),
			"the command was sent to pane %7 and may have run, but its result could not be read: the command signalled its end but its end marker did not show within 2s [result_unknown]"},
		{&toolError{msg: "Pane not found: %7", class: "pane_not_found"},
			"the command was sent to pane %7 and may have run, but its result could not be read: Pane not found: %7 [pane_not_found]"},
	}
	for _, tt := range tests {
		var te *toolError
		if !errors.As(driveError(&drive.SentError{Pane: "%7", Err: tt.err}), &te) {
			t.Fatalf("sentError(%v) is not a tool error", tt.err)
		}
		if got := te.msg + " [" + te.class + "]"; got != tt.want {
			t.Errorf("sentError(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

// TestRunCommandLatePrompt: a shell whose prompt shows after run_command
// stopped waiting for it (PROMPT_COMMAND sleeps past promptGrace) must
// not have the next command typed ahead of the prompt, where the prompt
// would become the first line of that command's output.
func TestRunCommandLatePrompt(t *testing.T) {
	e := newEnv(t, Mutating, func(d *Deps) { d.ReadyTimeout = 20 * time.Second })
	p := e.window(`env PS1='$ ' PROMPT_COMMAND='sleep 1.5' HISTFILE=/dev/null bash --noprofile --norc`)
	e.waitScreen(p, "prompt", func(s string) bool { return strings.HasSuffix(s, "$") })
	for i := range 3 {
		var r drive.RunResult
		e.ok("run_command", map[string]any{"pane_id": p, "command": "echo late" + strconv.Itoa(i)}, &r)
		if got, want := r.Output, []string{"late" + strconv.Itoa(i)}; !slices.Equal(got, want) || deref(r.ExitStatus) != 0 {
			t.Errorf("run %d: output %q exit %v, want %q exit 0", i, got, deref(r.ExitStatus), want)
		}
	}
	// A shell without a visible prompt waits once, then no more.
	e = newEnv(t, Mutating)
	q := e.window(`env PS1= HISTFILE=/dev/null bash --noprofile --norc`)
	e.tmux("send-keys", "-t", q, "-l", "echo up")
	e.tmux("send-keys", "-t", q, "Enter")
	// Its answer on a line of its own: "echo up" typed (and echoed before
	// the shell reads it) also holds "up".
	e.waitScreen(q, "the shell", func(s string) bool { return slices.Contains(strings.Split(s, "\n"), "up") })
	for i := range 3 {
		var r drive.RunResult
		e.ok("run_command", map[string]any{"pane_id": q, "command": "echo quiet" + strconv.Itoa(i)}, &r)
		if got, want := r.Output, []string{"quiet" + strconv.Itoa(i)}; !slices.Equal(got, want) {
			t.Errorf("promptless run %d: output %q, want %q", i, got, want)
		}
		if got, want := r.ReadyTimedOut, i == 1; got != want {
			t.Errorf("promptless run %d: ready_timed_out %v, want %v (the prompt is waited for once)", i, got, want)
		}
	}
}

// TestRunCommandThenWait: after a run_command of two lines, a wait from
// that send sees the output, never the command's lines the pane shows.
func TestRunCommandThenWait(t *testing.T) {
	e := newEnv(t, Mutating)
	p := e.shell()
	e.ok("run_command", map[string]any{"pane_id": p, "command": "echo first-out\necho second-out", "suppress_history": false}, nil)
	var w drive.WaitResult
	e.ok("wait_for_text", map[string]any{"pane_id": p, "patterns": []any{"echo second"}, "timeout": 0.3}, &w)
	if w.Found || w.Outcome != "timeout" {
		t.Errorf("wait_for_text(echo second) = %+v; want a timeout: only the command's own line holds it", w)
	}
	e.ok("wait_for_text", map[string]any{"pane_id": p, "patterns": []any{"second-out"}, "timeout": 5}, &w)
	if !w.Found || !slices.Equal(w.MatchedLines, []string{"second-out"}) {
		t.Errorf("wait_for_text(second-out) = %+v; want the output's line", w)
	}
}
