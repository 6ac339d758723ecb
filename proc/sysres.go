package proc

import "time"

// The system-wide counters of a resource sample (PTYs and file handles)
// come from procfs on Linux (sysres_linux.go) and from sysctls and /dev on
// macOS (sysres_darwin.go). The macOS rules are here, without build tags,
// so that they are tested on Linux.

// darwinPTYGlob matches the device nodes of the pseudo-terminals in use on
// macOS: devfs creates /dev/ttysNNN when a ptmx is opened and removes it
// when the last fd closes. Their maximum is kern.tty.ptmx_max.
const darwinPTYGlob = "/dev/ttys[0-9]*"

// darwinSystemResources builds the system-wide counters of a macOS sample
// from sysctl (kern.tty.ptmx_max, kern.num_files, kern.maxfiles) and glob
// (the /dev/ttys* nodes), best effort: a value it cannot read stays 0.
func darwinSystemResources(sysctl func(name string) (uint32, error), glob func(pattern string) ([]string, error)) Resources {
	r := Resources{SampledAt: time.Now()}
	if ttys, err := glob(darwinPTYGlob); err == nil {
		r.PTYs = len(ttys)
	}
	if n, err := sysctl("kern.tty.ptmx_max"); err == nil {
		r.PTYMax = int(n)
	}
	if n, err := sysctl("kern.num_files"); err == nil {
		r.FilesAllocated = uint64(n)
	}
	if n, err := sysctl("kern.maxfiles"); err == nil {
		r.FilesMax = uint64(n)
	}
	return r
}
