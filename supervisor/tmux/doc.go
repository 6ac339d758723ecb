// Package tmux is the wire: the one place where tmux-mcp talks to tmux.
//
// It runs tmux commands over two transports behind one interface:
//
//   - [Exec] starts one tmux client process per command, with a deadline and
//     SIGKILL on timeout.
//   - [Control] keeps one persistent control-mode client (tmux -C) attached to
//     a hidden session that tmux-mcp owns, and matches responses to requests.
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
// aside); nothing else in tmux-mcp starts tmux processes.
package tmux
