package proc

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// procRoot is where procfs is mounted.
const procRoot = "/proc"

// SystemResources returns the system-wide counters of a sample (PTYs and
// file handles in use and their maxima), best effort: fields a container
// hides, or that do not exist on this system, stay 0. On Linux it reads
// procfs: kernel.pty.nr and kernel.pty.max, fs.file-nr.
func SystemResources() Resources {
	r := Resources{SampledAt: time.Now()}
	if n, err := readUint(procRoot + "/sys/kernel/pty/nr"); err == nil {
		r.PTYs = int(n)
	}
	if n, err := readUint(procRoot + "/sys/kernel/pty/max"); err == nil {
		r.PTYMax = int(n)
	}
	if f, err := readFields(procRoot + "/sys/fs/file-nr"); err == nil && len(f) == 3 {
		r.FilesAllocated, _ = strconv.ParseUint(f[0], 10, 64)
		r.FilesMax, _ = strconv.ParseUint(f[2], 10, 64)
	}
	return r
}

func readFields(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return strings.Fields(string(b)), nil
}

func readUint(path string) (uint64, error) {
	f, err := readFields(path)
	if err != nil {
		return 0, err
	}
	if len(f) != 1 {
		return 0, fmt.Errorf("%s: want one number, got %q", path, f)
	}
	return strconv.ParseUint(f[0], 10, 64)
}
