package proc

import (
	"path/filepath"

	"golang.org/x/sys/unix"
)

// SystemResources returns the system-wide counters of a sample (PTYs and
// file handles in use and their maxima), best effort: values it cannot
// read stay 0. On macOS it counts the /dev/ttys* nodes and reads the
// sysctls kern.tty.ptmx_max, kern.num_files and kern.maxfiles
// (darwinSystemResources).
func SystemResources() Resources {
	return darwinSystemResources(unix.SysctlUint32, filepath.Glob)
}
