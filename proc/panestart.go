package proc

import (
	"os"
	"strconv"
)

// PaneStarting reports whether a pane's process (panePID) is still the
// tmux server's own fork (the executable of serverPID), before it has run
// the pane's command. Until then tmux reads the pane's current directory
// as the server's, not the one the pane was created with. Where /proc
// cannot tell (macOS), it reports false.
func PaneStarting(serverPID, panePID int) bool {
	if serverPID <= 0 || panePID <= 0 {
		return false
	}
	server, err := os.Readlink("/proc/" + strconv.Itoa(serverPID) + "/exe")
	if err != nil {
		return false
	}
	pane, err := os.Readlink("/proc/" + strconv.Itoa(panePID) + "/exe")
	return err == nil && pane == server
}
