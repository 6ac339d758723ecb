package supervisor

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
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
	if pids := ListenerPIDs(path); len(pids) > 0 {
		return pids[0]
	}
	return 0
}

// ListenerPIDs returns the PIDs of the processes that listen on a unix
// socket bound to path, in ascending order, whether or not the socket file
// is still there. More than one means several servers claim the path: all
// but the one the file leads to are orphaned. It reads procfs only (Linux;
// nil elsewhere).
func ListenerPIDs(path string) []int {
	return UnixListeners(func(p string) bool { return p == path })[path]
}

// UnixListeners maps the path of every listening unix socket that match
// accepts (nil: all) to the PIDs holding it, in ascending order. Abstract
// sockets have no path and are left out. It reads /proc/net/unix and the
// fd tables in /proc; processes whose fds it may not read are missed.
func UnixListeners(match func(path string) bool) map[string][]int {
	f, err := os.Open("/proc/net/unix")
	if err != nil {
		return nil
	}
	defer f.Close()
	const listening = 0x10000      // __SO_ACCEPTCON
	byInode := map[string]string{} // "socket:[inode]" -> path
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// Num: RefCount Protocol Flags Type St Inode Path
		fields := strings.Fields(sc.Text())
		if len(fields) < 8 || !strings.HasPrefix(fields[7], "/") || (match != nil && !match(fields[7])) {
			continue
		}
		flags, err := strconv.ParseUint(fields[3], 16, 32)
		if err == nil && flags&listening != 0 {
			byInode["socket:["+fields[6]+"]"] = fields[7]
		}
	}
	if len(byInode) == 0 {
		return nil
	}
	out := map[string][]int{}
	procs, _ := filepath.Glob("/proc/[0-9]*/fd")
	for _, dir := range procs {
		fds, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
		for _, fd := range fds {
			link, err := os.Readlink(filepath.Join(dir, fd.Name()))
			if err != nil {
				continue
			}
			if path, ok := byInode[link]; ok && !slices.Contains(out[path], pid) {
				out[path] = append(out[path], pid)
			}
		}
	}
	for _, pids := range out {
		slices.Sort(pids)
	}
	return out
}
