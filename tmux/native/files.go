package native

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// clientFiles is the client's side of tmux's file protocol (file.c): a
// command such as load-buffer or save-buffer with a path has its client
// read or write the file, so that the path means what it means to the
// client (its directory, its permissions). Only the files the command
// named may be opened; stdin is never offered.
type clientFiles struct {
	cwd     string
	allowed map[string]bool
	open    map[int32]*os.File
	std     map[int32]int32 // streams opened on the client's stdout (1) or stderr (2)
}

func newClientFiles(cwd string, paths []string) *clientFiles {
	f := &clientFiles{cwd: cwd, allowed: map[string]bool{}, open: map[int32]*os.File{}, std: map[int32]int32{}}
	for _, p := range paths {
		if p == "" || p == "-" {
			continue
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		f.allowed[filepath.Clean(p)] = true
	}
	return f
}

// pathOf returns the path of a read or write open message (after its
// ints), and whether the command named it.
func (f *clientFiles) pathOf(data []byte, ints int) (string, bool) {
	if len(data) <= 4*ints {
		return "", false // "-": the client's stdin or stdout
	}
	p := string(data[4*ints:])
	for i := 0; i < len(p); i++ {
		if p[i] == 0 {
			p = p[:i]
			break
		}
	}
	if p == "" || !filepath.IsAbs(p) {
		return p, false
	}
	return p, f.allowed[filepath.Clean(p)]
}

// readOpen answers MSG_READ_OPEN: the file's data in MSG_READ frames, then
// MSG_READ_DONE with 0 or an errno.
func (f *clientFiles) readOpen(data []byte) []byte {
	stream, _ := frameInts(data, 0)
	fd, _ := frameInts(data, 1)
	done := func(e syscall.Errno) []byte {
		return appendFrame(nil, msgReadDone, append(int32Bytes(stream), int32Bytes(int32(e))...))
	}
	path, ok := f.pathOf(data, 2)
	if fd != -1 || !ok {
		return done(syscall.EBADF)
	}
	file, err := os.Open(path)
	if err != nil {
		return done(errnoOf(err))
	}
	defer file.Close()
	var out []byte
	buf := make([]byte, maxImsgSize-imsgHeaderSize-4)
	for {
		n, err := file.Read(buf)
		if n > 0 {
			out = appendFrame(out, msgRead, append(int32Bytes(stream), buf[:n]...))
		}
		if err == io.EOF {
			return append(out, done(0)...)
		}
		if err != nil {
			return append(out, done(errnoOf(err))...)
		}
	}
}

// writeOpen answers MSG_WRITE_OPEN with MSG_WRITE_READY: streams 1 and 2
// are the command's output, collected by the caller; a path the command
// named is opened for writing.
func (f *clientFiles) writeOpen(data []byte) []byte {
	stream, _ := frameInts(data, 0)
	fd, _ := frameInts(data, 1)
	flags, _ := frameInts(data, 2)
	ready := func(e syscall.Errno) []byte {
		return appendFrame(nil, msgWriteReady, append(int32Bytes(stream), int32Bytes(int32(e))...))
	}
	if fd == 1 || fd == 2 {
		// The command's output (show-buffer, save-buffer -), on a
		// stream of its own: collected as the caller's stdout or stderr.
		if stream != 1 && stream != 2 {
			f.std[stream] = fd
		}
		return ready(0)
	}
	path, ok := f.pathOf(data, 3)
	if fd != -1 || !ok || f.open[stream] != nil {
		return ready(syscall.EBADF)
	}
	file, err := os.OpenFile(path, int(flags)&(syscall.O_APPEND|syscall.O_TRUNC)|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return ready(errnoOf(err))
	}
	f.open[stream] = file
	return ready(0)
}

// stdOf returns 1 or 2 when stream is the client's stdout or stderr, and
// 0 for a file's stream.
func (f *clientFiles) stdOf(stream int32) int32 {
	if stream == 1 || stream == 2 {
		return stream
	}
	return f.std[stream]
}

// write writes data to an open stream's file.
func (f *clientFiles) write(stream int32, data []byte) {
	if file := f.open[stream]; file != nil {
		file.Write(data) //nolint:errcheck // tmux's own client ignores it too
	}
}

// close closes an open stream's file.
func (f *clientFiles) close(stream int32) {
	delete(f.std, stream)
	if file := f.open[stream]; file != nil {
		file.Close()
		delete(f.open, stream)
	}
}

func (f *clientFiles) closeAll() {
	for s := range f.open {
		f.close(s)
	}
}

// errnoOf is the errno behind an os error, else EIO.
func errnoOf(err error) syscall.Errno {
	var e syscall.Errno
	if errors.As(err, &e) {
		return e
	}
	return syscall.EIO
}
