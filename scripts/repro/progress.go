package main

import (
	"fmt"
	"io"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// progress is a one-line status on a terminal; it prints nothing when
// stderr is not a terminal (CI logs stay clean).
type progress struct {
	mu  sync.Mutex
	w   io.Writer
	tty bool
}

func newProgress(f *os.File) *progress {
	_, err := unix.IoctlGetTermios(int(f.Fd()), ioctlGetTermios)
	return &progress{w: f, tty: err == nil}
}

func (p *progress) line(s string) {
	if !p.tty {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(s) > 150 {
		s = s[:150]
	}
	fmt.Fprintf(p.w, "\r\033[K%s", s)
}

func (p *progress) done() {
	if p.tty {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
