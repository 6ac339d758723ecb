// Package tmux is the wire: the one place where tmux-mcp talks to tmux.
//
// It speaks tmux's client protocol itself (package native): no tmux
// client process runs per command or per connection, a control client of
// ours identifies itself in one turn of the server's loop (which tmux
// 3.2a-3.6b need, see Capabilities.IdentifyingClientNotified), sends no
// secrets and obeys no server's request to run a program, and it connects
// only to sockets of this user (trust.go). The tmux binary itself only
// starts servers and reports its version. Commands go over two transports
// behind one interface:
//
//   - [Exec] opens one client connection per command, with a deadline.
//   - [Control] keeps one persistent control-mode client attached to a
//     hidden session that tmux-mcp owns, and matches responses to
//     requests.
//
// [Client] puts them together: it sends a command over control mode when that
// connection is healthy and over exec otherwise, and answers typed queries
// ([Client.ListSessions], [Client.ListWindows], [Client.ListPanes],
// [Client.Capture]) with the models in model.go. Errors are classified from
// tmux's stderr into sentinels such as [ErrNoServer] and [ErrPaneNotFound]
// that callers test with errors.Is.
//
// Where to start: [Socket] names a server, [NewClient] opens one, [Quote]
// turns an argv into a control-mode command line, and the tmuxtest
// subpackage gives tests an isolated server.
//
// Only the supervisor package imports this one (tests and model types
// aside); nothing else in tmux-mcp talks to tmux.
package tmux
