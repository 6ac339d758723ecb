package hosts

import (
	"os"
	"strings"
	"sync"
)

// MachineID names this machine and PID namespace, so that the PIDs of two
// processes with the same MachineID compare: the kernel's boot ID (a new
// one at each boot) and the inode of the PID namespace (a container of
// the same kernel is another machine here). "" when either cannot be
// read: the caller's descriptor is then not sent, and none matches.
var MachineID = sync.OnceValue(func() string {
	boot, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	ns, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return ""
	}
	return "linux:" + strings.TrimSpace(string(boot)) + ":" + ns
})
