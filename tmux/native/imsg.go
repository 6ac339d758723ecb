package native

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
)

// This file is tmux's client protocol at its lowest level: the imsg frames
// that a tmux client and server exchange over the server's Unix socket
// (compat/imsg.c and tmux-protocol.h in tmux's sources). native.go builds
// the two kinds of client tmux-mcp needs on it.
//
// A frame is a 16-byte header and up to MAX_IMSGSIZE-16 bytes of data:
//
//	type u32 | len u16 | flags u16 | peerid u32 | pid u32   (tmux 3.2a to 3.5a)
//	type u32 | len u32             | peerid u32 | pid u32   (tmux 3.6 and later)
//
// in the host's byte order. tmux 3.6 took OpenBSD's newer imsg, which
// dropped the flags field and marks a frame that carries a file
// descriptor with the top bit of len instead of flags' IMSGF_HASFD. Frames
// without a descriptor are the same bytes in both layouts (flags is 0), so
// only a client that passes descriptors needs to know which one the server
// speaks (FDLayout). peerid carries the protocol version,
// 8 in every release from 3.2a to next-3.8.

// protocolVersion is tmux's PROTOCOL_VERSION.
const protocolVersion = 8

// imsgHeaderSize is sizeof(struct imsg_hdr); maxImsgSize is MAX_IMSGSIZE,
// the most a frame may hold, header included.
const (
	imsgHeaderSize = 16
	maxImsgSize    = 16384
)

// The descriptor marks of the two header layouts.
const (
	imsgFlagHasFD = 1          // flags & IMSGF_HASFD, before 3.6
	imsgFDMark    = 0x80000000 // len & IMSG_FD_MARK, 3.6 and later
	imsgLenMask   = ^uint32(imsgFDMark)
)

// Message types (enum msgtype in tmux-protocol.h; the same numbers in
// every supported release, later ones only append).
const (
	msgVersion = 12

	msgIdentifyFlags     = 100
	msgIdentifyTerm      = 101
	msgIdentifyTTYName   = 102
	msgIdentifyStdin     = 104
	msgIdentifyEnviron   = 105
	msgIdentifyDone      = 106
	msgIdentifyClientPID = 107
	msgIdentifyCwd       = 108
	msgIdentifyFeatures  = 109
	msgIdentifyStdout    = 110
	msgIdentifyLongFlags = 111

	msgCommand    = 200
	msgDetach     = 201
	msgDetachKill = 202
	msgExit       = 203
	msgExited     = 204
	msgExiting    = 205
	msgLock       = 206
	msgReady      = 207
	msgShell      = 209
	msgShutdown   = 210
	msgOldStderr  = 211
	msgOldStdin   = 212
	msgOldStdout  = 213
	msgSuspend    = 214
	msgExec       = 217
	msgFlags      = 218

	msgReadOpen   = 300
	msgRead       = 301
	msgReadDone   = 302
	msgWriteOpen  = 303
	msgWrite      = 304
	msgWriteReady = 305
	msgWriteClose = 306
)

// Client flags (CLIENT_* in tmux.h; the same bits in every supported
// release).
const (
	clientFlagControl = 0x2000  // CLIENT_CONTROL
	clientFlagUTF8    = 0x10000 // CLIENT_UTF8, tmux -u
)

// FDLayout says how a server's frames mark a passed descriptor: which
// header layout it speaks (tmux.Capabilities.ImsgFDMark tells by version).
type FDLayout int

// The layouts.
const (
	LayoutUnknown FDLayout = iota
	LayoutFlags            // IMSGF_HASFD in flags (before 3.6)
	LayoutLenMark          // IMSG_FD_MARK in len (3.6 and later)
)

// imsg is one frame: its type and data (the header's other fields are
// the protocol version and a pid, which tmux-mcp does not need).
type imsg struct {
	typ  uint32
	data []byte
}

// appendFrame appends one frame without a descriptor to b.
func appendFrame(b []byte, typ uint32, data []byte) []byte {
	return appendFrameFD(b, typ, data, false, LayoutFlags)
}

// appendFrameFD appends one frame to b; hasFD marks it as carrying the
// descriptor that the same sendmsg passes, in the server's layout.
func appendFrameFD(b []byte, typ uint32, data []byte, hasFD bool, layout FDLayout) []byte {
	n := uint32(imsgHeaderSize + len(data))
	var h [imsgHeaderSize]byte
	ne := binary.NativeEndian
	ne.PutUint32(h[0:], typ)
	switch {
	case hasFD && layout == LayoutLenMark:
		ne.PutUint32(h[4:], n|imsgFDMark)
	case hasFD:
		ne.PutUint16(h[4:], uint16(n))
		ne.PutUint16(h[6:], imsgFlagHasFD)
	default:
		ne.PutUint32(h[4:], n) // n < 2^16: len u16 and flags 0 in the old layout
	}
	ne.PutUint32(h[8:], protocolVersion)
	ne.PutUint32(h[12:], uint32(syscall.Getpid()))
	b = append(b, h[:]...)
	return append(b, data...)
}

// cString is s as a C string: its bytes and a NUL.
func cString(s string) []byte { return append([]byte(s), 0) }

// int32Bytes and uint64Bytes encode a C int and a uint64_t.
func int32Bytes(v int32) []byte {
	return binary.NativeEndian.AppendUint32(nil, uint32(v))
}

func uint64Bytes(v uint64) []byte { return binary.NativeEndian.AppendUint64(nil, v) }

// errFrame: the server sent a frame tmux-mcp cannot read.
var errFrame = errors.New("tmux: malformed message from server")

// frameReader reads frames from a server connection. A server never
// passes descriptors to a client; any that arrive are closed.
type frameReader struct {
	conn *net.UnixConn
	buf  []byte // bytes read and not yet consumed
	oob  []byte
}

func newFrameReader(conn *net.UnixConn) *frameReader {
	return &frameReader{conn: conn, oob: make([]byte, syscall.CmsgSpace(4*8))}
}

// next returns the next frame; io.EOF when the server closed the
// connection between frames, io.ErrUnexpectedEOF inside one.
func (r *frameReader) next() (imsg, error) {
	for {
		if len(r.buf) >= imsgHeaderSize {
			ne := binary.NativeEndian
			typ := ne.Uint32(r.buf[0:])
			// A server passes no descriptor to a client, so its frames
			// read the same in both layouts (flags 0, no mark).
			n := ne.Uint32(r.buf[4:]) & imsgLenMask
			if n < imsgHeaderSize || n > maxImsgSize {
				return imsg{}, fmt.Errorf("%w: frame of %d bytes", errFrame, n)
			}
			if uint32(len(r.buf)) >= n {
				m := imsg{typ: typ, data: append([]byte(nil), r.buf[imsgHeaderSize:n]...)}
				r.buf = r.buf[n:]
				return m, nil
			}
		}
		if err := r.fill(); err != nil {
			if errors.Is(err, io.EOF) && len(r.buf) > 0 {
				return imsg{}, io.ErrUnexpectedEOF
			}
			return imsg{}, err
		}
	}
}

// fill reads what the socket has, closing any descriptor it carries.
func (r *frameReader) fill() error {
	var chunk [8192]byte
	n, oobn, _, _, err := r.conn.ReadMsgUnix(chunk[:], r.oob)
	if oobn > 0 {
		closeRights(r.oob[:oobn])
	}
	if n > 0 {
		if len(r.buf) == 0 {
			r.buf = append(r.buf[:0], chunk[:n]...)
		} else {
			r.buf = append(r.buf, chunk[:n]...)
		}
		return nil
	}
	if err == nil {
		return io.EOF
	}
	return err
}

// closeRights closes the descriptors in a control message buffer.
func closeRights(oob []byte) {
	msgs, err := syscall.ParseSocketControlMessage(oob)
	if err != nil {
		return
	}
	for _, m := range msgs {
		fds, err := syscall.ParseUnixRights(&m)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			syscall.Close(fd) //nolint:errcheck // not ours to use
		}
	}
}

// exitMessage decodes MSG_EXIT's data: the exit status and, from 3.2 on,
// an optional message (a C string).
func exitMessage(data []byte) (status int, msg string) {
	if len(data) < 4 {
		return 0, ""
	}
	status = int(int32(binary.NativeEndian.Uint32(data)))
	rest := data[4:]
	for i, c := range rest {
		if c == 0 {
			rest = rest[:i]
			break
		}
	}
	return status, string(rest)
}

// packArgv is cmd_pack_argv: the arguments as consecutive C strings.
func packArgv(args []string) []byte {
	var b []byte
	for _, a := range args {
		b = append(b, a...)
		b = append(b, 0)
	}
	return b
}
