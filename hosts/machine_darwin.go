package hosts

import (
	"sync"
	"syscall"
)

// MachineID names this machine: macOS's boot session UUID (a new one at
// each boot; macOS has no PID namespaces). "" when it cannot be read.
var MachineID = sync.OnceValue(func() string {
	id, err := syscall.Sysctl("kern.bootsessionuuid")
	if err != nil || id == "" {
		return ""
	}
	return "darwin:" + id
})
