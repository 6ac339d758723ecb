package supervisor

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// listenerPID returns the PID of a process that listens on the unix socket
// bound to path, even after the socket file was deleted (the kernel still
// lists the bound name in /proc/net/unix), or 0. A tmux-mcp that starts
// after a /tmp cleaner removed the socket finds the live server this way
// and sends it SIGUSR1 instead of starting a second server that would
// orphan it.
func listenerPID(path string) int {
	f, err := os.Open("/proc/net/unix")
	if err != nil {
		return 0
	}
	defer f.Close()
	const listening = 0x10000 // __SO_ACCEPTCON
	inode := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// Num: RefCount Protocol Flags Type St Inode Path
		fields := strings.Fields(sc.Text())
		if len(fields) < 8 || fields[7] != path {
			continue
		}
		flags, err := strconv.ParseUint(fields[3], 16, 32)
		if err == nil && flags&listening != 0 {
			inode = fields[6]
			break
		}
	}
	if inode == "" {
		return 0
	}
	want := "socket:[" + inode + "]"
	procs, _ := filepath.Glob("/proc/[0-9]*/fd")
	for _, dir := range procs {
		fds, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			if link, err := os.Readlink(filepath.Join(dir, fd.Name())); err == nil && link == want {
				pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
				return pid
			}
		}
	}
	return 0
}
