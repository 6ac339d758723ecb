package tmux

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// The start lock. Several tmux-mcp processes may find the same server
// dead at once; each would start one, and all but the last would be
// orphaned. An flock on a file beside the socket ("<socket>.tmux-mcp.lock")
// serialises the check and the start. The file sits in the socket
// directory, where a person looks ($TMUX_TMPDIR/tmux-UID), so it lives only
// while it is held: the holder removes it before letting go. A process
// that waited on the file may then hold a lock on a file no longer at the
// path; it checks, after locking, that the file it locked is the one the
// path names, and starts over when it is not. Two holders at once are
// thereby impossible: a lock counts only on the file at the path, and
// that file is removed only by its holder.

// startLockSuffix names the lock file after the socket.
const startLockSuffix = ".tmux-mcp.lock"

// lockStart takes the start lock at path, polling until ctx ends, and
// returns the function that removes the file and releases the lock.
func lockStart(ctx context.Context, path string) (func(), error) {
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|unix.O_NOFOLLOW, 0o600)
		if err != nil {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if err := flockWait(ctx, f); err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if sameFile(f, path) {
			return func() {
				os.Remove(path) //nolint:errcheck // gone already is fine
				f.Close()       // releases the lock
			}, nil
		}
		f.Close() // its holder removed it while this one waited: take the file now there
	}
}

// flockWait takes an exclusive flock on f, polling until ctx ends.
func flockWait(ctx context.Context, f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return nil
		}
		if !errors.Is(err, unix.EWOULDBLOCK) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// sameFile reports whether the open file f is the file at path now.
func sameFile(f *os.File, path string) bool {
	var held, named unix.Stat_t
	if unix.Fstat(int(f.Fd()), &held) != nil || unix.Lstat(path, &named) != nil {
		return false
	}
	return held.Dev == named.Dev && held.Ino == named.Ino
}
