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
// carries it out. Resources (fds against RLIMIT_NOFILE, PTYs, RSS) are
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
// Files: supervisor.go (Supervisor, Config), server.go (Server), call.go
// (the call path and its gates), blocking.go (commands that wait inside
// tmux), queries.go (typed listings), lifecycle.go (adopt, start, close),
// inspect.go (looking at tmux without supervising it), orphan.go (finding
// a server behind a deleted socket),
// monitor.go (watching a live server), death.go (classifying a death),
// recovery.go (restart, socket recreation, restore), restoring.go (the
// gate that holds calls while a restore runs), restart.go (the pure
// restart policy), capture.go (Capture), freshness.go, watcher.go and
// probe.go (what may be served from cache), cache.go (the cache),
// coalesce.go (sharing tmux calls without going stale), caps.go (capture
// caps), ratelimit.go (token buckets), resources.go (resource watch and
// gate), health.go (Health), events.go (Event and the bus).
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
