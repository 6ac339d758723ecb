package proc

// Foreground returns the process in the foreground of panePID's terminal
// (the leader of its foreground process group) and whether it is blocked
// waiting for input: a shell at its prompt reads its terminal (read, or
// poll and select and their kin on it), while a shell that runs a command
// waits for its child, and a command runs or sleeps. known is false where
// this cannot be read (no /proc, another architecture, a process gone).
// A builtin that reads (bash's read) awaits input too; so does a child
// the shell forked that waits on a pipe before it runs its command: the
// caller compares the process with the shell it saw at the prompt.
func Foreground(panePID int) (pid int, awaits, known bool) {
	if panePID <= 0 {
		return 0, false, false
	}
	return foreground(panePID)
}
