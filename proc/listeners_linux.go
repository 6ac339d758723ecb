package proc

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// UnixListeners maps the path of every listening unix socket that match
// accepts (nil: all) to the PIDs holding it, in ascending order. Abstract
// sockets have no path and are left out. On Linux it reads /proc/net/unix
// and the fd tables in /proc; processes whose fds it may not read are
// missed. The darwin side is listeners_darwin.go.
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
	holders := map[string][]int{} // "socket:[inode]" -> PIDs holding it
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
			if _, ok := byInode[link]; ok && !slices.Contains(holders[link], pid) {
				holders[link] = append(holders[link], pid)
			}
		}
	}
	// A process whose parent holds the same socket is that parent's fork
	// (tmux forks a child per pane and per job; until it closes its fds or
	// execs, it holds the server's listening socket): it is not another
	// server. Two servers on one path hold two different sockets.
	out := map[string][]int{}
	for link, pids := range holders {
		for _, pid := range pids {
			if !slices.Contains(pids, parentPID(pid)) {
				out[byInode[link]] = append(out[byInode[link]], pid)
			}
		}
	}
	for _, pids := range out {
		slices.Sort(pids)
	}
	return out
}

// parentPID returns pid's parent PID from /proc, or 0.
func parentPID(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The fields after the command name (in parentheses, may hold
	// anything): state, ppid, ...
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}
