package proc

// listenerPID returns the PID of a process that listens on the unix socket
// bound to path, even after the socket file was deleted (the kernel keeps
// the bound name: UnixListeners), or 0. A tmux-mcp that starts
// after a /tmp cleaner removed the socket finds the live server this way
// and sends it SIGUSR1 instead of starting a second server that would
// orphan it.
func ListenerPID(path string) int {
	if pids := ListenerPIDs(path); len(pids) > 0 {
		return pids[0]
	}
	return 0
}

// ListenerPIDs returns the PIDs of the processes that listen on a unix
// socket bound to path, in ascending order, whether or not the socket file
// is still there. More than one means several servers claim the path: all
// but the one the file leads to are orphaned. How it finds them is the
// platform's (UnixListeners).
func ListenerPIDs(path string) []int {
	return UnixListeners(func(p string) bool { return p == path })[path]
}
