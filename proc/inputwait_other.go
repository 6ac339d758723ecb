//go:build !linux

package proc

// foreground cannot tell without /proc.
func foreground(int) (int, bool, bool) { return 0, false, false }
