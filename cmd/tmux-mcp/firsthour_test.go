package main

// An agent's first hour (issue 18), case by case, through the built binary
// over stdio. Cases 1 and 2 are in firsthour_waits_test.go; 3 is
// TestStdioResultsAreNotHTMLEscaped, 6 TestFirstCallOnNewServerIsNotRestoring,
// 7 TestMakeRunStdoutIsMCPOnly, 8 TestToolsListDescribesEveryParameter, 9
// TestToolsListHasNoTypeUnions and TestToolsetsCoreOverStdio.

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// firstHourRun is run_command's result as a client decodes it.
type firstHourRun struct {
	ExitStatus        *int     `json:"exit_status"`
	TimedOut          bool     `json:"timed_out"`
	Output            []string `json:"output"`
	Truncated         bool     `json:"output_truncated"`
	TruncatedLines    int      `json:"output_truncated_lines"`
	HistoryOverflowed bool     `json:"history_overflowed"`
}

// firstHourServer starts an isolated tmux server whose panes keep limit
// lines of history, a window running shell at the prompt "$ ", and the
// binary at the mutating tier with a temporary directory of its own. It
// returns the client, the server, the pane and that directory.
func firstHourServer(t *testing.T, limit int, shell string) (*wireClient, *tmuxtest.Server, string, string) {
	t.Helper()
	bin := buildBinary(t)
	tm := tmuxtest.New(t)
	tm.Start("main")
	// Short, so that the line run_command types fits the pane's width.
	tmpdir := filepath.Join(tm.Dir, "t")
	if err := os.Mkdir(tmpdir, 0o700); err != nil {
		t.Fatal(err)
	}
	tm.MustTmux("set-option", "-g", "history-limit", strconv.Itoa(limit))
	pane := tm.MustTmux("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main:", "env PS1='$ ' "+shell)
	tmuxtest.WaitFor(t, 10*time.Second, "the prompt", func() bool {
		out, _ := tm.Tmux("capture-pane", "-p", "-t", pane)
		return strings.TrimSpace(out) == "$"
	})
	cmd := exec.Command(bin, "serve")
	cmd.Env = binaryEnv(tm.Socket, "TMPDIR="+tmpdir)
	r := startWire(t, cmd)
	r.initialize()
	return r, tm, pane, tmpdir
}

// run calls run_command; any JSON-RPC error or tool error fails the test.
func (r *wireClient) run(args map[string]any) firstHourRun {
	r.t.Helper()
	line, res := r.call("run_command", args)
	var frame struct {
		Error json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal([]byte(line), &frame); err != nil || frame.Error != nil || res.IsError {
		r.t.Fatalf("run_command(%v) = %.500s", args, line)
	}
	var out firstHourRun
	if err := json.Unmarshal(res.Structured, &out); err != nil {
		r.t.Fatalf("run_command: %v in %s", err, res.Structured)
	}
	return out
}

// TestFirstHourRunCommandAtHistoryLimit is case 4: 200 run_command calls
// on a pane at its history-limit (100 lines, so that every call crosses
// it): each answers with a result, never a JSON-RPC error, with the
// command's exit status and the tail of its output, complete unless
// history_overflowed says the limit took its start.
func TestFirstHourRunCommandAtHistoryLimit(t *testing.T) {
	r, tm, pane, _ := firstHourServer(t, 100, "sh")
	r.run(map[string]any{"pane_id": pane, "command": "seq 1 300"})
	if h, _ := strconv.Atoi(tm.MustTmux("display-message", "-p", "-t", pane, "#{history_size}")); h < 90 {
		t.Fatalf("history_size %d, want the pane at its limit of 100", h)
	}
	sizes := []int{1, 3, 9, 10, 11, 25, 50, 60, 95, 101, 150, 400}
	for i := range 200 {
		n, status := sizes[i%len(sizes)], i%3
		res := r.run(map[string]any{"pane_id": pane, "command": fmt.Sprintf("seq 1 %d; exit %d", n, status)})
		first, _ := strconv.Atoi(firstHourFirst(res.Output))
		complete := first == 1
		ok := res.ExitStatus != nil && *res.ExitStatus == status && !res.TimedOut && first >= 1 &&
			len(res.Output) == n-first+1 && complete == !res.HistoryOverflowed && complete == !res.Truncated
		for j, l := range res.Output {
			ok = ok && l == strconv.Itoa(first+j)
		}
		if n <= 50 {
			ok = ok && complete
		}
		if !ok {
			t.Fatalf("call %d: run_command(seq 1 %d; exit %d) = %+v (exit %v); want the lines up to %d, all of them unless history overflowed",
				i, n, status, res, firstHourDeref(res.ExitStatus), n)
		}
	}
}

// TestFirstHourTruncationCounts is case 5: seq 1 100000 on a pane that
// keeps 1,000 lines of history: the result has the last lines, and since
// the lines it counts as cut (output_truncated_lines) are not all the lines
// lost, it says that history overflowed.
func TestFirstHourTruncationCounts(t *testing.T) {
	r, _, pane, _ := firstHourServer(t, 1000, "sh")
	res := r.run(map[string]any{"pane_id": pane, "command": "seq 1 100000"})
	n := len(res.Output)
	if n != 500 || res.Output[n-1] != "100000" || res.Output[0] != "99501" || firstHourDeref(res.ExitStatus) != 0 || !res.Truncated {
		t.Fatalf("run_command(seq 1 100000) = %d lines %q..%q, exit %v, truncated %v; want 99501..100000, exit 0, truncated",
			n, firstHourFirst(res.Output), res.Output[n-1], firstHourDeref(res.ExitStatus), res.Truncated)
	}
	if shown := n + res.TruncatedLines; shown < 100000 && !res.HistoryOverflowed {
		t.Errorf("run_command(seq 1 100000) = %d lines and %d counted as cut, history_overflowed false: the counts understate the %d lines lost",
			n, res.TruncatedLines, 100000-shown)
	}
	if !res.HistoryOverflowed {
		t.Errorf("run_command(seq 1 100000) on a pane keeping 1,000 lines: history_overflowed false, want true")
	}
}

// TestFirstHourRunCommandLeavesLittle is case 10, as issue 30 sharpened
// it: at the prompt of sh (dash), bash and zsh, the pane (and
// capture_since) shows, after the prompt, the command run_command ran and
// its output, then the prompt: nothing of run_command's (the line it
// typed, the file it sourced, an end marker, a continuation prompt), and
// the result is the command's output. Its files are gone when the binary
// exits.
func TestFirstHourRunCommandLeavesLittle(t *testing.T) {
	for _, shell := range []string{"sh", "bash --noprofile --norc", "zsh -f"} {
		t.Run(strings.Fields(shell)[0], func(t *testing.T) {
			if _, err := exec.LookPath(strings.Fields(shell)[0]); err != nil {
				if os.Getenv("CI") != "" {
					t.Fatalf("%s is not installed; CI installs it (.ci/run)", shell)
				}
				t.Skipf("%s is not installed", shell)
			}
			r, tm, pane, tmpdir := firstHourServer(t, 2000, "HISTFILE=/dev/null "+shell)
			_, res := r.call("capture_since", map[string]any{"pane_id": pane})
			var since struct {
				Cursor string   `json:"cursor"`
				Lines  []string `json:"lines"`
			}
			if err := json.Unmarshal(res.Structured, &since); err != nil || res.IsError {
				t.Fatalf("capture_since: %v %s", err, res.text())
			}
			for _, c := range []struct {
				command string
				shown   []string
				output  []string
			}{
				{"echo one; echo two", []string{"$ echo one; echo two"}, []string{"one", "two"}},
				{"echo three\necho four", []string{"$ echo three", "echo four"}, []string{"three", "four"}},
			} {
				got := r.run(map[string]any{"pane_id": pane, "command": c.command, "suppress_history": false})
				if !slices.Equal(got.Output, c.output) || firstHourDeref(got.ExitStatus) != 0 {
					t.Errorf("run_command(%q) = output %q, exit %v; want %q, exit 0", c.command, got.Output, firstHourDeref(got.ExitStatus), c.output)
				}
				_, res := r.call("capture_since", map[string]any{"pane_id": pane, "cursor": since.Cursor})
				if err := json.Unmarshal(res.Structured, &since); err != nil || res.IsError {
					t.Fatalf("capture_since: %v %s", err, res.text())
				}
				// The command as shown, the output, the prompt.
				want := append(append(slices.Clone(c.shown), c.output...), "$")
				if !slices.Equal(since.Lines, want) {
					t.Errorf("after run_command(%q) capture_since returned\n%s\nwant\n%s", c.command,
						strings.Join(since.Lines, "\n"), strings.Join(want, "\n"))
				}
			}
			screen := tm.MustTmux("capture-pane", "-p", "-J", "-S", "-", "-t", pane)
			for _, ours := range []string{"tmux-mcp", "eval", ". /", tmpdir, "\n> ", "wait-for", "TMCPS"} {
				if strings.Contains(screen, ours) {
					t.Errorf("the pane (history too) shows %q:\n%s", ours, screen)
				}
			}
			r.stdin.Close()
			if err := r.cmd.Wait(); err != nil {
				t.Fatalf("the binary: %v\n%s", err, r.stderr)
			}
			if left, _ := filepath.Glob(filepath.Join(tmpdir, "*")); len(left) != 0 {
				t.Errorf("after the binary exited, %s holds %q", tmpdir, left)
			}
		})
	}
}

func firstHourFirst(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

func firstHourDeref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}
