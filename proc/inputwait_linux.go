package proc

import (
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// inputSyscalls are the system calls, by number on each architecture,
// that a process waiting for input from its terminal blocks in, read
// first: a read counts only from a terminal (a shell also reads pipes of
// its own while it starts a command); the others wait on file sets whose
// members are not read here.
var inputSyscalls = map[string][]int{
	// read, poll, select, epoll_wait, pselect6, ppoll, epoll_pwait, epoll_pwait2
	"amd64": {0, 7, 23, 232, 270, 271, 281, 441},
	// read, pselect6, ppoll, epoll_pwait, epoll_pwait2 (no poll or select)
	"arm64": {63, 72, 73, 22, 441},
}

func foreground(panePID int) (int, bool, bool) {
	calls, ok := inputSyscalls[runtime.GOARCH]
	if !ok {
		return 0, false, false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(panePID) + "/stat")
	if err != nil {
		return 0, false, false
	}
	// Field 8, the foreground process group of the process's terminal.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 6 {
		return 0, false, false
	}
	fg, err := strconv.Atoi(f[5])
	if err != nil || fg <= 0 {
		return 0, false, false
	}
	b, err = os.ReadFile("/proc/" + strconv.Itoa(fg) + "/syscall")
	if err != nil {
		return 0, false, false
	}
	f = strings.Fields(string(b))
	nr, err := strconv.Atoi(f[0])
	if err != nil {
		return fg, false, true // "running": not blocked
	}
	switch {
	case nr == calls[0]:
		// read(fd, ...): the fd is the first argument, in hex.
		if len(f) < 2 {
			return fg, false, true
		}
		fd, err := strconv.ParseInt(strings.TrimPrefix(f[1], "0x"), 16, 32)
		if err != nil {
			return fg, false, true
		}
		link, err := os.Readlink("/proc/" + strconv.Itoa(fg) + "/fd/" + strconv.FormatInt(fd, 10))
		return fg, err == nil && (strings.HasPrefix(link, "/dev/pts/") || strings.HasPrefix(link, "/dev/tty")), true
	case slices.Contains(calls[1:], nr):
		return fg, true, true
	}
	return fg, false, true
}
