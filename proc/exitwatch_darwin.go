package proc

import (
	"context"
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// watchExit returns a channel that is closed when process pid exits. If ctx
// ends first, the channel is never closed and nothing is left running. On
// macOS it waits on a kqueue for EVFILT_PROC/NOTE_EXIT, which any process
// may watch for any other it can see; a user event (EVFILT_USER) on the
// same kqueue wakes the wait when ctx ends. A process that is already gone
// gives a closed channel. The Linux side (exitwatch_linux.go) uses a pidfd.
func WatchExit(ctx context.Context, pid int) (<-chan struct{}, error) {
	exited := make(chan struct{})
	kq, err := unix.Kqueue()
	if err != nil {
		return nil, fmt.Errorf("exit watch %d: kqueue: %w", pid, err)
	}
	unix.CloseOnExec(kq)
	changes := make([]unix.Kevent_t, 2)
	unix.SetKevent(&changes[0], pid, unix.EVFILT_PROC, unix.EV_ADD|unix.EV_ONESHOT)
	changes[0].Fflags = unix.NOTE_EXIT
	unix.SetKevent(&changes[1], 0, unix.EVFILT_USER, unix.EV_ADD|unix.EV_CLEAR)
	// With no room for events, a change that fails fails the call: ESRCH
	// when the process is gone (or a zombie).
	if _, err := unix.Kevent(kq, changes, nil, nil); err != nil {
		unix.Close(kq)
		if errors.Is(err, unix.ESRCH) {
			close(exited)
			return exited, nil
		}
		return nil, fmt.Errorf("exit watch %d: kevent: %w", pid, err)
	}
	stop := make(chan struct{})     // closed when the wait loop is over
	notified := make(chan struct{}) // closed when the ctx goroutine is done with kq
	go func() {
		defer close(notified)
		select {
		case <-ctx.Done():
			trigger := make([]unix.Kevent_t, 1)
			unix.SetKevent(&trigger[0], 0, unix.EVFILT_USER, 0)
			trigger[0].Fflags = unix.NOTE_TRIGGER
			unix.Kevent(kq, trigger, nil, nil) //nolint:errcheck
		case <-stop:
		}
	}()
	go func() {
		gone := waitKqueue(kq)
		close(stop)
		<-notified
		unix.Close(kq)
		if gone {
			close(exited)
		}
	}()
	return exited, nil
}

// waitKqueue blocks until kq reports the process's exit (true) or the user
// event (cancelled: false).
func waitKqueue(kq int) bool {
	events := make([]unix.Kevent_t, 2)
	for {
		n, err := unix.Kevent(kq, nil, events, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return false
		}
		for _, ev := range events[:n] {
			switch ev.Filter {
			case unix.EVFILT_PROC:
				if ev.Fflags&unix.NOTE_EXIT != 0 {
					return true
				}
			case unix.EVFILT_USER:
				return false
			}
		}
	}
}
