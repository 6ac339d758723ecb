package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// job is the part of get_job's and list_jobs' results these tests read.
type job struct {
	JobID      string   `json:"job_id"`
	State      string   `json:"state"`
	ExitStatus *int     `json:"exit_status"`
	Reason     string   `json:"reason"`
	Elapsed    float64  `json:"elapsed_seconds"`
	Output     []string `json:"output"`
	Outcome    string   `json:"outcome"`
}

func (j job) exit() any {
	if j.ExitStatus == nil {
		return nil
	}
	return *j.ExitStatus
}

// bashPane opens a window running bash without start-up files and
// returns its pane.
func bashPane(tb testing.TB, tm *tmuxtest.Server) string {
	tb.Helper()
	return tm.MustTmux("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main:",
		"env PS1='$ ' HISTFILE=/dev/null bash --noprofile --norc")
}

// makeFifo makes a named pipe in dir: a job that reads it waits until the
// test writes it.
func makeFifo(tb testing.TB, dir, name string) string {
	tb.Helper()
	path := filepath.Join(dir, name)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		tb.Fatal(err)
	}
	return path
}

func writeFifo(tb testing.TB, path, line string) {
	tb.Helper()
	if err := os.WriteFile(path, []byte(line+"\n"), 0); err != nil {
		tb.Fatal(err)
	}
}

// startJob starts command in pane as a background job.
func startJob(tb testing.TB, c *client.Client, pane, command string) string {
	tb.Helper()
	var r struct {
		JobID string `json:"job_id"`
		State string `json:"state"`
	}
	decode(tb, callTool(tb, c, "run_command", map[string]any{"pane_id": pane, "command": command, "background": true}), &r)
	if r.JobID == "" || r.State != "running" {
		tb.Fatalf("run_command background = %+v, want a running job", r)
	}
	return r.JobID
}

func getJob(tb testing.TB, c *client.Client, id string, args map[string]any) job {
	tb.Helper()
	a := map[string]any{"job_id": id}
	for k, v := range args {
		a[k] = v
	}
	var j job
	decode(tb, callTool(tb, c, "get_job", a), &j)
	return j
}

// awaitEnd waits (get_job with a timeout) until the job has ended.
func awaitEnd(tb testing.TB, c *client.Client, id string) job {
	tb.Helper()
	for range 10 {
		if j := getJob(tb, c, id, map[string]any{"timeout": 5}); j.State != "running" {
			return j
		}
	}
	tb.Fatalf("job %s still running after 50s", id)
	return job{}
}

func listJobs(tb testing.TB, c *client.Client) map[string]job {
	tb.Helper()
	var l struct {
		Jobs    []job `json:"jobs"`
		Matched int   `json:"matched"`
	}
	decode(tb, callTool(tb, c, "list_jobs", nil), &l)
	out := map[string]job{}
	for _, j := range l.Jobs {
		out[j.JobID] = j
	}
	return out
}

// TestStdioJobs is the scenario through the built binary: an
// agent starts a job that waits (on a fifo the test writes, standing in
// for `sleep 30`), captures another pane meanwhile, is pushed
// resources/updated and a log message when the job ends, and reads exit
// status 0 and "done"; a job running when the tmux server is killed with
// kill -9 is lost, and that is pushed too.
func TestStdioJobs(t *testing.T) {
	bin := buildBinary(t)
	tm := tmuxtest.New(t)
	tm.Start("main")
	p := bashPane(t, tm)
	other := tm.MustTmux("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main:", "echo OTHER_PANE; exec sleep 1000")
	f := makeFifo(t, tm.Dir, "fifo")
	c, pushed, stderr := startLegacyStdio(t, bin, binaryEnv(tm.Socket))
	if err := rpc(c, "logging/setLevel", map[string]any{"level": "info"}); err != nil {
		t.Fatal(err)
	}

	id := startJob(t, c, p, "read x < "+f+"; echo done")
	uri := "tmux://jobs/" + id
	if err := rpc(c, "resources/subscribe", map[string]any{"uri": uri}); err != nil {
		t.Fatalf("subscribe %s: %v", uri, err)
	}
	tmuxtest.WaitFor(t, 10*time.Second, "the other pane", func() bool {
		return strings.Contains(tm.MustTmux("capture-pane", "-p", "-t", other), "OTHER_PANE")
	})
	var capture struct {
		Result string `json:"result"`
	}
	decode(t, callTool(t, c, "capture_pane", map[string]any{"pane_id": other}), &capture)
	if !strings.Contains(capture.Result, "OTHER_PANE") {
		t.Errorf("capture_pane of another pane while the job runs = %q, want OTHER_PANE", capture.Result)
	}
	if j := getJob(t, c, id, nil); j.State != "running" || j.ExitStatus != nil {
		t.Errorf("get_job while it waits = %+v, want running", j)
	}

	i := pushed.Len()
	writeFifo(t, f, "go")
	pushed.Wait(t, i, 10*time.Second, "resources/updated for "+uri, isUpdate(uri))
	logged := pushed.Wait(t, i, 10*time.Second, "the job's log message", isLogOf("job_exited"))
	if logged.Data("job_id") != id || logged.Data("exit_status") != float64(0) || strings.Contains(logged.Raw, "done") ||
		strings.Contains(logged.Raw, f) {
		t.Errorf("log message %s: want the job's ID and status, not its command or output", logged.Raw)
	}
	if j := getJob(t, c, id, nil); j.State != "exited" || j.exit() != 0 || !slices.Equal(j.Output, []string{"done"}) {
		t.Errorf("get_job after the end = %+v (exit %v), want exited 0 with [done]", j, j.exit())
	}

	// A job running when the server is killed is lost, with what was
	// known of it.
	id2 := startJob(t, c, p, `echo be""fore; sleep 1000`)
	getJob(t, c, id2, map[string]any{"timeout": 10, "patterns": []any{"before"}})
	uri2 := "tmux://jobs/" + id2
	if err := rpc(c, "resources/subscribe", map[string]any{"uri": uri2}); err != nil {
		t.Fatal(err)
	}
	i = pushed.Len()
	if err := syscall.Kill(tm.PID(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	pushed.Wait(t, i, 10*time.Second, "resources/updated for "+uri2, isUpdate(uri2))
	if j := getJob(t, c, id2, nil); j.State != "lost" || j.ExitStatus != nil || !strings.Contains(j.Reason, "server") ||
		!slices.Equal(j.Output, []string{"before"}) || j.Elapsed <= 0 {
		t.Errorf("get_job after kill -9 of the server = %+v, want lost with its last output", j)
	}
	if t.Failed() {
		t.Logf("stderr:\n%s", stderr)
	}
}

// TestStdioJobsRestart: jobs are in the journal. A tmux-mcp started after
// another lists its jobs, finds the end of one that ended while no
// tmux-mcp ran and of one that ends later; after the tmux server was
// killed with kill -9 while no tmux-mcp ran, the next one lists its
// running jobs as lost, never running.
func TestStdioJobsRestart(t *testing.T) {
	bin := buildBinary(t)
	tm := tmuxtest.New(t)
	tm.Start("main")
	a, b := bashPane(t, tm), bashPane(t, tm)
	fa, fb := makeFifo(t, tm.Dir, "fa"), makeFifo(t, tm.Dir, "fb")
	env := binaryEnv(tm.Socket)

	c1, _, _ := startLegacyStdio(t, bin, env)
	// The output's text never shows in the command line, which the pane
	// echoes: a match is the output's.
	ja := startJob(t, c1, a, `echo A-wa""its; read x < `+fa+"; echo A-$x")
	jb := startJob(t, c1, b, `echo B-wa""its; read x < `+fb+"; echo B-$x; exit 5")
	for _, id := range []string{ja, jb} {
		getJob(t, c1, id, map[string]any{"timeout": 10, "patterns": []any{"-waits"}})
	}
	if err := c1.Close(); err != nil {
		t.Fatal(err)
	}
	writeFifo(t, fb, "while-down")

	c2, _, _ := startLegacyStdio(t, bin, env)
	if got := listJobs(t, c2); len(got) != 2 || got[ja].State != "running" {
		t.Fatalf("list_jobs after a restart = %+v, want both jobs, %s running", got, ja)
	}
	if j := awaitEnd(t, c2, jb); j.State != "exited" || j.exit() != 5 || !slices.Equal(j.Output, []string{"B-waits", "B-while-down"}) {
		t.Errorf("job that ended while no tmux-mcp ran = %+v (exit %v), want exited 5", j, j.exit())
	}
	writeFifo(t, fa, "later")
	if j := awaitEnd(t, c2, ja); j.State != "exited" || j.exit() != 0 || !slices.Equal(j.Output, []string{"A-waits", "A-later"}) {
		t.Errorf("job that ended after the restart = %+v (exit %v), want exited 0", j, j.exit())
	}
	jc := startJob(t, c2, a, `echo C-wa""its; sleep 1000`)
	getJob(t, c2, jc, map[string]any{"timeout": 10, "patterns": []any{"C-waits"}})
	if err := c2.Close(); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(tm.PID(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	tmuxtest.WaitFor(t, 10*time.Second, "the server gone", func() bool { return !tmuxtest.Alive(tm.PID()) })

	c3, _, _ := startLegacyStdio(t, bin, env)
	got := listJobs(t, c3)
	if len(got) != 3 || got[jc].State != "lost" || got[ja].State != "exited" || got[jb].State != "exited" {
		t.Errorf("list_jobs after kill -9 of the server = %+v, want %s lost and the others exited", got, jc)
	}
	if j := getJob(t, c3, jc, nil); j.State != "lost" || !slices.Equal(j.Output, []string{"C-waits"}) {
		t.Errorf("get_job of the lost job = %+v, want lost with the output known", j)
	}
}
