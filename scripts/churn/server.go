package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tmux-mcp/tmux-mcp/scripts/internal/loadtest"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// world is one run's private tmux world: a directory of its own under
// /tmp (short: socket paths hold 108 bytes), the one tmux server on a
// socket in it, and the environment every process of the run gets.
type world struct {
	t0   time.Time
	dir  string
	sock string
	tmux string // the tmux binary
	env  []string
	// x runs the harness's own queries (the server's PID) through
	// tmux-mcp's client code; it never starts a server (-N).
	x *tmux.Exec

	mu      sync.Mutex
	started []loadtest.Ref // every process the run started or whose server it owns
}

func newWorld(tmuxBin string, t0 time.Time) (*world, error) {
	dir, err := os.MkdirTemp("", "churn")
	if err != nil {
		return nil, fmt.Errorf("churn: %w", err)
	}
	if d, err := filepath.EvalSymlinks(dir); err == nil {
		dir = d
	}
	w := &world{t0: t0, dir: dir, sock: filepath.Join(dir, "s"), tmux: tmuxBin}
	// Every process of the run: no TMUX or TMUX_PANE (never the caller's
	// server), no OTEL_ export, no ENV (sh would read it), SHELL=/bin/sh
	// (the server's default-shell: panes start a plain sh without
	// start-up files), and every directory a tmux or tmux-mcp could
	// write to inside the private directory.
	for _, kv := range (&tmux.Exec{}).Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case k == "ENV", k == "SHELL", k == "TMUX_TMPDIR", k == "XDG_STATE_HOME", k == "XDG_RUNTIME_DIR",
			strings.HasPrefix(k, "OTEL_"), strings.HasPrefix(k, "TMUX_MCP_"):
			continue
		}
		w.env = append(w.env, kv)
	}
	w.env = append(w.env, "SHELL=/bin/sh", "TMUX_TMPDIR="+dir, "XDG_STATE_HOME="+filepath.Join(dir, "state"),
		"XDG_RUNTIME_DIR="+dir)
	w.x = &tmux.Exec{Binary: tmuxBin, Socket: tmux.Socket{Path: w.sock}, Config: "/dev/null"}
	w.x.SetNoStart(true)
	return w, nil
}

// since is seconds from the run's start to t.
func (w *world) since(t time.Time) float64 { return t.Sub(w.t0).Seconds() }

func (w *world) track(r loadtest.Ref) {
	if r.PID <= 0 {
		return
	}
	w.mu.Lock()
	w.started = append(w.started, r)
	w.mu.Unlock()
}

// tmuxArgv is the tmux binary's argv for one command on the run's
// server, as a person types it (no -N: new-session may start a server).
func (w *world) tmuxArgv(args ...string) []string {
	return append([]string{w.tmux, "-u", "-S", w.sock, "-f", "/dev/null"}, args...)
}

// tmuxCmd is an exec.Cmd of the tmux binary with the run's environment,
// killed when ctx ends.
func (w *world) tmuxCmd(ctx context.Context, args ...string) *exec.Cmd {
	argv := w.tmuxArgv(args...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = w.env
	cmd.Dir = w.dir
	// A client that started a server forks it with our pipes: bound the
	// wait for them to close.
	cmd.WaitDelay = 500 * time.Millisecond
	return cmd
}

// runTmux runs one command with the tmux binary and returns its stdout,
// or an error carrying the first line of its stderr.
func (w *world) runTmux(ctx context.Context, d time.Duration, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	cmd := w.tmuxCmd(ctx, args...)
	var stderr loadtest.SyncBuffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil && !(errors.Is(err, exec.ErrWaitDelay) && cmd.ProcessState != nil && cmd.ProcessState.Success()) {
		msg := strings.TrimSpace(loadtest.FirstLine(stderr.String()))
		if msg == "" {
			msg = err.Error()
		}
		if ctx.Err() != nil {
			msg = "timed out after " + d.String()
		}
		return string(out), errors.New(msg)
	}
	return string(out), nil
}

// startServer starts the run's tmux server the way a person does (the
// tmux binary, new-session -d) with a session named home that nobody
// kills, and returns its PID. The server daemonizes: with the harness a
// child subreaper it is the harness's child, and its exit status can be
// read (diedHow).
func (w *world) startServer(ctx context.Context) (int, error) {
	if _, err := w.runTmux(ctx, 15*time.Second, "new-session", "-d", "-s", "home", "-x", "120", "-y", "40"); err != nil {
		return 0, fmt.Errorf("churn: start tmux server: %w", err)
	}
	pid, err := w.serverPID(ctx)
	if err != nil {
		return 0, fmt.Errorf("churn: server PID: %w", err)
	}
	w.track(loadtest.RefOf(pid))
	return pid, nil
}

// serverPID asks the server on the socket for its PID, never starting
// one.
func (w *world) serverPID(ctx context.Context) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	out, err := w.x.Run(ctx, "display-message", "-p", "#{pid}")
	if err != nil {
		return 0, err
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("bad pid %q", out)
	}
	return pid, nil
}

// version is `tmux -V` of the binary.
func (w *world) version() string {
	out, err := exec.Command(w.tmux, "-V").Output()
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	return strings.TrimSpace(string(out))
}

// cleanup ends the server on the run's socket (kill-server, then
// SIGKILL to the PIDs the run saw), reaps the server's zombie, and kills
// whatever else still names the private directory (the panes' shells
// carry TMUX=<dir>/s). It returns what was still alive after the orderly
// part: leaks. keep leaves the directory.
func (w *world) cleanup(keep bool) []string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if pid, err := w.serverPID(ctx); err == nil {
		w.track(loadtest.RefOf(pid))
	}
	w.x.Run(ctx, "kill-server") //nolint:errcheck // it may be gone
	w.mu.Lock()
	started := append([]loadtest.Ref(nil), w.started...)
	w.mu.Unlock()
	for _, p := range started {
		p.Signal(syscall.SIGCONT) // a stopped process cannot exit
	}
	leaked := loadtest.Reap(w.dir, started, 5*time.Second)
	for _, p := range started {
		reapChild(p.PID)
	}
	if !keep {
		os.RemoveAll(w.dir)
	}
	return leaked
}
