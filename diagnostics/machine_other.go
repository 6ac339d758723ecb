//go:build !darwin

package diagnostics

import (
	"context"
	"errors"
	"os"
	"syscall"
	"time"
)

// errNotDarwin is what the macOS readers return elsewhere.
var errNotDarwin = errors.New("diagnostics: not macOS")

// sysctl reads a macOS sysctl; elsewhere it fails.
func sysctl(string) (string, error) { return "", errNotDarwin }

// launchdMaxfiles runs `launchctl limit maxfiles` on macOS; elsewhere it
// fails.
func launchdMaxfiles(context.Context) (string, error) { return "", errNotDarwin }

// statTimes returns a file's access, modification and change times.
func statTimes(fi os.FileInfo) fileTimes {
	t := fileTimes{Mtime: fi.ModTime()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		t.Atime = time.Unix(st.Atim.Unix())
		t.Ctime = time.Unix(st.Ctim.Unix())
	}
	return t
}
