package native

import (
	"net"

	"golang.org/x/sys/unix"
)

// PeerUID returns the uid of the process that listens on conn's other end
// (SO_PEERCRED: the credentials it had when it called listen).
func PeerUID(conn *net.UnixConn) (int, bool, error) {
	raw, err := conn.SyscallConn()
	if err != nil {
		return 0, false, err
	}
	var cred *unix.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return 0, false, err
	}
	if cerr != nil {
		return 0, false, cerr
	}
	return int(cred.Uid), true, nil
}
