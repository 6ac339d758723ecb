package proc

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// childrenOf returns pid's children from /proc/PID/task/TID/children, one
// file per thread (Linux 3.5 and later, with CONFIG_PROC_CHILDREN). ok is
// false when the kernel has no such files; err is set when pid does not
// exist.
func childrenOf(pid int) (kids []int, ok bool, err error) {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return nil, true, err
	}
	for _, t := range tasks {
		b, err := os.ReadFile(filepath.Join(dir, t.Name(), "children"))
		if errors.Is(err, fs.ErrNotExist) {
			if _, serr := os.Stat(filepath.Join(dir, t.Name())); serr == nil {
				return nil, false, nil // the thread is there, the file is not
			}
			continue // the thread ended
		}
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				kids = append(kids, n)
			}
		}
	}
	return kids, true, nil
}
