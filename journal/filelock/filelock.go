// Package filelock opens a file that several processes share and takes
// its flock within a deadline: the kernel hands a released lock to a
// waiter at once, a wait that outlives its deadline is abandoned to a
// goroutine that lets the lock go, and a file replaced while waiting is
// opened again. The journal keeps no handle open between transactions and
// opens its file through it.
package filelock

import (
	"errors"
	"io/fs"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// ErrLocked is returned when another process held the file's lock for
// longer than the deadline.
var ErrLocked = errors.New("journal: file locked by another process")

// errGaveUp: flockWithin stopped waiting; the file now belongs to the
// waiting goroutine, which closes it.
var errGaveUp = errors.New("filelock: gave up waiting for the lock")

// maxAbandoned bounds the goroutines left waiting for a lock after their
// caller gave up (a process that holds the file for long): past it,
// waiters poll instead.
const maxAbandoned = 4

// Waits counts one journal's abandoned lock waits.
type Waits struct {
	abandoned atomic.Int32
}

// flockWithin takes f's flock (how: LOCK_SH or LOCK_EX) before deadline.
// It waits in the kernel, which hands a released lock to a waiter at
// once: polling would miss the short moments between two other processes'
// transactions and could wait out its deadline behind busy writers. A
// wait that outlives deadline is abandoned and returns errGaveUp: the
// goroutine that waits then owns f, releases the lock as soon as it gets
// it and closes f. Other errors leave f to the caller.
func (w *Waits) flockWithin(f *os.File, how int, deadline time.Time) error {
	fd := int(f.Fd())
	err := unix.Flock(fd, how|unix.LOCK_NB)
	if err == nil || !busy(err) {
		return flockErr(f, err)
	}
	if w == nil || w.abandoned.Load() >= maxAbandoned {
		return pollFlock(f, how, deadline)
	}
	var mu sync.Mutex
	gaveUp := false
	done := make(chan error, 1)
	go func() {
		err := unix.Flock(fd, how)
		for errors.Is(err, unix.EINTR) {
			err = unix.Flock(fd, how)
		}
		mu.Lock()
		defer mu.Unlock()
		if gaveUp {
			if err == nil {
				unix.Flock(fd, unix.LOCK_UN) //nolint:errcheck // closing releases it too
			}
			f.Close() //nolint:errcheck // nothing written
			w.abandoned.Add(-1)
			return
		}
		done <- err
	}()
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case err := <-done:
		return flockErr(f, err)
	case <-timer.C:
	}
	mu.Lock()
	defer mu.Unlock()
	select {
	case err := <-done: // it got there as the timer fired
		return flockErr(f, err)
	default:
	}
	gaveUp = true
	w.abandoned.Add(1)
	return errGaveUp
}

// pollFlock takes f's flock by polling until deadline.
func pollFlock(f *os.File, how int, deadline time.Time) error {
	wait := 100 * time.Microsecond
	for {
		err := unix.Flock(int(f.Fd()), how|unix.LOCK_NB)
		if err == nil || !busy(err) {
			return flockErr(f, err)
		}
		if time.Now().After(deadline) {
			return ErrLocked
		}
		time.Sleep(wait)
		wait = min(2*wait, 5*time.Millisecond)
	}
}

func busy(err error) bool { return errors.Is(err, unix.EWOULDBLOCK) || errors.Is(err, unix.EINTR) }

func flockErr(f *os.File, err error) error {
	if err == nil {
		return nil
	}
	return &fs.PathError{Op: "flock", Path: f.Name(), Err: err}
}

// Open opens name and takes its flock (shared for a read-only
// open), waiting until deadline (see flockWithin). A file replaced at
// name while we waited (moved aside, compacted) is let go and the new one
// opened instead.
func (w *Waits) Open(name string, flag int, mode os.FileMode, deadline time.Time) (*os.File, error) {
	shared := flag&(os.O_WRONLY|os.O_RDWR) == 0
	how := unix.LOCK_EX
	if shared {
		how = unix.LOCK_SH
	}
	wait := 100 * time.Microsecond
	pause := func() bool {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(wait)
		wait = min(2*wait, 5*time.Millisecond)
		return true
	}
	for {
		f, err := os.OpenFile(name, flag, mode)
		if err != nil {
			// A read-only open may arrive just after the file was moved
			// aside and before the fresh one exists.
			if shared && errors.Is(err, fs.ErrNotExist) && pause() {
				continue
			}
			return nil, err
		}
		switch err := w.flockWithin(f, how, deadline); {
		case errors.Is(err, errGaveUp):
			return nil, ErrLocked // f is closed by the waiter
		case err != nil:
			f.Close() //nolint:errcheck // nothing written
			return nil, err
		}
		if same, err := sameFile(f, name); err == nil && same {
			return f, nil
		}
		f.Close() //nolint:errcheck // not ours any more
		if !pause() {
			return nil, ErrLocked
		}
	}
}

// sameFile reports whether f is still the file at name.
func sameFile(f *os.File, name string) (bool, error) {
	a, err := f.Stat()
	if err != nil {
		return false, err
	}
	b, err := os.Stat(name)
	if err != nil {
		return false, err
	}
	return os.SameFile(a, b), nil
}
