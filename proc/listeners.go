package proc

import (
	"bufio"
	"context"
	"errors"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Finding the processes that listen on a unix socket path, even after the
// socket file was deleted, is the platform's (UnixListeners): Linux reads
// /proc/net/unix, where the kernel keeps the bound name
// (listeners_linux.go). macOS has no such table; the fallback there
// (listeners_darwin.go) is lsof, which reads each socket's bound address
// from the kernel through proc_info and so still shows the path of a
// socket whose file is gone. It is slower (tens to hundreds of
// milliseconds), it cannot tell a listening socket from one the server
// accepted (both belong to the server), and it is missed when lsof is not
// there or not allowed to read a process. It runs only when a socket does
// not answer. The lsof side is here, without build tags, so that it is
// tested on Linux too.

// lsofTimeout bounds one lsof run.
const lsofTimeout = 5 * time.Second

// lsofUnixListeners runs lsof over the unix sockets of every process it may
// read and maps each socket path that match accepts (nil: all) to the PIDs
// holding it, in ascending order. It returns nil when lsof cannot run.
func lsofUnixListeners(ctx context.Context, match func(path string) bool) map[string][]int {
	ctx, cancel := context.WithTimeout(ctx, lsofTimeout)
	defer cancel()
	// -n -P: no name lookups; -w: no warnings; -U: unix sockets only;
	// -F pn: machine-readable process IDs and names.
	out, err := exec.CommandContext(ctx, "lsof", "-n", "-P", "-w", "-U", "-F", "pn").Output()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return nil // not installed, or timed out
	}
	// lsof exits 1 when some process could not be read; what it printed
	// still holds.
	return parseLsofUnix(string(out), match)
}

// parseLsofUnix reads the output of `lsof -U -F pn`: a "p<PID>" line starts
// each process, and an "n<name>" line follows for each of its sockets. A
// bound socket's name is its path (Linux's lsof appends " type=STREAM" and
// sometimes a state); an unbound one's is "->0x..." or empty and is left
// out. It maps each path that match accepts (nil: all) to the PIDs
// holding it, in ascending order, or returns nil when there is none.
func parseLsofUnix(out string, match func(path string) bool) map[string][]int {
	var res map[string][]int
	pid := 0
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		switch line[0] {
		case 'p':
			pid, _ = strconv.Atoi(line[1:])
		case 'n':
			path, _, _ := strings.Cut(line[1:], " type=")
			if pid <= 0 || !strings.HasPrefix(path, "/") || match != nil && !match(path) {
				continue
			}
			if res == nil {
				res = map[string][]int{}
			}
			if !slices.Contains(res[path], pid) {
				res[path] = append(res[path], pid)
			}
		}
	}
	for _, pids := range res {
		slices.Sort(pids)
	}
	return res
}
