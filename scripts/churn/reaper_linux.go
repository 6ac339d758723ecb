package main

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// becomeSubreaper makes the harness the child subreaper of everything it
// starts: the tmux server, which daemonizes away from the client that
// started it, is then the harness's child, and its exit status can be
// read when it dies (diedHow).
func becomeSubreaper() error {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}

// diedHow says how the process pid ended. A child of the harness (the
// server it started, reparented to the subreaper) is reaped here at
// once, as init would reap it in the field; another (a server tmux-mcp
// started is tmux-mcp's child) is read from its zombie's exit_code in
// /proc while it lasts.
func diedHow(pid int) string {
	for deadline := time.Now().Add(300 * time.Millisecond); ; {
		var ws unix.WaitStatus
		got, err := unix.Wait4(pid, &ws, unix.WNOHANG, nil)
		if err == nil && got == pid {
			return describeWait(ws)
		}
		if err != nil { // ECHILD: not ours
			break
		}
		if time.Now().After(deadline) {
			return "ended; not yet reaped after 300 ms"
		}
		time.Sleep(10 * time.Millisecond)
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "gone; its exit status was not seen (reaped by its parent)"
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	// f[0] is field 3 (state); exit_code is field 52.
	if len(f) >= 50 && (f[0] == "Z" || f[0] == "X") {
		if code, err := strconv.Atoi(f[49]); err == nil {
			return describeWait(unix.WaitStatus(code)) + " (read from its zombie)"
		}
	}
	return "ended; its exit status was not readable"
}

// describeWait puts a wait status in words.
func describeWait(ws unix.WaitStatus) string {
	switch {
	case ws.Signaled():
		s := "killed by signal " + unix.SignalName(ws.Signal())
		if ws.CoreDump() {
			s += " (core dumped)"
		}
		return s
	case ws.Exited():
		return fmt.Sprintf("exited with status %d", ws.ExitStatus())
	}
	return fmt.Sprintf("wait status %#x", uint32(ws))
}

// reapChild collects pid's exit status if it is a zombie child of the
// harness.
func reapChild(pid int) {
	var ws unix.WaitStatus
	unix.Wait4(pid, &ws, unix.WNOHANG, nil) //nolint:errcheck // not ours, or not dead: nothing to do
}
