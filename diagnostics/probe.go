package diagnostics

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux"
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

// The probe's formats: tmux records (tmux.RecordFormat: paths and names
// cannot break them) whose first field is the record's kind, so that the
// three commands' output can be told apart.
var (
	probeServerFormat = "S|" + tmux.RecordFormat("pid", "version", "start_time", "socket_path", "exit-empty",
		"exit-unattached", "destroy-unattached", "remain-on-exit", "history-limit")
	probeClientFormat = "C|" + tmux.RecordFormat("client_pid", "client_control_mode")
	probePaneFormat   = "P|" + tmux.RecordFormat("history_bytes", "history_size", "history_limit", "remain-on-exit",
		"pane_dead", "session_name")
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
	recs, err := tmux.ParseRecords([]byte(out), 0)
	if err != nil {
		return nil, fmt.Errorf("%w (%v)", errNoServerLine, err)
	}
	for _, f := range recs {
		switch {
		case f[0] == "S" && len(f) == 10:
			seen = true
			a.PID, _ = strconv.Atoi(f[1])
			a.Version = f[2]
			if sec, err := strconv.ParseInt(f[3], 10, 64); err == nil {
				a.StartTime = time.Unix(sec, 0)
			}
			a.SocketPath = f[4]
			a.ExitEmpty, a.ExitUnattached, a.DestroyUnattached, a.RemainOnExit = f[5], f[6], onOff(f[7]), f[8]
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
func on(v string) bool { return v != "" && v != "0" && v != "off" && v != "no" }

// onOff writes a flag the same way on every version: destroy-unattached is
// a flag ("0"/"1") up to 3.3a and a choice ("off", "on", "keep-last",
// "keep-group") from 3.4.
func onOff(v string) string {
	switch v {
	case "0":
		return "off"
	case "1":
		return "on"
	}
	return v
}
