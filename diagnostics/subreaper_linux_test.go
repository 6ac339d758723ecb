package diagnostics

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// becomeSubreaper makes this process the reaper of its orphaned
// descendants (PR_SET_CHILD_SUBREAPER).
func becomeSubreaper() error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("PR_SET_CHILD_SUBREAPER: %w", err)
	}
	return nil
}
