// Package supervisor is the policy around every tmux call: the only door to
// package supervisor/tmux.
//
// A [Supervisor] keeps one supervised [Server] per tmux socket, created
// lazily. Every call a Server makes goes, in order, through a health gate
// (fail fast while the server is down or restarting), a rate limit (token
// buckets per pane for reads and per server for everything), the wire with
// a deadline, error classification, and typed [Event]s for subscribers.
// Around the calls it watches the server: death is noticed from the control
// connection's EOF, the server PID's exit (a pidfd on Linux, kqueue on
// macOS), and a socket probe that
// never starts a server; it is classified (last session gone, killed,
// crashed, socket deleted, fd livelock, hung, version skew, permission),
// and recovered from by a restart policy kept apart from the loop that
// carries it out. proc.Resources (fds against RLIMIT_NOFILE, PTYs, RSS) are
// sampled and new panes are refused before the server livelocks.
//
// # Captures are exact
//
// [Server.Capture] is linearizable: if a capture begins at time t, its
// content includes every byte of pane output that tmux had processed
// before t. A capture is served from cache only when that is proven, by a
// barrier round trip on the watcher connection of the pane's session
// (tmux queues a control client's %output and its command replies in one
// ordered stream, so the reply to a command sent after t comes after every
// %output for bytes read before t) that also reads the pane's state, or,
// without a watcher, by a state probe that includes the window's last
// activity. freshness.go holds the whole argument and its one known limit;
// it is the file to open to learn why a capture was served from cache.
//
// # When a server dies
//
// A death is noticed by the monitor of a live server and classified into
// a [death.Cause]. The restart policy ([death.RestartPolicy] and a record of recent
// deaths: pure code, tested without tmux) decides whether and when to start
// the server again; the monitor goroutine carries the decision out: it
// restarts the server, recreates a deleted socket, or gives up. A server
// tmux-mcp started is then rebuilt by the [Restorer] (the journal), and
// until that returns the restore gate holds every other call, so that no
// caller sees half of the restored tree. Each of the three has its file:
// restartpolicy.go (the decision), restart.go (carrying it out) and
// restoregate.go (the gate).
//
// Platform differences each sit behind one small seam, with the Linux and
// macOS sides side by side (_linux.go, _darwin.go) and the macOS decoding
// in an untagged file tested on Linux: exitwatch (a process's exit),
// procstat (its state and start time), procsample (its fds, fd limit and
// whether it runs), sysres (PTYs and file handles system-wide), listeners
// (who listens on a socket path whose file is gone). The fd limit of a
// server tmux-mcp starts and the socket directory are supervisor/tmux's
// (fdlimit, socketdir).
//
// Where to start: [New] and [Config], [Supervisor.Server], [Server.Do],
// [Server.Capture], [Server.PaneChanges], [Server.Health], and [Event]. The
// supervisor imports neither the journal, nor the tools, nor a telemetry
// SDK: it emits events and OpenTelemetry API spans, and whoever wires the
// binary subscribes.
package supervisor
