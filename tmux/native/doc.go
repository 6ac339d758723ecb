// Package native is tmux's client protocol, spoken by tmux-mcp itself:
// the imsg frames a tmux client and server exchange over the server's
// Unix socket (imsg.go), a client's identification, and the two kinds of
// client the wire needs (native.go):
//
//   - [Run] runs one command line as a command client, as `tmux -u -N -S
//     path command` would, and answers the server's file requests only for
//     the files the command names (files.go).
//   - [AttachControl] makes a control client whose stdin and stdout are
//     pipes passed to the server, identified in one turn of the server's
//     loop; [Control] watches its socket until the server lets it go.
//
// No client of ours sends the server secrets (only the environment tmux
// uses from a client) or obeys a server's request to run a program.
//
// Where to start: native.go's opening comment says why the protocol is
// spoken here and how a control client identifies itself; imsg.go has the
// frame layouts of tmux 3.2a to 3.6 and later.
//
// The package knows nothing of sockets' names, trust or error classes:
// package tmux (dial.go) dials a socket it trusts, checks the listener
// with [PeerUID], hands the connection here, and turns the errors this
// package returns into its *CommandErrors. It imports nothing of
// tmux-mcp; only package tmux imports it.
package native
