package native

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"time"
)

// tmux-mcp speaks tmux's client protocol itself (imsg.go) instead of
// running a tmux client process per command and per control connection.
// That saves a fork and exec per command and a process per connection,
// and it lets tmux-mcp decide what a client sends and does:
//
//   - A control client identifies itself atomically. tmux 3.2a-3.6b crash
//     when they write a session notification to a control client that is
//     still identifying (CLIENT_CONTROL set by MSG_IDENTIFY_FLAGS, its
//     control state made only at MSG_IDENTIFY_DONE; see
//     tmux.Capabilities.IdentifyingClientNotified). tmux's own client sends
//     FLAGS first and DONE last with its descriptors and environment in
//     between, and the server reads that over several turns of its event
//     loop (a frame that carries a descriptor ends a read), in which
//     anybody's session change can reach the half-made client. Ours sends
//     everything else first (the descriptors included) and then FLAGS,
//     LONGFLAGS, DONE and the attach command in one small write: one
//     socket buffer the server reads and handles in one turn, in which
//     nothing else runs. No notification can reach a client of ours
//     between its flags and its control state, whoever changes sessions
//     meanwhile.
//   - It sends only the environment that tmux uses from a client
//     (clientEnviron) and never runs what a server names: MSG_SHELL,
//     MSG_EXEC and MSG_LOCK end the connection, so a server that is not
//     tmux cannot make tmux-mcp run anything.
//   - It talks only over a connection package tmux made: to a socket that
//     tmux.CheckSocket trusts, whose listener's uid it checked (PeerUID).
//
// The tmux binary still starts servers (tmux.Exec.StartServer) and reports
// its own version (tmux.Exec.BinaryVersion).

// identity is what a client of ours tells the server about itself.
type identity struct {
	control bool
	cwd     string
	env     []string
}

// newIdentity is tmux-mcp's identity: UTF-8 (tmux -u: tmux believes the
// client speaks UTF-8 whatever the locale, so names and titles come back
// whole), this process's directory and clientEnviron.
func newIdentity(control bool, extraEnv []string) identity {
	cwd, err := os.Getwd()
	if err != nil {
		cwd = "/"
	}
	return identity{control: control, cwd: cwd, env: append(clientEnviron(os.Environ()), extraEnv...)}
}

// flags is the client's CLIENT_* bits.
func (id identity) flags() uint64 {
	f := uint64(clientFlagUTF8)
	if id.control {
		f |= clientFlagControl
	}
	return f
}

// preamble is every identify frame that sets no flag: the server may read
// them in as many turns as it likes.
func (id identity) preamble() []byte {
	var b []byte
	b = appendFrame(b, msgIdentifyTerm, cString("tmux-mcp"))
	b = appendFrame(b, msgIdentifyFeatures, int32Bytes(0))
	b = appendFrame(b, msgIdentifyTTYName, cString(""))
	b = appendFrame(b, msgIdentifyCwd, cString(id.cwd))
	b = appendFrame(b, msgIdentifyClientPID, int32Bytes(int32(os.Getpid())))
	for _, kv := range id.env {
		if len(kv)+1+imsgHeaderSize <= maxImsgSize {
			b = appendFrame(b, msgIdentifyEnviron, cString(kv))
		}
	}
	return b
}

// finale is the flags and the end of identification, followed by the
// first command: written at once (see the top of this file).
func (id identity) finale(argv []string) ([]byte, error) {
	cmd, err := commandFrame(argv)
	if err != nil {
		return nil, err
	}
	var b []byte
	b = appendFrame(b, msgIdentifyFlags, int32Bytes(int32(id.flags())))
	b = appendFrame(b, msgIdentifyLongFlags, uint64Bytes(id.flags()))
	b = appendFrame(b, msgIdentifyDone, nil)
	return append(b, cmd...), nil
}

// ErrCommandTooLong: a command does not fit in one message (tmux's own
// client says "command too long").
var ErrCommandTooLong = errors.New("command too long")

// ErrProtocolVersion: the server speaks another version of the protocol
// (the text is what tmux's own client says).
var ErrProtocolVersion = fmt.Errorf("protocol version mismatch (client %d, server other)", protocolVersion)

// RefusedError: the server sent a message that tmux-mcp never obeys
// (MSG_SHELL, MSG_EXEC, MSG_LOCK or MSG_SUSPEND: run a program, or stop).
type RefusedError struct {
	Type uint32 // the message's type
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("server sent message %d, which tmux-mcp never obeys", e.Type)
}

// commandFrame is MSG_COMMAND for argv (one command line, ";" separating
// commands as on tmux's command line).
func commandFrame(argv []string) ([]byte, error) {
	data := append(int32Bytes(int32(len(argv))), packArgv(argv)...)
	if imsgHeaderSize+len(data) > maxImsgSize {
		return nil, ErrCommandTooLong
	}
	return appendFrame(nil, msgCommand, data), nil
}

// writeAll writes b in one write call (a short write is an error: every
// write here is far smaller than a socket buffer).
func writeAll(conn *net.UnixConn, b []byte) error {
	n, err := conn.Write(b)
	if err == nil && n != len(b) {
		err = io.ErrShortWrite
	}
	return err
}

// sendFD writes one frame of type typ with no data that passes fd.
func sendFD(conn *net.UnixConn, typ uint32, fd int, layout FDLayout) error {
	b := appendFrameFD(nil, typ, nil, true, layout)
	n, oobn, err := conn.WriteMsgUnix(b, syscall.UnixRights(fd), nil)
	if err == nil && (n != len(b) || oobn == 0) {
		err = io.ErrShortWrite
	}
	return err
}

// Result is what one command client got: the command's stdout and
// stderr, its exit status and the message of its exit, if any.
type Result struct {
	Stdout, Stderr []byte
	Status         int
	ExitMsg        string
}

// Run runs argv (one command line) as a command client over conn, a
// connection to a tmux server, as `tmux -u -N -S path argv...` would,
// within ctx, and closes conn. A command that reads or writes a file
// through its client (load-buffer path, save-buffer path) may open only a
// file that paths names (relative to this process's directory): a server
// cannot make tmux-mcp read or write anything else. Errors are
// ErrCommandTooLong, ErrProtocolVersion, a *RefusedError, or the
// connection's (a read or write error, io.EOF, io.ErrUnexpectedEOF, a
// malformed frame); ctx's end shows as the connection's I/O failing.
func Run(ctx context.Context, conn *net.UnixConn, argv, paths, extraEnv []string) (Result, error) {
	defer conn.Close()
	// The context ends the connection's I/O (not a deadline of its own,
	// which could fire a moment before ctx reports its end).
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) }) //nolint:errcheck // unblocks I/O
	defer stop()
	id := newIdentity(false, extraEnv)
	fin, err := id.finale(argv)
	if err != nil {
		return Result{}, err
	}
	// No descriptor and no control flag: everything in one write.
	if err := writeAll(conn, append(id.preamble(), fin...)); err != nil {
		return Result{}, err
	}
	var res Result
	files := newClientFiles(id.cwd, paths)
	defer files.closeAll()
	r := newFrameReader(conn)
	for {
		m, err := r.next()
		if err != nil {
			return res, err
		}
		var reply []byte
		switch m.typ {
		case msgWriteOpen:
			reply = files.writeOpen(m.data)
		case msgWrite:
			stream, ok := frameInts(m.data, 0)
			if !ok {
				return res, errFrame
			}
			switch files.stdOf(stream) {
			case 1:
				res.Stdout = append(res.Stdout, m.data[4:]...)
			case 2:
				res.Stderr = append(res.Stderr, m.data[4:]...)
			default:
				files.write(stream, m.data[4:])
			}
		case msgWriteClose:
			if stream, ok := frameInts(m.data, 0); ok {
				files.close(stream)
			}
		case msgReadOpen:
			reply = files.readOpen(m.data)
		case msgExit, msgShutdown:
			res.Status, res.ExitMsg = exitMessage(m.data)
			writeAll(conn, appendFrame(nil, msgExiting, nil)) //nolint:errcheck // the command is done
			return res, nil
		case msgDetach, msgDetachKill:
			reply = appendFrame(nil, msgExiting, nil)
		case msgVersion, msgOldStderr, msgOldStdin, msgOldStdout:
			return res, ErrProtocolVersion
		case msgShell, msgExec, msgLock, msgSuspend:
			return res, &RefusedError{Type: m.typ}
		}
		if reply != nil {
			if err := writeAll(conn, reply); err != nil {
				return res, err
			}
		}
	}
}

// frameInts returns the i-th C int of a frame's data.
func frameInts(data []byte, i int) (int32, bool) {
	if len(data) < 4*(i+1) {
		return 0, false
	}
	return int32(binary.NativeEndian.Uint32(data[4*i:])), true
}

// clientEnviron is the environment a client of ours sends. tmux uses a
// client's environment for little: update-environment copies the names
// it lists (by default DISPLAY, KRB5CCNAME, MSYSTEM, SSH_ASKPASS,
// SSH_AUTH_SOCK, SSH_AGENT_PID, SSH_CONNECTION, WINDOWID, XAUTHORITY)
// into a session the client creates or attaches to. Only those, and the
// locale, are sent: the rest of tmux-mcp's environment (API keys, tokens)
// never reaches the server this way.
func clientEnviron(env []string) []string {
	var out []string
	for _, kv := range env {
		name, _, ok := cutEnv(kv)
		if ok && clientEnvNames[name] {
			out = append(out, kv)
		}
	}
	return out
}

var clientEnvNames = map[string]bool{
	"DISPLAY": true, "KRB5CCNAME": true, "MSYSTEM": true, "SSH_ASKPASS": true, "SSH_AUTH_SOCK": true,
	"SSH_AGENT_PID": true, "SSH_CONNECTION": true, "WINDOWID": true, "XAUTHORITY": true,
	"LANG": true, "LC_ALL": true, "LC_CTYPE": true,
}

func cutEnv(kv string) (name, value string, ok bool) {
	for i := 0; i < len(kv); i++ {
		if kv[i] == '=' {
			return kv[:i], kv[i+1:], i > 0
		}
	}
	return "", "", false
}

// Control is the socket side of a control client of ours: it stays open
// while the connection lives (closing it makes the server drop the
// client) and is read for the server's exit messages. The control stream
// itself flows through the pipes passed to AttachControl.
type Control struct {
	conn *net.UnixConn
	done chan struct{} // closed when the socket reader ends
	once sync.Once
	err  error // why it ended, valid after done
	msg  string
	// told: the server said the client was to leave (an exit, detach or
	// shutdown message) before the socket closed.
	told bool
}

// ErrUnknownLayout: AttachControl needs to know how the server marks a
// passed descriptor.
var ErrUnknownLayout = errors.New("native: the server's message layout is not known")

// AttachControl makes conn, a connection to a tmux server, a control
// client and attaches it with attach (the attach-session argv), passing in
// as the client's stdin (commands) and out as its stdout (the control
// stream). layout is how the server marks a passed descriptor. The client
// identifies itself atomically (see the top of this file). conn is the
// Control's from now on: AttachControl closes it when it fails, Close
// later. Errors are ErrCommandTooLong, ErrUnknownLayout, ctx's error, or
// the connection's.
func AttachControl(ctx context.Context, conn *net.UnixConn, attach []string, in, out *os.File, layout FDLayout, extraEnv []string) (*Control, error) {
	ok := false
	defer func() {
		if !ok {
			conn.Close()
		}
	}()
	if layout == LayoutUnknown {
		return nil, ErrUnknownLayout
	}
	stop := context.AfterFunc(ctx, func() { conn.SetWriteDeadline(time.Unix(1, 0)) }) //nolint:errcheck // unblocks writes
	id := newIdentity(true, extraEnv)
	fin, err := id.finale(attach)
	if err != nil {
		return nil, err
	}
	if err := writeAll(conn, id.preamble()); err != nil {
		return nil, err
	}
	if err := sendFD(conn, msgIdentifyStdin, int(in.Fd()), layout); err != nil {
		return nil, err
	}
	if err := sendFD(conn, msgIdentifyStdout, int(out.Fd()), layout); err != nil {
		return nil, err
	}
	// The flags, the end of identification and attach-session: one write,
	// read and handled by the server in one turn of its loop.
	if err := writeAll(conn, fin); err != nil {
		return nil, err
	}
	if !stop() {
		return nil, ctx.Err()
	}
	ok = true
	nc := &Control{conn: conn, done: make(chan struct{})}
	go nc.read()
	return nc, nil
}

// Done is closed when the socket has closed.
func (nc *Control) Done() <-chan struct{} { return nc.done }

// Lost reports, once the socket has closed, whether it closed without
// the server saying why: the server died.
func (nc *Control) Lost() bool {
	<-nc.done
	return !nc.told
}

// ExitMessage is the message of the server's exit message (MSG_EXIT or
// MSG_SHUTDOWN), "" when none came; read it after Done.
func (nc *Control) ExitMessage() string { return nc.msg }

// read handles the server's messages on the socket until it closes.
func (nc *Control) read() {
	defer close(nc.done)
	r := newFrameReader(nc.conn)
	for {
		m, err := r.next()
		if err != nil {
			nc.err = err
			return
		}
		switch m.typ {
		case msgExit, msgShutdown:
			_, nc.msg = exitMessage(m.data)
			nc.told = true
			writeAll(nc.conn, appendFrame(nil, msgExiting, nil)) //nolint:errcheck
		case msgDetach, msgDetachKill:
			nc.told = true
			writeAll(nc.conn, appendFrame(nil, msgExiting, nil)) //nolint:errcheck
		case msgExited:
			nc.told = true
			nc.err = io.EOF
			return
		case msgWriteOpen:
			// A control client's output goes to its stdout, never as files.
			stream, _ := frameInts(m.data, 0)
			reply := append(int32Bytes(stream), int32Bytes(int32(syscall.EBADF))...)
			writeAll(nc.conn, appendFrame(nil, msgWriteReady, reply)) //nolint:errcheck
		case msgReadOpen:
			stream, _ := frameInts(m.data, 0)
			reply := append(int32Bytes(stream), int32Bytes(int32(syscall.EBADF))...)
			writeAll(nc.conn, appendFrame(nil, msgReadDone, reply)) //nolint:errcheck
		case msgVersion, msgShell, msgExec, msgLock, msgSuspend:
			nc.err = fmt.Errorf("%w: message %d", errFrame, m.typ)
			return
		}
	}
}

// Close drops the client: the server sees the socket close and lets the
// client go. It returns once the socket's reader has ended.
func (nc *Control) Close() {
	nc.once.Do(func() { nc.conn.Close() })
	<-nc.done
}
