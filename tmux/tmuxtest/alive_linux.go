package tmuxtest

import (
	"os"
	"strconv"
	"strings"
)

// Alive reports whether pid is a running process. A zombie (exited, not yet
// reaped: tmux servers are reparented and may stay unreaped for a while)
// counts as dead, unlike with kill(pid, 0). On Linux it reads the state in
// /proc/PID/stat (alive_darwin.go has the macOS side).
func Alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the command name, which is in parentheses.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 || i+2 >= len(b) {
		return false
	}
	st := b[i+2]
	return st != 'Z' && st != 'X'
}

// startTime returns when pid started (clock ticks since boot, field 22 of
// /proc/PID/stat), or 0 when it cannot be read: with the PID it names one
// process across PID reuse. (proc reads the same, but its
// tests use this package: importing it would make a cycle.)
func startTime(pid int) uint64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0
	}
	// After the name: state (field 3) ... starttime (field 22).
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return 0
	}
	n, err := strconv.ParseUint(f[19], 10, 64)
	if err != nil {
		return 0
	}
	return n
}
