// Package tmux is the wire: the one place where tmux-mcp talks to tmux.
//
// It speaks tmux's client protocol itself (package native): no tmux
// client process runs per command or per connection, a control client of
// ours identifies itself in one turn of the server's loop (which tmux
// 3.2a-3.6b need, see Capabilities.IdentifyingClientNotified), sends no
// secrets and obeys no server's request to run a program, and it connects
// only to sockets of this user (trust.go, dial.go). The tmux binary itself
// only starts servers and reports its version. Commands go over two
// transports behind one interface:
//
//   - [Exec] opens one client connection per command, with a deadline.
//   - [Control] keeps one persistent control-mode client attached to a
//     hidden session that tmux-mcp owns, and matches responses to
//     requests.
//
// [Client] puts them together: it sends a command over control mode when that
// connection is healthy and over exec otherwise, and answers typed queries
// ([Client.ListSessions], [Client.ListWindows], [Client.ListPanes],
// [Client.Capture]) with the models in model.go. Every command passes the
// door on its way (literal.go: arguments tmux would expand as formats are
// made literal) and the guard (guard.go: commands known to crash a server
// are refused). Errors are classified from tmux's stderr into sentinels such
// as [ErrNoServer] and [ErrPaneNotFound] that callers test with errors.Is.
//
// # Map
//
// Below this package, imported by it alone and importing nothing of
// tmux-mcp:
//
//   - native: tmux's client protocol (imsg frames, identification, the
//     command and control clients, file requests, peer credentials).
//   - codec: the wire's text (quoting a command line, the control-mode
//     block parser, records, show-environment -s, unescaping). The codecs
//     that packages above read output with are forwarded here (codec.go).
//   - spawn: how a server that StartServer starts is set up (outside the
//     login session, its own fd limit).
//   - tmuxtest: isolated tmux servers for tests.
//
// In this package: client.go and client_queries.go ([Client]); control.go
// (a [Control]'s life), control_requests.go (the request FIFO and the stall
// watchdog), control_sequence.go (pipelines and command lists),
// control_read.go (the reader and notifications); exec.go ([Exec]),
// dial.go (dialing a trusted socket, native's errors), server.go,
// fdlimit*.go and serverenv.go (starting a server: its fd limit and
// environment); model.go, notify.go, errors.go (what comes back);
// version.go and capabilities.go (what differs between versions);
// socket.go, socketdir*.go and trust.go (which server, and whether to
// talk to it); literal.go and guard.go (what goes out).
//
// Where to start: [Socket] names a server, [NewClient] opens one and
// [Client.Run] sends a command; codec.Quote turns an argv into a
// control-mode command line; the tmuxtest subpackage gives tests an
// isolated server.
//
// # Who imports the wire
//
// Package supervisor is the one that talks to tmux: of tmux-mcp's
// packages it alone uses the transports and clients ([Exec], [Control],
// [Client], [DialControl], [Exec.StartServer]), with the one exception of
// diagnostics below. Outside tests:
//
//   - tools, jobs and cmd/... may use only the model types and IDs ([Socket]
//     and [HiddenSession] included), the error classes and types
//     ([CommandError], [ConnLostError], [ClassName], [IsServerDown]), the
//     notification names, [Version] and [Capabilities], [NameRewritten],
//     the record and environment codecs, and the rules for socket paths
//     and a server's environment ([SocketDirFor], [CheckSocket],
//     [ServerEnvNames], [CheckPassEnv]), none of which reaches a tmux;
//     TestOnlySupervisorUsesTheWire in the module root's layers_test.go holds
//     them to that list.
//   - journal uses names of the same kind (IDs, records, [ParseVersion],
//     [UnescapeStored]) and no transport.
//   - diagnostics sends one client of its own ([NewClient], in its
//     probe.go) to a socket it has checked: the diagnose report must work
//     whatever state the supervisor is in, or with none running.
//   - scripts/ (development harnesses) drive tmux through [Exec].
//
// Tests of any package may use anything here. Nothing outside
// tmux imports native, codec or spawn (layering_test.go).
package tmux
