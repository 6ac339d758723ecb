package proc

import (
	"context"
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// watchExit returns a channel that is closed when process pid exits. If ctx
// ends first, the channel is never closed and nothing is left running. On
// Linux it waits on a pidfd, and fails when pidfds are not available
// (Linux < 5.3); callers then fall back to probes and the control
// connection. A process that is already gone gives a closed channel. The
// darwin side (exitwatch_darwin.go) uses kqueue.
func WatchExit(ctx context.Context, pid int) (<-chan struct{}, error) {
	exited := make(chan struct{})
	pfd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		close(exited)
		return exited, nil
	}
	if err != nil {
		return nil, fmt.Errorf("pidfd_open %d: %w", pid, err)
	}
	// The eventfd wakes the poll when ctx ends.
	efd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		unix.Close(pfd)
		return nil, fmt.Errorf("pidfd wait %d: eventfd: %w", pid, err)
	}
	stop := make(chan struct{})     // closed when the poll loop is over
	notified := make(chan struct{}) // closed when the ctx goroutine is done with efd
	go func() {
		defer close(notified)
		select {
		case <-ctx.Done():
			// eventfd counters are host-endian; any non-zero value wakes
			// poll, and a full counter still does.
			one := [8]byte{1}
			unix.Write(efd, one[:]) //nolint:errcheck
		case <-stop:
		}
	}()
	go func() {
		gone := pollPidfd(pfd, efd)
		close(stop)
		<-notified
		unix.Close(pfd)
		unix.Close(efd)
		if gone {
			close(exited)
		}
	}()
	return exited, nil
}

// pollPidfd blocks until pfd is readable (the process exited: true) or efd
// is (cancelled: false).
func pollPidfd(pfd, efd int) bool {
	fds := []unix.PollFd{{Fd: int32(pfd), Events: unix.POLLIN}, {Fd: int32(efd), Events: unix.POLLIN}}
	for {
		_, err := unix.Poll(fds, -1)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return false
		}
		if fds[0].Revents != 0 {
			return true
		}
		if fds[1].Revents != 0 {
			return false
		}
	}
}
