package native

import (
	"net"

	"golang.org/x/sys/unix"
)

// PeerUID returns the effective uid of the process that listens on conn's
// other end (LOCAL_PEERCRED).
func PeerUID(conn *net.UnixConn) (int, bool, error) {
	raw, err := conn.SyscallConn()
	if err != nil {
		return 0, false, err
	}
	var cred *unix.Xucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	}); err != nil {
		return 0, false, err
	}
	if cerr != nil {
		return 0, false, cerr
	}
	return int(cred.Uid), true, nil
}
