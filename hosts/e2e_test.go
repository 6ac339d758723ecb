package hosts_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/hosts/sshdtest"
	"github.com/tmux-mcp/tmux-mcp/internal/e2etest"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// simHost is a simulated machine: an sshd on loopback whose sessions run
// with a HOME, a tmux socket and a journal of their own, so the tmux-mcp
// ssh starts there supervises its own tmux server.
type simHost struct {
	name   string
	sshd   *sshdtest.Server
	socket string
	dir    string
}

// startSimHost starts a simulated host whose sessions find bin on the
// PATH.
func startSimHost(t *testing.T, name, bin string, extra ...string) *simHost {
	t.Helper()
	return startSimHostPath(t, name, filepath.Dir(bin)+":/usr/local/bin:/usr/bin:/bin", extra...)
}

// startSimHostPath starts a simulated host whose sessions have PATH path
// and the extra environment.
func startSimHostPath(t *testing.T, name, path string, extra ...string) *simHost {
	t.Helper()
	return startSimHostOn(t, name, path, "", extra...)
}

// startSimHostOn starts a simulated host whose tmux-mcp supervises the
// tmux server on socket ("": one of its own).
func startSimHostOn(t *testing.T, name, path, socket string, extra ...string) *simHost {
	t.Helper()
	dir := t.TempDir()
	if socket == "" {
		socket = filepath.Join(dir, "tmux.sock")
	}
	h := &simHost{name: name, dir: dir, socket: socket}
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	h.sshd = sshdtest.Start(t, append([]string{
		"HOME=" + home,
		"PATH=" + path,
		"SHELL=" + os.Getenv("SHELL"),
		"TMUX_MCP_SOCKET_PATH=" + h.socket,
		"TMUX_MCP_TMUX_BIN=" + tmuxtest.Binary(t),
		"TMUX_MCP_TMUX_CONFIG=/dev/null",
		"TMUX_MCP_JOURNAL=" + filepath.Join(dir, "journal.db"),
		"TMUX_MCP_SAFETY=destructive",
	}, extra...))
	t.Cleanup(func() {
		// The host's tmux-mcp first (it would restart its tmux), then the
		// tmux server it started, which is the test's.
		h.sshd.Stop()
		h.killOrphans(t)
		cmd := exec.Command(tmuxtest.Binary(t), "-S", h.socket, "kill-server")
		cmd.Env = tmuxtest.Env()
		_ = cmd.Run()
	})
	return h
}

// killOrphans kills the host's tmux-mcp processes that outlived their
// ssh connection (a connection killed leaves its tmux-mcp to notice the
// end of its input and drain its calls): ours, told apart by the socket in
// their environment.
func (h *simHost) killOrphans(t *testing.T) {
	t.Helper()
	want := []byte("TMUX_MCP_SOCKET_PATH=" + h.socket + "\x00")
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var pids []int
	for _, d := range dirs {
		exe, err := os.Readlink(d + "/exe")
		if err != nil || filepath.Base(exe) != "tmux-mcp" {
			continue
		}
		env, err := os.ReadFile(d + "/environ")
		if err != nil || !bytes.Contains(env, want) {
			continue
		}
		if pid, err := strconv.Atoi(filepath.Base(d)); err == nil && pid > 0 {
			pids = append(pids, pid)
		}
	}
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	deadline := time.Now().Add(5 * time.Second)
	for _, pid := range pids {
		for time.Now().Before(deadline) {
			if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err != nil || bytes.Contains(b, []byte(") Z ")) {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// tmux runs a tmux command on the host's server directly.
func (h *simHost) tmux(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(tmuxtest.Binary(t), append([]string{"-S", h.socket}, args...)...)
	cmd.Env = tmuxtest.Env()
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// hostsFixture is a local tmux-mcp over stdio with two simulated hosts.
type hostsFixture struct {
	c      *client.Client
	p      *e2etest.Notifications // what c heard, on a fixture of startHostsFixture
	cmd    *exec.Cmd
	stderr *e2etest.Buffer
	a, b   *simHost
	local  *tmuxtest.Server
	ssh    []string
	env    []string
}

func startHostsFixture(t *testing.T) *hostsFixture {
	t.Helper()
	return startHostsFixtureEnv(t, nil, nil)
}

// startHostsFixtureEnv starts the fixture with more environment for the
// local tmux-mcp (local) and for the hosts' (remote; host.name=NAME is
// added to a remote OTEL_RESOURCE_ATTRIBUTES).
func startHostsFixtureEnv(t *testing.T, local, remote []string) *hostsFixture {
	t.Helper()
	bin := e2etest.Binary(t)
	envOf := func(name string) []string {
		var out []string
		for _, kv := range remote {
			if strings.HasPrefix(kv, "OTEL_RESOURCE_ATTRIBUTES=") {
				kv += ",host.name=" + name
			}
			out = append(out, kv)
		}
		return out
	}
	f := &hostsFixture{a: startSimHost(t, "alpha", bin, envOf("alpha")...), b: startSimHost(t, "beta", bin, envOf("beta")...)}
	f.ssh = sshdtest.ClientConfig(t, f.a.sshd, f.b.sshd)
	f.local = tmuxtest.New(t)
	env := e2etest.Env(f.local.Socket, append([]string{
		"TMUX_MCP_HOSTS=" + f.a.sshd.URL("alpha") + " " + f.b.sshd.URL("beta"),
		"TMUX_MCP_SSH=" + strings.Join(f.ssh, " "),
		"TMUX_MCP_SAFETY=destructive"}, local...)...)
	f.env = env
	// The 2025-11-25 client hears notifications (progress, updates).
	f.c, f.p, f.stderr = e2etest.StartLegacyStdio(t, bin, env)
	f.awaitUp(t, "alpha", 30*time.Second)
	f.awaitUp(t, "beta", 30*time.Second)
	return f
}

// call makes a tool call and returns its result, error results included.
func (f *hostsFixture) call(t *testing.T, timeout time.Duration, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var req mcp.CallToolRequest
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := f.c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("%s %v: %v\nstderr:\n%s", name, args, err, f.stderr)
	}
	return res
}

type hostHealth struct {
	Name      string          `json:"name"`
	State     string          `json:"state"`
	RTT       float64         `json:"rtt_ms"`
	Connects  int             `json:"connects"`
	Error     string          `json:"error"`
	Hint      string          `json:"hint"`
	RemoteVer string          `json:"remote_version"`
	Remote    json.RawMessage `json:"remote"`
}

// hosts returns server_health's hosts.
func (f *hostsFixture) hosts(t *testing.T) map[string]hostHealth {
	t.Helper()
	var h struct {
		Hosts []hostHealth `json:"hosts"`
	}
	e2etest.Decode(t, f.call(t, 10*time.Second, "server_health", nil), &h)
	out := map[string]hostHealth{}
	for _, x := range h.Hosts {
		out[x.Name] = x
	}
	return out
}

// awaitUp waits until the host is connected and returns its health.
func (f *hostsFixture) awaitUp(t *testing.T, name string, within time.Duration) hostHealth {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		h := f.hosts(t)[name]
		if h.State == "up" {
			return h
		}
		if time.Now().After(deadline) {
			t.Fatalf("host %s not up after %s: %+v\nstderr:\n%s", name, within, h, f.stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// session creates a session on host and returns its pane.
func (f *hostsFixture) session(t *testing.T, host, name string) string {
	t.Helper()
	res := f.call(t, 20*time.Second, "create_session", map[string]any{"host": host, "session_name": name})
	if res.IsError {
		t.Fatalf("create_session on %s: %v", host, res.Content)
	}
	var s struct {
		Pane string `json:"active_pane_id"`
		Host string `json:"host"`
	}
	e2etest.Decode(t, res, &s)
	if s.Pane == "" {
		t.Fatalf("create_session on %s: no pane in %s", host, e2etest.Structured(t, res))
	}
	if want := host; want != "local" && s.Host != want {
		t.Errorf("create_session on %s: host field %q", host, s.Host)
	}
	return s.Pane
}

// run runs a command in a pane and returns its output.
func (f *hostsFixture) run(t *testing.T, host, pane, command string) string {
	t.Helper()
	res := f.call(t, 30*time.Second, "run_command", map[string]any{"host": host, "pane_id": pane, "command": command, "timeout": 20})
	if res.IsError {
		t.Fatalf("run_command on %s: %v", host, res.Content)
	}
	var r struct {
		Output []string `json:"output"`
	}
	e2etest.Decode(t, res, &r)
	return strings.Join(r.Output, "\n")
}

// sessionsOn returns the sessions list_sessions reports on host.
func (f *hostsFixture) sessionsOn(t *testing.T, host string) []string {
	t.Helper()
	res := f.call(t, 20*time.Second, "list_sessions", map[string]any{"host": host})
	if res.IsError {
		t.Fatalf("list_sessions on %s: %v", host, res.Content)
	}
	return e2etest.SessionNames(t, res)
}

// TestHostsEndToEnd: one local tmux-mcp and two hosts over real sshd:
// sessions made, commands run and waits met on all three, each host's
// tmux its own, listings across hosts marked with their host, and
// server_health showing each connection and the remote supervisor.
func TestHostsEndToEnd(t *testing.T) {
	f := startHostsFixture(t)
	panes := map[string]string{}
	for _, host := range []string{"local", "alpha", "beta"} {
		panes[host] = f.session(t, host, "s-"+host)
		if got, want := strings.TrimSpace(f.run(t, host, panes[host], "echo out-$((6*7))-"+host)), "out-42-"+host; got != want {
			t.Errorf("run_command on %s: output %q, want %q", host, got, want)
		}
		res := f.call(t, 20*time.Second, "send_keys", map[string]any{"host": host, "pane_id": panes[host],
			"keys": "sleep 0.3; echo waited-" + host, "enter": true})
		if res.IsError {
			t.Fatalf("send_keys on %s: %v", host, res.Content)
		}
		res = f.call(t, 20*time.Second, "wait_for_text", map[string]any{"host": host, "pane_id": panes[host],
			"patterns": []string{"^waited-" + host}, "regex": true, "timeout": 10})
		if res.IsError || !strings.Contains(structuredText(t, res), `"found":true`) {
			t.Errorf("wait_for_text on %s: %s", host, structuredText(t, res))
		}
	}
	// Each host's tmux is its own: a session made on alpha is on alpha's
	// server and on no other.
	for _, h := range []*simHost{f.a, f.b} {
		got, err := h.tmux(t, "list-sessions", "-F", "#{session_name}")
		if err != nil {
			t.Fatalf("%s: tmux ls: %v: %s", h.name, err, got)
		}
		names := strings.Fields(got)
		if !slices.Contains(names, "s-"+h.name) || slices.Contains(names, "s-local") {
			t.Errorf("%s's tmux has sessions %v", h.name, names)
		}
	}
	// A listing across hosts.
	var all struct {
		Result []struct {
			Name string `json:"session_name"`
			Host string `json:"host"`
		} `json:"result"`
		Unreachable []any `json:"hosts_unreachable"`
	}
	e2etest.Decode(t, f.call(t, 20*time.Second, "list_sessions", map[string]any{"host": "all"}), &all)
	seen := map[string]string{}
	for _, s := range all.Result {
		seen[s.Name] = s.Host
	}
	for _, host := range []string{"local", "alpha", "beta"} {
		if seen["s-"+host] != host {
			t.Errorf("list_sessions host=all: s-%s on %q, want %q (all: %+v)", host, seen["s-"+host], host, all)
		}
	}
	if len(all.Unreachable) > 0 {
		t.Errorf("hosts_unreachable: %v", all.Unreachable)
	}
	// server_health: connected, a round trip, the remote supervisor's own.
	for name, h := range f.hosts(t) {
		var remote struct {
			State  string `json:"state"`
			Socket string `json:"socket"`
		}
		if err := json.Unmarshal(h.Remote, &remote); err != nil {
			t.Errorf("%s: remote health %s: %v", name, h.Remote, err)
		}
		want := map[string]string{"alpha": f.a.socket, "beta": f.b.socket}[name]
		if h.State != "up" || h.RTT <= 0 || remote.State != "up" || !strings.Contains(remote.Socket, want) {
			t.Errorf("%s: health %+v, remote %+v (want socket %s)", name, h, remote, want)
		}
	}
	// A host's resources, under tmux://hosts/NAME/.
	for host, pane := range map[string]string{"alpha": panes["alpha"], "beta": panes["beta"]} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		var rr mcp.ReadResourceRequest
		rr.Params.URI = "tmux://hosts/" + host + "/panes/" + strings.ReplaceAll(pane, "%", "%25") + "/content"
		res, err := f.c.ReadResource(ctx, rr)
		cancel()
		if err != nil || len(res.Contents) != 1 {
			t.Fatalf("read %s: %v %v", rr.Params.URI, res, err)
		}
		tc, ok := res.Contents[0].(mcp.TextResourceContents)
		if !ok || tc.URI != rr.Params.URI || !strings.Contains(tc.Text, "waited-"+host) {
			t.Errorf("read %s: %+v", rr.Params.URI, res.Contents[0])
		}
	}
	// A subscription to a host's pane: its output is an update here.
	t.Run("subscription through the hop", func(t *testing.T) {
		c, p, stderr := e2etest.StartLegacyStdio(t, e2etest.Binary(t), f.env)
		uri := "tmux://hosts/beta" + strings.TrimPrefix(e2etest.ContentURI(panes["beta"]), "tmux:/")
		if err := e2etest.RPC(c, string(mcp.MethodResourcesSubscribe), map[string]any{"uri": uri}); err != nil {
			t.Fatalf("subscribe %s: %v\nstderr:\n%s", uri, err, stderr)
		}
		i := p.Len()
		if out, err := f.b.tmux(t, "send-keys", "-t", panes["beta"], "echo pushed", "Enter"); err != nil {
			t.Fatalf("send-keys: %v %s", err, out)
		}
		p.Wait(t, i, 15*time.Second, "an update of beta's pane through the hop", e2etest.IsUpdate(uri))
		// A routed call reports progress here while the host works.
		i = p.Len()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		var req mcp.CallToolRequest
		req.Params.Name = "wait_for_text"
		req.Params.Arguments = map[string]any{"host": "beta", "pane_id": panes["beta"], "patterns": []string{"never printed"}, "timeout": 1}
		req.Params.Meta = &mcp.Meta{ProgressToken: "hop-1"}
		if res, err := c.CallTool(ctx, req); err != nil || res.IsError {
			t.Fatalf("wait_for_text on beta: %v %v", res, err)
		}
		p.Wait(t, i, 5*time.Second, "progress of the routed call", func(r e2etest.Received) bool {
			return r.Method == string(mcp.MethodNotificationProgress) && r.Params["progressToken"] == "hop-1" &&
				strings.Contains(r.Str("message"), "on host beta")
		})
		missing := "tmux://hosts/beta/panes/%25999/content"
		if err := e2etest.RPC(c, string(mcp.MethodResourcesSubscribe), map[string]any{"uri": missing}); err == nil || !strings.Contains(err.Error(), "not found") {
			t.Errorf("subscribe to a pane beta does not have: %v", err)
		}
	})
	// Bad host names are refused with the names there are.
	res := f.call(t, 10*time.Second, "list_sessions", map[string]any{"host": "gamma"})
	if !res.IsError || !strings.Contains(e2etest.Text(res), "alpha") {
		t.Errorf("host gamma: %v", res.Content)
	}
}

// structuredText is a result's structured content as JSON.
func structuredText(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	return string(e2etest.Structured(t, res))
}

// pidsOf returns the PIDs among pids whose executable is bin.
func pidsOf(pids []int, bin string) []int {
	var out []int
	for _, pid := range pids {
		exe, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe")
		if err == nil && exe == bin {
			out = append(out, pid)
		}
	}
	return out
}

// awaitReconnect waits until the host is up on a connection made after
// the one counted in before.
func (f *hostsFixture) awaitReconnect(t *testing.T, name string, before int, within time.Duration) hostHealth {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		h := f.hosts(t)[name]
		if h.State == "up" && h.Connects > before {
			return h
		}
		if time.Now().After(deadline) {
			t.Fatalf("host %s did not reconnect within %s: %+v", name, within, h)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// awaitState waits until server_health reports the host in state.
func (f *hostsFixture) awaitState(t *testing.T, name, state string, within time.Duration) hostHealth {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		h := f.hosts(t)[name]
		if h.State == state {
			return h
		}
		if time.Now().After(deadline) {
			t.Fatalf("host %s not %s after %s: %+v", name, state, within, h)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// awaitPane waits until the host's pane shows text.
func (h *simHost) awaitPane(t *testing.T, pane, text string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		out, _ := h.tmux(t, "capture-pane", "-p", "-t", pane)
		if strings.Contains(out, text) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: pane %s never showed %q: %s", h.name, pane, text, out)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestHostsFaults injects the faults of a network of machines: the ssh
// connection killed during a call, sshd stopped and started, the remote
// tmux killed with SIGKILL, the remote tmux-mcp killed. No call hangs, no
// session is lost, other hosts carry on, and each host comes back.
func TestHostsFaults(t *testing.T) {
	f := startHostsFixture(t)
	bin := e2etest.Binary(t)
	pa := f.session(t, "alpha", "s-alpha")
	pb := f.session(t, "beta", "s-beta")
	f.session(t, "local", "s-local")

	t.Run("connection killed during a call", func(t *testing.T) {
		// A subscription to alpha's pane, from a second client of a second
		// local tmux-mcp: it must outlive the connection.
		sc, sp, serr := e2etest.StartLegacyStdio(t, bin, f.env)
		suri := "tmux://hosts/alpha" + strings.TrimPrefix(e2etest.ContentURI(pa), "tmux:/")
		if err := e2etest.RPC(sc, string(mcp.MethodResourcesSubscribe), map[string]any{"uri": suri}); err != nil {
			t.Fatalf("subscribe %s: %v", suri, err)
		}
		done := make(chan *mcp.CallToolResult, 1)
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			var req mcp.CallToolRequest
			req.Params.Name = "run_command"
			req.Params.Arguments = map[string]any{"host": "alpha", "pane_id": pa, "command": "sleep 30; echo late", "timeout": 40}
			res, err := f.c.CallTool(ctx, req)
			if err != nil {
				res = mcp.NewToolResultError("transport: " + err.Error())
			}
			done <- res
		}()
		f.a.awaitPane(t, pa, "sleep 30")
		before := f.hosts(t)["alpha"].Connects
		killed := time.Now()
		if n := f.a.sshd.KillSessions(); n == 0 {
			t.Fatal("no ssh connection to kill")
		}
		select {
		case res := <-done:
			if !res.IsError || !strings.Contains(e2etest.Text(res), "host_down") {
				t.Errorf("the call through the killed connection: %v", res.Content)
			}
			t.Logf("the call ended %s after the connection was killed: %s", time.Since(killed).Round(time.Millisecond), e2etest.Text(res))
		case <-time.After(15 * time.Second):
			t.Fatal("the call through the killed connection still hangs after 15s")
		}
		f.awaitReconnect(t, "alpha", before, 30*time.Second)
		t.Logf("alpha reconnected %s after the kill", time.Since(killed).Round(time.Millisecond))
		if got := f.sessionsOn(t, "alpha"); !slices.Contains(got, "s-alpha") {
			t.Errorf("alpha's sessions after the reconnection: %v", got)
		}
		// The subscription was renewed on the new connection (the second
		// tmux-mcp's own link to alpha was killed too, and came back).
		deadline := time.Now().Add(30 * time.Second)
		for {
			i := sp.Len()
			if out, err := f.a.tmux(t, "send-keys", "-t", pa, "echo after-"+strconv.Itoa(i), "Enter"); err != nil {
				t.Fatalf("send-keys: %v %s", err, out)
			}
			if waitUpdate(sp, i, 2*time.Second, suri) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no update of %s after the reconnection; the subscriber's tmux-mcp logged:\n%s", suri, serr)
			}
		}
		// That one may have been the update a reconnection sends itself;
		// this one can come only from the renewed remote subscription.
		i := sp.Len()
		if out, err := f.a.tmux(t, "send-keys", "-t", pa, "echo renewed", "Enter"); err != nil {
			t.Fatalf("send-keys: %v %s", err, out)
		}
		sp.Wait(t, i, 10*time.Second, "an update from the renewed subscription", e2etest.IsUpdate(suri))
	})

	t.Run("sshd stopped and started", func(t *testing.T) {
		f.a.sshd.Stop()
		f.awaitState(t, "alpha", "down", 15*time.Second)
		start := time.Now()
		res := f.call(t, 10*time.Second, "list_sessions", map[string]any{"host": "alpha"})
		if took := time.Since(start); !res.IsError || !strings.Contains(e2etest.Text(res), "host_down") || took > time.Second {
			t.Errorf("a call to a host that is down took %s: %v", took, res.Content)
		}
		// The others are not affected.
		for _, host := range []string{"local", "beta"} {
			if got := f.sessionsOn(t, host); !slices.Contains(got, "s-"+host) {
				t.Errorf("%s while alpha is down: %v", host, got)
			}
		}
		var all struct {
			Unreachable []struct {
				Host string `json:"host"`
			} `json:"hosts_unreachable"`
		}
		e2etest.Decode(t, f.call(t, 20*time.Second, "list_sessions", map[string]any{"host": "all"}), &all)
		if len(all.Unreachable) != 1 || all.Unreachable[0].Host != "alpha" {
			t.Errorf("host=all while alpha is down: unreachable %+v", all.Unreachable)
		}
		f.a.sshd.StartDaemon()
		restarted := time.Now()
		f.awaitUp(t, "alpha", 30*time.Second)
		t.Logf("alpha up %s after sshd started again", time.Since(restarted).Round(time.Millisecond))
		if got := f.sessionsOn(t, "alpha"); !slices.Contains(got, "s-alpha") {
			t.Errorf("alpha's sessions after sshd came back: %v", got)
		}
	})

	t.Run("remote tmux killed", func(t *testing.T) {
		pid, err := f.b.tmux(t, "display-message", "-p", "#{pid}")
		if err != nil {
			t.Fatalf("beta's tmux pid: %v %s", err, pid)
		}
		n, _ := strconv.Atoi(pid)
		if n <= 0 {
			t.Fatalf("beta's tmux pid %q", pid)
		}
		if err := syscall.Kill(n, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(30 * time.Second)
		for {
			var h struct {
				Restarts int    `json:"restarts"`
				State    string `json:"state"`
			}
			res := f.call(t, 10*time.Second, "server_health", map[string]any{"host": "beta"})
			e2etest.Decode(t, res, &h)
			if h.Restarts >= 1 && h.State == "up" {
				if got := f.sessionsOn(t, "beta"); slices.Contains(got, "s-beta") {
					break
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("beta not restored through the hop: %s", structuredText(t, res))
			}
			time.Sleep(50 * time.Millisecond)
		}
	})

	t.Run("remote tmux-mcp killed", func(t *testing.T) {
		pb = f.paneOf(t, "beta", "s-beta")
		wc, wp, wstderr := f.c, f.p, f.stderr
		var started struct {
			JobID string `json:"job_id"`
		}
		res := e2etest.CallTool(t, wc, "run_command", map[string]any{"host": "beta", "pane_id": pb,
			"command": "sleep 2; echo job-done-beta", "background": true})
		e2etest.Decode(t, res, &started)
		// A wait for the job's end, through the hop, while beta's
		// tmux-mcp is killed: a read, so it waits for the host to come
		// back and asks the new tmux-mcp, which finds the job in its
		// journal.
		i := wp.Len()
		waited := make(chan *mcp.CallToolResult, 1)
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			var req mcp.CallToolRequest
			req.Params.Name = "get_job"
			req.Params.Arguments = map[string]any{"host": "beta", "job_id": started.JobID, "timeout": 30}
			req.Params.Meta = &mcp.Meta{ProgressToken: "job-wait"}
			res, err := wc.CallTool(ctx, req)
			if err != nil {
				res = mcp.NewToolResultError("transport: " + err.Error())
			}
			waited <- res
		}()
		wp.Wait(t, i, 15*time.Second, "the wait on its way to beta", func(r e2etest.Received) bool {
			return r.Method == string(mcp.MethodNotificationProgress) && r.Params["progressToken"] == "job-wait"
		})
		pids := pidsOf(f.b.sshd.SessionProcesses(), bin)
		if len(pids) == 0 {
			t.Fatal("no tmux-mcp runs on beta")
		}
		before := f.hosts(t)["beta"].Connects
		// The progress report said the call is on its way to beta; the
		// kill comes now, while it waits there.
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		f.awaitReconnect(t, "beta", before, 30*time.Second)
		var j struct {
			State  string   `json:"state"`
			Exit   *int     `json:"exit_status"`
			Output []string `json:"output"`
		}
		select {
		case res = <-waited:
		case <-time.After(45 * time.Second):
			t.Fatal("the get_job wait through the killed tmux-mcp did not return")
		}
		if res.IsError {
			t.Fatalf("get_job on beta across its tmux-mcp's death: %v", res.Content)
		}
		if !strings.Contains(wstderr.String(), "connection lost during a read") {
			t.Errorf("the wait was not made again after the connection was lost; log:\n%s", wstderr)
		}
		e2etest.Decode(t, res, &j)
		if j.State != "exited" || j.Exit == nil || *j.Exit != 0 || !strings.Contains(strings.Join(j.Output, "\n"), "job-done-beta") {
			t.Errorf("the job after the remote tmux-mcp was killed: %s", structuredText(t, res))
		}
	})
}

// paneOf returns a session's active pane on host.
func (f *hostsFixture) paneOf(t *testing.T, host, session string) string {
	t.Helper()
	res := f.call(t, 20*time.Second, "list_sessions", map[string]any{"host": host})
	var l struct {
		Result []struct {
			Name string `json:"session_name"`
			Pane string `json:"active_pane_id"`
		} `json:"result"`
	}
	e2etest.Decode(t, res, &l)
	for _, s := range l.Result {
		if s.Name == session {
			return s.Pane
		}
	}
	t.Fatalf("no session %s on %s", session, host)
	return ""
}

// TestHostsInstall: a host without tmux-mcp is reported down with what to
// install; with --host-install the local binary is copied there (checked
// by SHA-256) and the host comes up running it.
func TestHostsInstall(t *testing.T) {
	bin := e2etest.Binary(t)
	h := startSimHostPath(t, "bare", "/usr/local/bin:/usr/bin:/bin")
	start := oneHost(t, bin, h, "bare")
	f := start(false)
	down := f.awaitState(t, "bare", "down", 30*time.Second)
	if !strings.Contains(down.Error, "not installed") || !strings.Contains(down.Hint, "go install github.com/tmux-mcp/tmux-mcp/cmd/tmux-mcp@") ||
		!strings.Contains(down.Hint, "--host-install") {
		t.Errorf("a host without tmux-mcp: %+v", down)
	}
	res := f.call(t, 10*time.Second, "list_sessions", map[string]any{"host": "bare"})
	if !res.IsError || !strings.Contains(e2etest.Text(res), "--host-install") {
		t.Errorf("a call to a host without tmux-mcp: %v", res.Content)
	}
	f.c.Close()

	f = start(true)
	up := f.awaitUp(t, "bare", 60*time.Second)
	if up.RemoteVer == "" {
		t.Errorf("installed host: %+v", up)
	}
	h.checkInstalled(t, bin)
	pane := f.session(t, "bare", "s-bare")
	if got := strings.TrimSpace(f.run(t, "bare", pane, "echo installed-$((1+1))")); got != "installed-2" {
		t.Errorf("run_command on the installed host: %q", got)
	}
}

// oneHost returns what starts a local tmux-mcp over stdio with host h as
// name, with --host-install or without; each is closed when the test ends.
func oneHost(t *testing.T, bin string, h *simHost, name string) func(install bool) *hostsFixture {
	t.Helper()
	ssh := sshdtest.ClientConfig(t, h.sshd)
	local := tmuxtest.New(t)
	return func(install bool) *hostsFixture {
		env := e2etest.Env(local.Socket, "TMUX_MCP_HOSTS="+h.sshd.URL(name), "TMUX_MCP_SSH="+strings.Join(ssh, " "),
			"TMUX_MCP_HOST_INSTALL="+strconv.FormatBool(install))
		f := &hostsFixture{}
		f.c, f.cmd, f.stderr = e2etest.StartStdio(t, bin, env)
		t.Cleanup(func() { f.c.Close() })
		return f
	}
}

// checkInstalled checks that the host's install cache holds bin, byte for
// byte (by SHA-256).
func (h *simHost) checkInstalled(t *testing.T, bin string) {
	t.Helper()
	copied := filepath.Join(h.dir, "home", ".cache", "tmux-mcp", "bin", "tmux-mcp")
	if got, want := fileSum(t, copied), fileSum(t, bin); got != want {
		t.Errorf("the copy's sha256 %s, this binary's %s", got, want)
	}
}

func fileSum(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", sha256.Sum256(b))
}

// waitUpdate reports whether an update of uri came after the i-th
// notification within d.
func waitUpdate(p *e2etest.Notifications, i int, d time.Duration, uri string) bool {
	deadline := time.After(d)
	for {
		for _, r := range p.Since(i) {
			if e2etest.IsUpdate(uri)(r) {
				return true
			}
		}
		select {
		case <-p.Arrived():
		case <-deadline:
			return false
		}
	}
}

// TestHostsInstallReplacesOtherVersion: a host whose PATH has another
// version of tmux-mcp works without --host-install (server_health says the
// versions differ); with it, this binary is copied there and used.
func TestHostsInstallReplacesOtherVersion(t *testing.T) {
	bin := e2etest.Binary(t)
	oldDir := t.TempDir()
	old := filepath.Join(oldDir, "tmux-mcp")
	if out, err := exec.Command("go", "build", "-ldflags", "-X main.releaseVersion=0.0.1-old", "-o", old, e2etest.Package).CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	h := startSimHostPath(t, "older", oldDir+":/usr/local/bin:/usr/bin:/bin")
	start := oneHost(t, bin, h, "older")
	f := start(false)
	up := f.awaitUp(t, "older", 30*time.Second)
	if up.RemoteVer != "0.0.1-old" || !strings.Contains(up.Hint, "0.0.1-old") || !strings.Contains(up.Hint, "--host-install") {
		t.Errorf("a host with another version, without --host-install: %+v", up)
	}
	f.c.Close()

	f = start(true)
	up = f.awaitUp(t, "older", 60*time.Second)
	if up.RemoteVer == "0.0.1-old" || up.RemoteVer == "" || up.Hint != "" {
		t.Errorf("after --host-install: %+v", up)
	}
	h.checkInstalled(t, bin)
}
