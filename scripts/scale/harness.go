package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tmux-mcp/tmux-mcp/scripts/internal/loadtest"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// harness owns one run's private directory, its tmux server (a socket
// in that directory, never the user's), the tmux-mcp process serving
// HTTP on it, and the MCP clients.
type harness struct {
	cfg    config
	t0     time.Time
	dir    string
	sock   string
	x      *tmux.Exec // harness-side tmux commands: set-up and ground truth
	mcp    *exec.Cmd
	mcpRef loadtest.Ref
	done   chan struct{}
	stderr *loadtest.SyncBuffer
	url    string
	token  string
	admin  *mcpClient
	agents []*agent
	server loadtest.Ref // the tmux server
}

// start makes the private directory, starts tmux-mcp over HTTP and an
// admin client, and has tmux-mcp start the tmux server.
func start(ctx context.Context, cfg config) (*harness, error) {
	// Unix socket paths are short (108 bytes): a directory under /tmp.
	dir, err := os.MkdirTemp("", "scale")
	if err != nil {
		return nil, fmt.Errorf("scale: %w", err)
	}
	if d, err := filepath.EvalSymlinks(dir); err == nil {
		dir = d
	}
	h := &harness{cfg: cfg, t0: time.Now(), dir: dir, sock: filepath.Join(dir, "main"), stderr: &loadtest.SyncBuffer{}, done: make(chan struct{})}
	h.x = &tmux.Exec{Binary: cfg.tmux, Socket: tmux.Socket{Path: h.sock}, Config: "/dev/null"}
	// Harness commands never start a server: tmux-mcp owns it.
	h.x.SetNoStart(true)
	tok := make([]byte, 24)
	if _, err := rand.Read(tok); err != nil {
		return h, fmt.Errorf("scale: token: %w", err)
	}
	h.token = hex.EncodeToString(tok)
	env := slices.DeleteFunc((&tmux.Exec{}).Environ(), func(kv string) bool { return strings.HasPrefix(kv, "OTEL_") })
	// SHELL=/bin/sh: the server takes its default-shell from it, so panes
	// start a shell without start-up files, alike on every machine.
	env = append(env, "SHELL=/bin/sh", "TMUX_TMPDIR="+dir, "XDG_RUNTIME_DIR="+dir, "XDG_STATE_HOME="+dir,
		"TMUX_MCP_SOCKET_PATH="+h.sock, "TMUX_MCP_TMUX_CONFIG=/dev/null", "TMUX_MCP_JOURNAL="+filepath.Join(dir, "journal.db"),
		"TMUX_MCP_HTTP_TOKEN="+h.token)
	if cfg.tmux != "" {
		env = append(env, "TMUX_MCP_TMUX_BIN="+cfg.tmux)
	}
	// The fleet's settings, as its operator would give them: an HTTP
	// session per agent, and a server rate (tmux commands a second) of
	// fleetCommands per call at the largest fleet's call rate, never below
	// tmux-mcp's default. -mcp-args come last and win.
	args := append([]string{"serve", "--http", "127.0.0.1:0",
		"--http-max-sessions", strconv.Itoa(cfg.maxAgents() + 8),
		"--server-rate", strconv.FormatFloat(cfg.serverRate(), 'f', 0, 64)}, cfg.mcpArgs...)
	h.mcp = exec.Command(cfg.bin, args...)
	h.mcp.Env = env
	h.mcp.Stderr = h.stderr
	if err := h.mcp.Start(); err != nil {
		return h, fmt.Errorf("scale: start tmux-mcp: %w", err)
	}
	h.mcpRef = loadtest.RefOf(h.mcp.Process.Pid)
	go func() { h.mcp.Wait(); close(h.done) }() //nolint:errcheck // its exit is reported by cleanup
	deadline := time.Now().Add(20 * time.Second)
	for h.url = ""; h.url == ""; {
		if h.url = listeningURL(h.stderr.String()); h.url != "" {
			break
		}
		select {
		case <-h.done:
			return h, fmt.Errorf("scale: tmux-mcp exited before listening: %s", h.stderr.Tail(800))
		case <-ctx.Done():
			return h, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return h, fmt.Errorf("scale: tmux-mcp not listening after 20s: %s", h.stderr.Tail(800))
		}
	}
	if h.admin, err = dial(ctx, h.url, h.token, "scale-admin"); err != nil {
		return h, err
	}
	// The first session starts the server (owned by tmux-mcp, tmux -D).
	if r := h.admin.tool(ctx, "create_session", map[string]any{"session_name": sessionName(0)}); r.class != "" {
		return h, fmt.Errorf("scale: create_session: %s", loadtest.FirstLine(r.text))
	}
	hl, err := h.health(ctx)
	if err != nil {
		return h, err
	}
	if hl.PID == 0 {
		return h, errors.New("scale: tmux-mcp reports no server PID")
	}
	h.server = loadtest.RefOf(hl.PID)
	if out, err := h.tmux(ctx, "display-message", "-p", "#{pid}"); err != nil || strings.TrimSpace(out) != strconv.Itoa(hl.PID) {
		return h, fmt.Errorf("scale: server PID: tmux says %q (%v), tmux-mcp %d", out, err, hl.PID)
	}
	return h, nil
}

var listeningRE = regexp.MustCompile(`msg=listening url=(\S+)`)

// listeningURL finds the URL tmux-mcp logs when it listens.
func listeningURL(stderr string) string {
	if m := listeningRE.FindStringSubmatch(stderr); m != nil {
		return m[1]
	}
	return ""
}

// sessionName is the name of the i-th session.
func sessionName(i int) string { return fmt.Sprintf("s%04d", i) }

// since is seconds from the run's start.
func (h *harness) since() float64 { return time.Since(h.t0).Seconds() }

// tmux runs tmux commands (several in one client) on the run's server.
func (h *harness) tmux(ctx context.Context, cmds ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := h.x.Run(ctx, cmds...)
	return string(out), err
}

// batchSize is how many commands one tmux client carries. tmux runs a
// client's commands in one go, and a new-session or new-window forks a
// shell: 32 of them on a loaded machine kept the server from answering
// tmux-mcp for long enough that it declared the server hung and killed
// it (docs/scale.md). Four at a time let the server answer in between.
const batchSize = 4

// batch runs cmds, batchSize per tmux client, and returns the output
// lines.
func (h *harness) batch(ctx context.Context, cmds [][]string) ([]string, error) {
	var lines []string
	for len(cmds) > 0 {
		n := min(len(cmds), batchSize)
		cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		out, err := h.x.RunSequence(cctx, cmds[:n]...)
		cancel()
		if err != nil {
			return lines, fmt.Errorf("scale: %s: %w", cmds[0][0], err)
		}
		lines = append(lines, strings.Fields(string(out))...)
		cmds = cmds[n:]
	}
	return lines, nil
}

// health reads server_health through the admin client (no tmux call).
func (h *harness) health(ctx context.Context) (loadtest.Health, error) {
	var hl loadtest.Health
	r := h.admin.tool(ctx, "server_health", map[string]any{})
	if r.class != "" {
		return hl, fmt.Errorf("scale: server_health: %s", loadtest.FirstLine(r.text))
	}
	b, _ := json.Marshal(r.fields)
	if err := json.Unmarshal(b, &hl); err != nil {
		return hl, fmt.Errorf("scale: server_health: %w", err)
	}
	return hl, nil
}

// snapshot reads both processes and tmux-mcp's counters.
func (h *harness) snapshot(ctx context.Context) (snapshot, error) {
	hl, err := h.health(ctx)
	// tmux-mcp's CPU time counts every thread; the server has one.
	ms, _ := loadtest.StatOf(h.mcpRef.PID)
	ts, _ := loadtest.StatOf(h.server.PID)
	s := snapshot{at: h.since(), health: hl,
		mcpCPUms: loadtest.ProcessCPUms(h.mcpRef.PID), mcpRSS: ms.RSS,
		tmuxCPUms: ts.CPUms, tmuxRSS: ts.RSS, tmuxFDs: ts.FDs}
	return s, err
}

// ensureSessions creates sessions up to n, each with pps panes.
func (h *harness) ensureSessions(ctx context.Context, n, pps int) error {
	out, err := h.tmux(ctx, "list-sessions", "-F", "#{session_name} #{window_panes}")
	if err != nil {
		return fmt.Errorf("scale: list-sessions: %w", err)
	}
	have := map[string]int{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if f := strings.Fields(l); len(f) == 2 {
			have[f[0]], _ = strconv.Atoi(f[1])
		}
	}
	var cmds [][]string
	for i := range n {
		name := sessionName(i)
		panes, ok := have[name]
		if !ok {
			cmds = append(cmds, []string{"new-session", "-d", "-s", tmux.Literal(name), "-x", "80", "-y", "24"})
			panes = 1
		}
		for ; panes < pps; panes++ {
			cmds = append(cmds, []string{"split-window", "-d", "-t", tmux.Literal("=" + name + ":0"), "-l", "3"},
				[]string{"select-layout", "-t", tmux.Literal("=" + name + ":0"), "tiled"})
		}
	}
	_, err = h.batch(ctx, cmds)
	return err
}

// windows creates one window per agent named prefix+index, spread over
// the first sessions sessions, running command ("" for the shell), and
// returns their pane IDs. Windows of that prefix from an earlier level
// are killed first.
func (h *harness) windows(ctx context.Context, prefix string, agents, sessions int, command string) ([]string, error) {
	if err := h.killWindows(ctx, prefix); err != nil {
		return nil, err
	}
	var cmds [][]string
	for a := range agents {
		s := sessionName(a * sessions / agents)
		c := []string{"new-window", "-d", "-P", "-F", "#{pane_id}", "-t", tmux.Literal("=" + s + ":"), "-n", tmux.Literal(fmt.Sprintf("%s%d", prefix, a))}
		if command != "" {
			c = append(c, tmux.Literal(command))
		}
		cmds = append(cmds, c)
	}
	ids, err := h.batch(ctx, cmds)
	if err == nil && len(ids) != agents {
		err = fmt.Errorf("scale: %d %s windows, want %d", len(ids), prefix, agents)
	}
	return ids, err
}

// killWindows kills every window whose name starts with prefix.
func (h *harness) killWindows(ctx context.Context, prefix string) error {
	// -t: tmux resolves a current session even for -a, and once failed
	// to find one ("no current target"); the first session always exists.
	out, err := h.tmux(ctx, "list-windows", "-a", "-t", tmux.Literal("="+sessionName(0)), "-F", "#{window_id} #{window_name}")
	if err != nil {
		return fmt.Errorf("scale: list-windows: %w", err)
	}
	var cmds [][]string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(l)
		if len(f) == 2 && strings.HasPrefix(f[1], prefix) && isNumber(f[1][len(prefix):]) {
			cmds = append(cmds, []string{"kill-window", "-t", f[0]})
		}
	}
	_, err = h.batch(ctx, cmds)
	return err
}

func isNumber(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil
}

// paneCount is how many panes the server has.
func (h *harness) paneCount(ctx context.Context) int {
	out, err := h.tmux(ctx, "list-panes", "-a", "-F", "#{pane_id}")
	if err != nil {
		return 0
	}
	return len(strings.Fields(out))
}

// dialAgents opens n agent sessions.
func (h *harness) dialAgents(ctx context.Context, n int) error {
	for len(h.agents) < n {
		id := len(h.agents)
		c, err := dial(ctx, h.url, h.token, fmt.Sprintf("scale-agent-%d", id))
		if err != nil {
			return err
		}
		h.agents = append(h.agents, &agent{id: id, c: c})
	}
	return nil
}

// cleanup closes the clients, ends tmux-mcp (SIGTERM, by PID), kills the
// server by its socket, and returns what it had to SIGKILL: processes
// that outlived the run.
func (h *harness) cleanup() []string {
	for _, a := range h.agents {
		a.c.close()
	}
	if h.admin != nil {
		h.admin.close()
	}
	if h.mcp != nil && h.mcp.Process != nil {
		if h.mcpRef.Same() {
			h.mcp.Process.Signal(syscall.SIGTERM) //nolint:errcheck // it may have exited
		}
		select {
		case <-h.done:
		case <-time.After(15 * time.Second):
			h.mcpRef.Signal(syscall.SIGKILL)
			<-h.done
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := os.Stat(h.sock); err == nil {
		h.x.Run(ctx, "kill-server") //nolint:errcheck // it may be gone
	}
	// The server and the panes' shells need a moment to exit: hundreds
	// of shells on a loaded machine take several seconds.
	leaked := loadtest.Reap(h.dir, []loadtest.Ref{h.server}, 30*time.Second)
	if !h.cfg.keep {
		os.RemoveAll(h.dir)
	}
	return leaked
}
