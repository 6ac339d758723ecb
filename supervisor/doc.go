// Package supervisor is the policy around every tmux call: the only door to
// package supervisor/tmux.
//
// A [Supervisor] keeps one supervised [Server] per tmux socket, created
// lazily. Every call a Server makes goes, in order, through a health gate
// (fail fast while the server is down or restarting), a rate limit (token
// buckets per pane for reads and per server for everything), a
// change-aware capture cache, the wire with a deadline, error
// classification, and typed [Event]s for subscribers. Around the calls it
// watches the server: death is noticed from the control connection's EOF, a
// pidfd on the server PID, and a socket probe that never starts a server;
// it is classified (last session gone, killed, crashed, socket deleted, fd
// livelock, hung, version skew, permission), and recovered from by a
// restart policy kept apart from the loop that carries it out. Resources
// (fds against RLIMIT_NOFILE, PTYs, RSS) are sampled and new panes are
// refused before the server livelocks.
//
// Where to start: [New] and [Config], [Supervisor.Server], [Server.Do],
// [Server.Capture], [Server.Health], and [Event]. The supervisor imports
// neither the journal, nor the tools, nor a telemetry SDK: it emits events
// and OpenTelemetry API spans, and whoever wires the binary subscribes.
package supervisor
