package tools

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/drive"
	"github.com/tmux-mcp/tmux-mcp/jobrecord"
	"github.com/tmux-mcp/tmux-mcp/jobs"
	"github.com/tmux-mcp/tmux-mcp/mcpserver"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// fifo makes a named pipe: a command that reads it waits until the test
// writes it.
func fifo(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// release writes a line to a fifo a job reads.
func release(t *testing.T, path, line string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(line+"\n"), 0); err != nil {
		t.Fatal(err)
	}
}

// startJob runs command in pane as a background job and returns its ID.
func (e *env) startJob(pane, command string) string {
	e.t.Helper()
	var r jobStarted
	e.ok("run_command", map[string]any{"pane_id": pane, "command": command, "background": true}, &r)
	if r.JobID == "" || r.State != jobrecord.Running || r.ExitStatus != nil || r.PaneID != pane {
		e.t.Fatalf("run_command background = %+v, want a running job in %s", r, pane)
	}
	return r.JobID
}

// getJob calls get_job with args (job_id added).
func (e *env) getJob(id string, args map[string]any) jobResult {
	e.t.Helper()
	a := map[string]any{"job_id": id}
	for k, v := range args {
		a[k] = v
	}
	var r jobResult
	e.ok("get_job", a, &r)
	return r
}

// awaitJob waits (get_job with a timeout) until the job has ended.
func (e *env) awaitJob(id string) jobResult {
	e.t.Helper()
	for range 10 {
		if r := e.getJob(id, map[string]any{"timeout": 5}); r.State != jobrecord.Running {
			return r
		}
	}
	e.t.Fatalf("job %s still running after 50s", id)
	return jobResult{}
}

func jobURI(id string) string { return "tmux://jobs/" + id }

// TestJobRunsInBackground is the scenario: a job that waits (on a
// fifo the test writes, not a sleep), other panes read meanwhile, then its
// exit status and output; the end is pushed to a subscriber and logged at
// info level without the command or its output.
func TestJobRunsInBackground(t *testing.T) {
	e := newEnv(t, Mutating)
	p, other := e.shell(), e.window("echo OTHER_PANE; exec sleep 1000")
	e.waitScreen(other, "the other pane", func(s string) bool { return strings.Contains(s, "OTHER_PANE") })
	c, n := legacyClient(t, e.srv)
	if err := setLevel(c, mcp.LoggingLevelInfo); err != nil {
		t.Fatal(err)
	}
	f := fifo(t)
	start := time.Now()
	id := e.startJob(p, "read x < "+f+"; echo SECRET_OUTPUT_$x")
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("run_command background took %v, want it to return at once", d)
	}
	if err := subscribe(c, jobURI(id)); err != nil {
		t.Fatalf("subscribe: %v", err)
	}
	var cap captureResult
	e.ok("capture_pane", map[string]any{"pane_id": other}, &cap)
	if !strings.Contains(cap.Result, "OTHER_PANE") {
		t.Errorf("capture of another pane while the job runs = %q, want OTHER_PANE", cap.Result)
	}
	if r := e.getJob(id, nil); r.State != jobrecord.Running || r.ExitStatus != nil || r.PaneID != p || r.Outcome != "" {
		t.Errorf("get_job while it runs = %+v, want running, no exit status", r)
	}
	var l listResult
	e.ok("list_jobs", map[string]any{"state": "running"}, &l)
	if l.Matched != 1 || l.LeftOut != 0 || len(l.Jobs) != 1 || l.Jobs[0].JobID != id {
		t.Errorf("list_jobs(running) = %+v, want the job", l)
	}
	e.fails("run_command", map[string]any{"pane_id": p, "command": "true"}, "pane "+p+" is busy: job "+id+" runs there", "[pane_busy]")
	e.fails("run_command", map[string]any{"pane_id": p, "command": "true", "background": true}, "[pane_busy]")

	i := n.len()
	release(t, f, "1")
	n.wait(t, i, 10*time.Second, "update of "+jobURI(id), updated(jobURI(id)))
	logged := n.wait(t, i, 10*time.Second, "job log message", func(x note) bool {
		return isLog(x) && x.Str("logger") == mcpserver.LoggerJobs
	})
	for _, secret := range []string{"SECRET", "read x", f} {
		if strings.Contains(logged.raw, secret) {
			t.Errorf("log message %s carries %q (command or output)", logged.raw, secret)
		}
	}
	if !strings.Contains(logged.raw, id) || !strings.Contains(logged.raw, "exited with status 0") {
		t.Errorf("log message %s, want the job ID and its exit status", logged.raw)
	}
	r := e.getJob(id, nil)
	if r.State != jobrecord.Exited || deref(r.ExitStatus) != 0 || !slices.Equal(r.Output, []string{"SECRET_OUTPUT_1"}) || r.Truncated {
		t.Errorf("get_job after the end = %+v (exit %v), want exited 0 with [SECRET_OUTPUT_1]", r, deref(r.ExitStatus))
	}
	if text := readContent(t, c, jobURI(id)); !strings.Contains(text, `"state": "exited"`) {
		t.Errorf("resource %s = %s, want the exited job", jobURI(id), text)
	}
	// The pane is free again.
	var rr drive.RunResult
	e.ok("run_command", map[string]any{"pane_id": p, "command": "echo again"}, &rr)
	if !slices.Equal(rr.Output, []string{"again"}) {
		t.Errorf("run_command after the job = %q, want [again]", rr.Output)
	}
}

// TestJobWaitsForPattern: get_job with patterns returns once the job's
// output matches, while it runs on; without patterns, at its end.
func TestJobWaitsForPattern(t *testing.T) {
	e := newEnv(t, Mutating)
	p := e.shell()
	f := fifo(t)
	// The output's text never shows in the command line, which the pane
	// echoes: a match is the output's.
	id := e.startJob(p, `echo boot""ing; echo LISTENING on $((8000+80)); read x < `+f+"; exit 3")
	r := e.getJob(id, map[string]any{"timeout": 10, "patterns": []any{"on 8080"}})
	if r.Outcome != "matched" || r.State != jobrecord.Running || !slices.Equal(r.MatchedLines, []string{"LISTENING on 8080"}) {
		t.Errorf("get_job(patterns) = %+v, want matched while running", r)
	}
	r = e.getJob(id, map[string]any{"timeout": 0.3})
	if r.Outcome != "timeout" || r.State != jobrecord.Running {
		t.Errorf("get_job(timeout 0.3) = %+v, want a timeout while it runs", r)
	}
	release(t, f, "")
	r = e.awaitJob(id)
	if r.Outcome != "ended" || r.State != jobrecord.Exited || deref(r.ExitStatus) != 3 ||
		!slices.Equal(r.Output, []string{"booting", "LISTENING on 8080"}) {
		t.Errorf("get_job(timeout) = %+v (exit %v), want ended with status 3", r, deref(r.ExitStatus))
	}
	e.fails("get_job", map[string]any{"job_id": id, "patterns": []any{"x"}}, "argument patterns: need a timeout")
	e.fails("get_job", map[string]any{"job_id": "j0000000000"}, "Job not found: j0000000000", "[job_not_found]")
	e.fails("get_job", map[string]any{"job_id": "#{pane_id}"}, "argument job_id: want a job ID like j0123456789")
	e.fails("run_command", map[string]any{"pane_id": p, "command": "true", "background": true, "timeout": 3},
		"argument timeout: does not apply with background")
}

// TestJobForgedMarkers: output that looks like the wrapper's markers, or
// holds another job's marker text, does not end a job; neither does the
// echoed command line.
func TestJobForgedMarkers(t *testing.T) {
	e := newEnv(t, Mutating)
	p := e.shell()
	f := fifo(t)
	id := e.startJob(p, `echo TMCPE_fake:0; printf 'TMCPE_%s:%s\n' 0123456789ab 0; echo "TMCPS_x"; echo FORGED; read x < `+f+`; exit 7`)
	r := e.getJob(id, map[string]any{"timeout": 10, "patterns": []any{"^FORGED$"}, "regex": true})
	if r.Outcome != "matched" || r.State != jobrecord.Running || r.ExitStatus != nil {
		t.Fatalf("get_job after the forged markers = %+v, want it running", r)
	}
	release(t, f, "")
	r = e.awaitJob(id)
	if r.State != jobrecord.Exited || deref(r.ExitStatus) != 7 ||
		!slices.Equal(r.Output, []string{"TMCPE_fake:0", "TMCPE_0123456789ab:0", "TMCPS_x", "FORGED"}) {
		t.Errorf("job = %+v (exit %v), want exit 7 and the forged lines as output", r, deref(r.ExitStatus))
	}
}

// TestStopJob stops jobs that need each step: C-c ends a plain command
// (the shell then drops the rest of the wrapper's line: the status is
// unknown), SIGTERM one that ignores SIGINT, SIGKILL one that ignores
// both.
func TestStopJob(t *testing.T) {
	tests := []struct {
		name    string
		command string
		signals []string
		status  any
		reason  string
	}{
		{"C-c", "sleep 1000", []string{"SIGINT"}, nil, "stopped by stop_job (SIGINT): the shell dropped the rest of the command line"},
		{"SIGTERM", "trap '' INT; sleep 1000", []string{"SIGINT", "SIGTERM"}, 143, "stopped by stop_job (SIGTERM)"},
		{"SIGKILL", "trap '' INT TERM; sleep 1000", []string{"SIGINT", "SIGTERM", "SIGKILL"}, 137, "stopped by stop_job (SIGKILL)"},
	}
	e := newEnv(t, Mutating)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := *e
			e.t = t
			p := e.shell()
			id := e.startJob(p, tt.command)
			shell := e.tmux("display-message", "-p", "-t", p, "#{pane_pid}")
			tmuxtest.WaitFor(t, 10*time.Second, "the job's sleep", func() bool { return len(sleepsUnder(t, shell)) > 0 })
			var r stopResult
			e.ok("stop_job", map[string]any{"job_id": id, "grace": 3}, &r)
			var got []string
			for _, s := range r.Steps {
				got = append(got, s.Signal)
				if s.Target == "" || s.Waited < 0 {
					t.Errorf("step %+v: want a target and the time waited", s)
				}
			}
			if !slices.Equal(got, tt.signals) || !r.Steps[len(r.Steps)-1].Ended || r.State != jobrecord.Exited ||
				deref(r.ExitStatus) != tt.status || !strings.HasPrefix(r.Reason, tt.reason) {
				t.Errorf("stop_job = %+v (exit %v), want steps %v, the last ending it, exit %v, reason %q", r, deref(r.ExitStatus),
					tt.signals, tt.status, tt.reason)
			}
			if left := sleepsUnder(t, shell); len(left) > 0 {
				t.Errorf("processes left after stop_job: %v", left)
			}
			// The shell is fine: the pane takes another command.
			var rr drive.RunResult
			e.ok("run_command", map[string]any{"pane_id": p, "command": "echo alive"}, &rr)
			if !slices.Equal(rr.Output, []string{"alive"}) {
				t.Errorf("run_command after stop_job = %q, want [alive]", rr.Output)
			}
			var again stopResult
			e.ok("stop_job", map[string]any{"job_id": id}, &again)
			if len(again.Steps) != 0 || again.State != jobrecord.Exited {
				t.Errorf("stop_job of an ended job = %+v, want no step", again)
			}
		})
	}
}

// sleepsUnder returns the PIDs of sleep processes below pid (a pane's
// shell).
func sleepsUnder(t *testing.T, pid string) []string {
	t.Helper()
	out, _ := exec.Command("pgrep", "-P", pid).Output()
	var found []string
	for _, c := range strings.Fields(string(out)) {
		comm, _ := os.ReadFile("/proc/" + c + "/comm")
		if strings.TrimSpace(string(comm)) == "sleep" {
			found = append(found, c)
		}
		found = append(found, sleepsUnder(t, c)...)
	}
	return found
}

// TestJobInterruptedInPane: a person's C-c in the pane ends the job; the
// end is pushed like any other.
func TestJobInterruptedInPane(t *testing.T) {
	e := newEnv(t, Mutating)
	p := e.shell()
	c, n := legacyClient(t, e.srv)
	id := e.startJob(p, `echo star""ted; sleep 1000`)
	if err := subscribe(c, jobURI(id)); err != nil {
		t.Fatal(err)
	}
	e.getJob(id, map[string]any{"timeout": 10, "patterns": []any{"started"}})
	shell := e.tmux("display-message", "-p", "-t", p, "#{pane_pid}")
	tmuxtest.WaitFor(t, 10*time.Second, "the job's sleep", func() bool { return len(sleepsUnder(t, shell)) > 0 })
	i := n.len()
	e.tmux("send-keys", "-t", p, "C-c")
	n.wait(t, i, 10*time.Second, "update of "+jobURI(id), updated(jobURI(id)))
	r := e.getJob(id, nil)
	if r.State != jobrecord.Exited || r.ExitStatus != nil || !strings.HasPrefix(r.Reason, "interrupted") || !slices.Equal(r.Output, []string{"started"}) {
		t.Errorf("job after C-c = %+v, want exited, status unknown, interrupted, output [started]", r)
	}
}

// TestJobLost: a job whose pane is closed, or whose server is killed, is
// lost, with what was known of it; never running.
func TestJobLost(t *testing.T) {
	t.Run("pane closed", func(t *testing.T) {
		e := newEnv(t, Mutating)
		p := e.shell()
		id := e.startJob(p, `echo be""fore; sleep 1000`)
		e.getJob(id, map[string]any{"timeout": 10, "patterns": []any{"before"}})
		e.tmux("kill-pane", "-t", p)
		r := e.awaitJob(id)
		if r.State != jobrecord.Lost || r.ExitStatus != nil || r.Reason != "its pane was closed" || !slices.Equal(r.Output, []string{"before"}) {
			t.Errorf("job after kill-pane = %+v, want lost, its last output kept", r)
		}
	})
	t.Run("server killed", func(t *testing.T) {
		e := newEnv(t, Mutating)
		p := e.shell()
		id := e.startJob(p, `echo be""fore; sleep 1000`)
		e.getJob(id, map[string]any{"timeout": 10, "patterns": []any{"before"}})
		if err := syscall.Kill(e.tm.PID(), syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		r := e.awaitJob(id)
		if r.State != jobrecord.Lost || r.ExitStatus != nil || !strings.Contains(r.Reason, "server") || !slices.Equal(r.Output, []string{"before"}) ||
			r.Elapsed <= 0 {
			t.Errorf("job after kill -9 of the server = %+v, want lost with its last output and elapsed time", r)
		}
	})
}

// TestJobShells runs a job, and interrupts one, in each shell the wrapper
// supports; a fish pane is refused.
func TestJobShells(t *testing.T) {
	shells := []struct{ name, cmd string }{
		{"sh", "env PS1='$ ' sh"},
		{"bash", "env PS1='$ ' HISTFILE=/dev/null bash --noprofile --norc"},
		{"zsh", "env PS1='$ ' zsh -f"},
	}
	e := newEnv(t, Mutating)
	for _, sh := range shells {
		t.Run(sh.name, func(t *testing.T) {
			if _, err := exec.LookPath(sh.name); err != nil {
				t.Skipf("%s not installed", sh.name)
			}
			e := *e
			e.t = t
			p := e.window(sh.cmd)
			e.waitScreen(p, "prompt", func(s string) bool { return strings.HasSuffix(s, "$") })
			f := fifo(t)
			id := e.startJob(p, "read x < "+f+"; echo got-$x")
			release(t, f, "it")
			if r := e.awaitJob(id); r.State != jobrecord.Exited || deref(r.ExitStatus) != 0 || !slices.Equal(r.Output, []string{"got-it"}) {
				t.Errorf("job in %s = %+v, want exited 0 with [got-it]", sh.name, r)
			}
			id = e.startJob(p, "sleep 1000")
			var r stopResult
			e.ok("stop_job", map[string]any{"job_id": id}, &r)
			if r.State != jobrecord.Exited || len(r.Steps) == 0 || !r.Steps[len(r.Steps)-1].Ended {
				t.Errorf("stop_job in %s = %+v, want it ended", sh.name, r)
			}
		})
	}
	t.Run("fish", func(t *testing.T) {
		if _, err := exec.LookPath("fish"); err != nil {
			t.Skip("fish not installed")
		}
		e := *e
		e.t = t
		p := e.window("env HOME=" + t.TempDir() + " fish --no-config")
		tmuxtest.WaitFor(t, 10*time.Second, "fish", func() bool {
			return e.tmux("display-message", "-p", "-t", p, "#{pane_current_command}") == "fish"
		})
		for _, bg := range []bool{true, false} {
			e.fails("run_command", map[string]any{"pane_id": p, "command": "echo hi", "background": bg},
				"pane "+p+" runs fish; run_command needs a POSIX shell", "nothing was sent", "[unsupported_shell]")
		}
	})
}

// TestListJobs filters by state and session and says how many matched and
// how many the limit left out.
func TestListJobs(t *testing.T) {
	e := newEnv(t, Mutating)
	e.tmux("new-session", "-d", "-s", "other")
	a, b := e.shell(), e.shell()
	c := e.tmux("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "other:", "env PS1='$ ' bash --noprofile --norc")
	e.waitScreen(c, "prompt", func(s string) bool { return strings.HasSuffix(s, "$") })
	done := e.startJob(a, "true")
	e.awaitJob(done)
	fb, fc := fifo(t), fifo(t)+"c"
	if err := syscall.Mkfifo(fc, 0o600); err != nil {
		t.Fatal(err)
	}
	b1 := e.startJob(b, "read x < "+fb)
	c1 := e.startJob(c, "read x < "+fc)
	tests := []struct {
		args    map[string]any
		want    []string
		matched int
	}{
		{map[string]any{}, []string{c1, b1, done}, 3},
		{map[string]any{"state": "running"}, []string{c1, b1}, 2},
		{map[string]any{"state": "exited"}, []string{done}, 1},
		{map[string]any{"session_name": "other"}, []string{c1}, 1},
		{map[string]any{"limit": 1}, []string{c1}, 3},
		{map[string]any{"state": "lost"}, nil, 0},
	}
	for _, tt := range tests {
		var l listResult
		e.ok("list_jobs", tt.args, &l)
		var got []string
		for _, j := range l.Jobs {
			got = append(got, j.JobID)
		}
		if !slices.Equal(got, tt.want) || l.Matched != tt.matched || l.LeftOut != tt.matched-len(tt.want) {
			t.Errorf("list_jobs(%v) = %v, %d matched, %d left out; want %v, %d, %d", tt.args, got, l.Matched, l.LeftOut,
				tt.want, tt.matched, tt.matched-len(tt.want))
		}
	}
	release(t, fb, "")
	release(t, fc, "")
	e.awaitJob(b1)
	e.awaitJob(c1)
}

// TestJobsPerServerBound: a server runs at most jobs.MaxPerServer jobs at
// once; the next is refused before anything is typed.
func TestJobsPerServerBound(t *testing.T) {
	e := newEnv(t, Mutating)
	f := fifo(t)
	var ids []string
	for range jobs.MaxPerServer {
		ids = append(ids, e.startJob(e.window("env PS1='$ ' sh"), "read x < "+f))
	}
	p := e.window("env PS1='$ ' sh")
	e.fails("run_command", map[string]any{"pane_id": p, "command": "echo NEVER_TYPED", "background": true},
		"8 jobs already run on this tmux server", "[too_many_jobs]")
	if s := e.screen(p); strings.Contains(s, "NEVER_TYPED") {
		t.Errorf("the refused job was typed: %q", s)
	}
	for _, id := range ids {
		var r stopResult
		e.ok("stop_job", map[string]any{"job_id": id}, &r)
	}
}
