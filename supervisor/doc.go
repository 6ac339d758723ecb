// Package supervisor is the policy around every tmux call: the only door to
// package tmux for anything that talks to a tmux server (the
// one probe of diagnose aside, see tmux).
//
// A [Supervisor] keeps one supervised [Server] per tmux socket, created
// lazily. Every call a Server makes goes, in order, through a health gate
// (fail fast while the server is down or restarting), the restore gate, a
// rate limit (token buckets per pane for reads and per server for
// everything), the wire with a deadline, error classification, and typed
// [Event]s for subscribers. Around the calls it watches the server (the
// monitor), and carries out the restart policy's decisions after a death.
//
// # Rooms
//
// The supervisor is four subsystems; three of them are packages below it,
// and the arrows point down only (supervisor → capture, death, proc →
// tmux):
//
//   - the call gate and rate limits, here: call.go (every command),
//     lifecycle.go (the health gate, adopting or starting a server),
//     the token buckets of package supervisor/ratelimit (ratelimited.go
//     here says a refusal), blocking.go, sequence.go, queries.go, the typed
//     tmux commands in cmd_*.go, and replay.go (the journal's door);
//   - capture freshness and the cache: package supervisor/capture (the
//     capture plan, the cache, watcher connections, the probe, pipe
//     feeds); capture.go here puts a capture together from it;
//   - death, restart and restore: package supervisor/death (causes,
//     classification, the restart policy, the hang detector: pure code)
//     and, here, monitor.go (noticing a death), restart.go (carrying the
//     decision out) and restoregate.go (holding calls while the Restorer
//     runs);
//   - resources and the platform seams: package proc (process
//     identity and exit, resource sampling, PTYs, socket listeners);
//     resources.go here turns samples into warnings and refusals.
//
// # Captures are exact
//
// [Server.Capture] is linearizable: if a capture begins at time t, its
// content includes every byte of pane output that tmux had processed
// before t. A capture is served from cache only when that is proven, by a
// barrier round trip on the watcher connection of the pane's session or,
// without a watcher, by a state probe that includes the window's last
// activity. supervisor/capture's freshness.go holds the whole argument
// and its one known limit.
//
// # When a server dies: the words
//
// One word family per step, and no other words for them:
//
//   - death: the server stopped (exited, was killed, crashed, lost its
//     socket, hung). It is noticed by the monitor from the control
//     connection's EOF, the server PID's exit and a socket probe that
//     never starts a server, and classified into a [death.Cause].
//   - restart: starting tmux again after a death, as the restart policy
//     ([death.RestartPolicy], [death.Tracker]) decides: at once, after a
//     backoff, after terminating a hung server, on the next call, or never
//     (give up). Recreating a deleted socket is the restart of a live
//     server's socket. The server's state is "restarting" meanwhile
//     (StateRestarting, ErrRestarting, EventRestarting, EventRestarted).
//   - restore: bringing back, on the restarted server, the sessions,
//     windows and panes the journal recorded. The [Restorer] does it; the
//     restore gate holds every other call until it returns, so that
//     nobody sees half of the restored tree. [Server.RestoreState] says
//     where it stands ([RestoreChecking] while the Restorer decides,
//     [RestoreRunning] once it restores something: [MarkRestoring]);
//     ErrRestoring, EventRestored.
//
// Not used: recover, recovery, rebuild, respawn. Two published names
// predate this glossary and stay for compatibility: the span attributes
// tmux.recovery.action, tmux.recovery.attempt and tmux.recovered (see
// docs/telemetry.md), and the recover_after_crash prompt.
//
// # One way to spell a tmux command
//
// Every tmux command the tools and the job engine send is a typed method
// (cmd_*.go: [Server.NewSession], [Server.SplitWindow], [Server.SetOption]
// with an [OptionScope], ...) whose flags come from its arguments or an
// options struct. The methods that send an argv as it is (do, doBlocking,
// doSequence) are unexported; the journal replays its restore plans
// through [Server.Replay], which typedcommands_test.go at the module root
// keeps out of tools/ and jobs/.
//
// Where to start: [New] and [Config], [Supervisor.Server], the typed
// commands, [Server.Capture], [Server.PaneChanges], [Server.Health], and [Event]. The
// supervisor imports neither the journal, nor the tools, nor a telemetry
// SDK: it emits events and OpenTelemetry API spans, and whoever wires the
// binary subscribes.
package supervisor
