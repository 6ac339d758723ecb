package hosts_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/hosts/sshdtest"
	"github.com/tmux-mcp/tmux-mcp/internal/e2etest"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// startHostURL starts a local tmux-mcp over stdio whose one host is url
// (NAME=ssh://...), reached with h's ssh configuration, with the extra
// environment; it is closed when the test ends.
func startHostURL(t *testing.T, bin string, h *simHost, url string, extra ...string) *hostsFixture {
	t.Helper()
	ssh := sshdtest.ClientConfig(t, h.sshd)
	local := tmuxtest.New(t)
	env := e2etest.Env(local.Socket, append([]string{"TMUX_MCP_HOSTS=" + url, "TMUX_MCP_SSH=" + strings.Join(ssh, " ")}, extra...)...)
	f := &hostsFixture{ssh: ssh, local: local, env: env}
	f.c, f.cmd, f.stderr = e2etest.StartStdio(t, bin, env)
	t.Cleanup(func() { f.c.Close() })
	return f
}

// lostReads matches the local log's line for a read whose connection was
// lost, with the number of the connection it was lost on.
var lostReads = regexp.MustCompile(`connection lost during a read.* connection=(\d+)`)

// TestHostsReadRetryWaitsForNextConnection: a read in flight (get_job
// waiting for a job's end) whose ssh connection is killed, again and
// again, is made again once per new connection: never again on the
// connection it just lost (issue 43: handed the dead connection until the
// link noticed, 226 retries, 60 within 2 ms). The host's tmux-mcp runs
// behind a tee of its input, which shows when each attempt reached it;
// each kill ends the connection and that tmux-mcp (the next one takes
// the job over from the host's journal).
func TestHostsReadRetryWaitsForNextConnection(t *testing.T) {
	bin := e2etest.Binary(t)
	h := startSimHost(t, "alpha", bin)
	input := filepath.Join(h.dir, "input.log")
	wrap := filepath.Join(h.dir, "wrap.sh")
	if err := os.WriteFile(wrap, []byte("#!/bin/sh\ntee -a '"+input+"' | exec tmux-mcp \"$@\"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	f := startHostURL(t, bin, h, h.sshd.URL("alpha")+"?command="+wrap, "TMUX_MCP_SAFETY=mutating")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("local tmux-mcp's log:\n%s", f.stderr)
		}
	})
	f.awaitUp(t, "alpha", 30*time.Second)
	pane := f.session(t, "alpha", "s-retry")
	done := filepath.Join(h.dir, "job.done")
	var started struct {
		JobID string `json:"job_id"`
	}
	e2etest.Decode(t, f.call(t, 20*time.Second, "run_command", map[string]any{"host": "alpha", "pane_id": pane, "background": true,
		"command": "while [ ! -e '" + done + "' ]; do sleep 0.05; done; echo job-done-retry"}), &started)
	if started.JobID == "" {
		t.Fatal("run_command background: no job_id")
	}
	waited := make(chan *mcp.CallToolResult, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
		defer cancel()
		var req mcp.CallToolRequest
		req.Params.Name = "get_job"
		req.Params.Arguments = map[string]any{"host": "alpha", "job_id": started.JobID, "timeout": 30}
		res, err := f.c.CallTool(ctx, req)
		if err != nil {
			res = mcp.NewToolResultError("transport: " + err.Error())
		}
		waited <- res
	}()
	// attempts counts the get_job calls that reached the host.
	attempts := func() int {
		b, _ := os.ReadFile(input)
		return strings.Count(string(b), `"get_job"`)
	}
	const kills = 20
	for k := 1; k <= kills; k++ {
		tmuxtest.WaitFor(t, 30*time.Second, fmt.Sprintf("get_job to reach the host, attempt %d", k), func() bool { return attempts() >= k })
		// The connection and the host's tmux-mcp with it (a tmux-mcp
		// left draining its calls would keep the job for itself), not the
		// tmux server it started.
		remote := pidsOf(h.sshd.SessionProcesses(), bin)
		if n := h.sshd.KillSessions(); n == 0 {
			t.Fatal("no ssh connection to kill")
		}
		for _, pid := range remote {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		tmuxtest.WaitFor(t, 30*time.Second, fmt.Sprintf("the read to notice lost connection %d", k), func() bool {
			return len(lostReads.FindAllString(f.stderr.String(), -1)) >= k
		})
	}
	tmuxtest.WaitFor(t, 30*time.Second, "get_job to reach the host after the last kill", func() bool { return attempts() > kills })
	if err := os.WriteFile(done, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var res *mcp.CallToolResult
	select {
	case res = <-waited:
	case <-time.After(60 * time.Second):
		t.Fatal("get_job did not return after the job ended")
	}
	if res.IsError {
		t.Fatalf("get_job across %d lost connections: %v", kills, res.Content)
	}
	var j struct {
		State  string   `json:"state"`
		Output []string `json:"output"`
	}
	e2etest.Decode(t, res, &j)
	if j.State != "exited" || !strings.Contains(strings.Join(j.Output, "\n"), "job-done-retry") {
		t.Errorf("the job after %d lost connections: %s", kills, structuredText(t, res))
	}
	// One retry per lost connection, each on a connection of its own.
	perConn := map[string]int{}
	lines := lostReads.FindAllStringSubmatch(f.stderr.String(), -1)
	for _, m := range lines {
		perConn[m[1]]++
	}
	for n, c := range perConn {
		if c != 1 {
			t.Errorf("the read was lost %d times on connection %s, want once: a retry was made on the dead connection", c, n)
		}
	}
	if len(lines) != kills {
		t.Errorf("%d lost-read lines for %d killed connections", len(lines), kills)
	}
}
