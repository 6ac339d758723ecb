package supervisor

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
