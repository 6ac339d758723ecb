package capture

import "os"

// fifoReader opens a FIFO's reading end. A FIFO's open waits for the
// other side: the end comes on the channel once a writer opens it (the
// pipe-pane command's cat), or nil if the open failed.
type fifoReader struct {
	path   string
	opened chan *os.File
}

// openFIFO starts opening path's reading end.
func openFIFO(path string) *fifoReader {
	r := &fifoReader{path: path, opened: make(chan *os.File, 1)}
	go func() {
		f, err := os.OpenFile(path, os.O_RDONLY, 0)
		if err != nil {
			f = nil
		}
		r.opened <- f
	}()
	return r
}

// release ends the wait when no writer will come, and returns the end the
// open gave (nil if none). It holds a writer open until the reader's open
// has returned: a writer that opened and closed before the reader's open
// began would leave that open waiting for good (seen under load, where
// the opening goroutine ran late, with the feeds' lock held: every later
// subscriber and server_health waited behind it). O_RDWR opens a FIFO
// without waiting for a reader (Linux and the BSDs; POSIX leaves it
// open). When even that fails, the waiting open is left behind rather
// than waited for.
func (r *fifoReader) release() *os.File {
	w, err := os.OpenFile(r.path, os.O_RDWR, 0)
	if err != nil {
		return nil
	}
	defer w.Close()
	return <-r.opened
}
