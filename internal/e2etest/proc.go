package e2etest

import (
	"fmt"
	"os"
	"strings"
)

// ProcStat returns the fields of /proc/PID/stat after the command name
// (the state first), or nil when the process is gone.
func ProcStat(pid int) []string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	return strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
}
