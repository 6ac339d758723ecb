package proc

import "context"

// UnixListeners maps the path of every unix socket that match accepts
// (nil: all) to the PIDs holding it, in ascending order. On macOS it runs
// lsof (lsofUnixListeners: see listeners.go for what that misses); it
// returns nil when lsof cannot run.
func UnixListeners(match func(path string) bool) map[string][]int {
	return lsofUnixListeners(context.Background(), match)
}
