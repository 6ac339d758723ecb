package diagnostics

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor/tmux"
)

// answer is what a live server told the probe. It holds numbers, option
// values and client PIDs only: never pane contents, titles or commands.
type answer struct {
	PID        int
	Version    string
	StartTime  time.Time
	SocketPath string
	// Server and global options that make a server exit on its own.
	ExitEmpty, ExitUnattached, DestroyUnattached, RemainOnExit string
	HistoryLimit                                               int
	Panes                                                      []paneFacts
	Clients                                                    []clientFacts
	Took                                                       time.Duration
}

type paneFacts struct {
	HistoryBytes uint64
	HistorySize  int
	HistoryLimit int
	RemainOnExit string
	Dead         bool
	Session      string // session name, to leave tmux-mcp's hidden session out
}

type clientFacts struct {
	PID     int
	Control bool
}

// The probe's formats. A tab separates fields; every line starts with its
// kind so that the three commands' output can be told apart.
const (
	probeServerFormat = "S\t#{pid}\t#{version}\t#{start_time}\t#{socket_path}\t#{exit-empty}\t#{exit-unattached}" +
		"\t#{destroy-unattached}\t#{remain-on-exit}\t#{history-limit}"
	probeClientFormat = "C\t#{client_pid}\t#{client_control_mode}"
	probePaneFormat   = "P\t#{history_bytes}\t#{history_size}\t#{history_limit}\t#{remain-on-exit}\t#{pane_dead}\t#{session_name}"
)

// probeCommands are one tmux client that asks everything diagnose wants from a
// live server: one connection (three server fds for a moment), not three.
// list-panes comes last: on a server without sessions it fails ("no
// current target") after the others have answered. None of these commands
// can start a server.
var probeCommands = [][]string{
	{"display-message", "-p", probeServerFormat},
	{"list-clients", "-F", probeClientFormat},
	{"list-panes", "-a", "-F", probePaneFormat},
}

// probe asks the server on sock, over the exec transport with a deadline.
// The client carries -N when it supports it.
func probe(ctx context.Context, binary string, sock tmux.Socket, timeout time.Duration) (*answer, error) {
	c, err := tmux.NewClient(tmux.ClientOptions{Binary: binary, Socket: sock})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	out, err := c.Exec().RunSequence(ctx, probeCommands...)
	a, perr := parseProbe(string(out))
	if perr != nil {
		if err != nil {
			return nil, err
		}
		return nil, perr
	}
	// The server answered; a failure after its first line is list-panes
	// on a server without sessions.
	if err != nil && !errors.Is(err, tmux.ErrNotFound) {
		return nil, err
	}
	a.Took = time.Since(start)
	return a, nil
}

var errNoServerLine = errors.New("diagnostics: probe: no server line in the answer")

// parseProbe parses the probe's output.
func parseProbe(out string) (*answer, error) {
	a := &answer{}
	seen := false
	for _, line := range strings.Split(out, "\n") {
		f := strings.Split(line, "\t")
		switch {
		case f[0] == "S" && len(f) == 10:
			seen = true
			a.PID, _ = strconv.Atoi(f[1])
			a.Version = f[2]
			if sec, err := strconv.ParseInt(f[3], 10, 64); err == nil {
				a.StartTime = time.Unix(sec, 0)
			}
			a.SocketPath = f[4]
			a.ExitEmpty, a.ExitUnattached, a.DestroyUnattached, a.RemainOnExit = f[5], f[6], f[7], f[8]
			a.HistoryLimit, _ = strconv.Atoi(f[9])
		case f[0] == "C" && len(f) == 3:
			pid, _ := strconv.Atoi(f[1])
			a.Clients = append(a.Clients, clientFacts{PID: pid, Control: f[2] == "1"})
		case f[0] == "P" && len(f) == 7:
			var p paneFacts
			p.HistoryBytes, _ = strconv.ParseUint(f[1], 10, 64)
			p.HistorySize, _ = strconv.Atoi(f[2])
			p.HistoryLimit, _ = strconv.Atoi(f[3])
			p.RemainOnExit, p.Dead, p.Session = f[4], f[5] == "1", f[6]
			a.Panes = append(a.Panes, p)
		}
	}
	if !seen {
		return nil, errNoServerLine
	}
	return a, nil
}

// on reports whether a tmux flag or choice option value means on.
func on(v string) bool { return v == "1" || v == "on" || v == "yes" }
