//go:build darwin

package diagnostics

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// sysctl reads a sysctl by name: numbers as decimal text.
func sysctl(name string) (string, error) {
	if v, err := unix.SysctlUint32(name); err == nil {
		return strconv.FormatUint(uint64(v), 10), nil
	}
	s, err := unix.Sysctl(name)
	if err != nil {
		return "", fmt.Errorf("diagnostics: sysctl %s: %w", name, err)
	}
	return s, nil
}

// launchdMaxfiles runs `launchctl limit maxfiles` (the fd limits launchd
// gives the processes it starts), with a deadline.
func launchdMaxfiles(ctx context.Context) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "launchctl", "limit", "maxfiles").Output()
	if err != nil {
		return "", fmt.Errorf("diagnostics: launchctl limit maxfiles: %w", err)
	}
	return string(out), nil
}

// statTimes returns a file's access, modification and change times.
func statTimes(fi os.FileInfo) fileTimes {
	t := fileTimes{Mtime: fi.ModTime()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		t.Atime = time.Unix(st.Atimespec.Unix())
		t.Ctime = time.Unix(st.Ctimespec.Unix())
	}
	return t
}
