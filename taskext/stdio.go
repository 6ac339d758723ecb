package taskext

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
)

// maxLine bounds one message read from stdin (mcp-go's own reader has no
// bound; this one must hold a message whole to look at it).
const maxLine = 64 << 20

// Stdio returns the streams mcp-go's stdio server should use in place of
// in and out: the layer reads each message from in first, answers the
// extension's methods itself, and rewrites mcp-go's answers on their way
// to out. Writes to out are whole messages, one at a time. The layer's
// goroutine ends when in ends or ctx is cancelled.
//
// The returned context is ctx with what the layer's hooks and the tool
// handlers need of the stream (its caller: [OwnerOf]): mcp-go's stdio
// server must listen with it.
func (m *Manager) Stdio(ctx context.Context, in io.Reader, out io.Writer) (context.Context, io.Reader, io.Writer) {
	pr, pw := io.Pipe()
	s := &stdio{m: m, out: out, discover: map[string]bool{}, listens: map[string]chan struct{}{}, done: make(chan struct{}),
		scope: newScope()}
	go s.read(ctx, in, pw)
	return withOwner(withScope(ctx, s.scope), stdioOwner), pr, &stdioWriter{s: s}
}

type stdio struct {
	m       *Manager
	writeMu sync.Mutex
	out     io.Writer

	mu       sync.Mutex
	discover map[string]bool          // IDs of server/discover requests not answered yet
	listens  map[string]chan struct{} // open task subscriptions, by request ID
	done     chan struct{}            // closed when the input ends
	scope    *scope
}

// write sends one message.
func (s *stdio) write(msg []byte) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	buf := make([]byte, 0, len(msg)+1)
	buf = append(append(buf, msg...), '\n')
	_, err := s.out.Write(buf)
	return err
}

func (s *stdio) read(ctx context.Context, in io.Reader, pw *io.PipeWriter) {
	r := bufio.NewReaderSize(in, 64<<10)
	defer close(s.done)
	defer func() {
		s.mu.Lock()
		for id, stop := range s.listens {
			close(stop)
			delete(s.listens, id)
		}
		s.mu.Unlock()
	}()
	for {
		line, err := readLine(r)
		if len(bytes.TrimSpace(line)) > 0 {
			if werr := s.handle(ctx, line, pw); werr != nil {
				pw.CloseWithError(werr)
				return
			}
		}
		if err != nil {
			pw.CloseWithError(err)
			return
		}
		if ctx.Err() != nil {
			pw.CloseWithError(ctx.Err())
			return
		}
	}
}

var errLineTooLong = errors.New("taskext: a message on stdin exceeds 64 MiB")

// readLine reads one line, its newline included.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxLine {
			return nil, errLineTooLong
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return line, err
	}
}

// handle takes one message from the client.
func (s *stdio) handle(ctx context.Context, line []byte, pw *io.PipeWriter) error {
	in := s.m.inbound(ctx, bytes.TrimRight(line, "\r\n"), nil, stdioOwner)
	switch {
	case in.reply != nil:
		return s.write(in.reply)
	case in.later != nil:
		go func() { _ = s.write(in.later(s.done)) }()
		return nil
	case in.listen != nil:
		stop := make(chan struct{})
		key := string(in.listen.id)
		s.mu.Lock()
		if old := s.listens[key]; old != nil {
			close(old)
		}
		s.listens[key] = stop
		s.mu.Unlock()
		go s.m.serveListen(in.listen, s.write, stop)
		return nil
	}
	if in.cancels != nil {
		s.mu.Lock()
		stop := s.listens[string(in.cancels)]
		delete(s.listens, string(in.cancels))
		s.mu.Unlock()
		if stop != nil {
			close(stop)
			if err := s.write(listenEnd(in.cancels)); err != nil {
				return err
			}
			return nil
		}
	}
	if in.discover && in.id != nil {
		s.mu.Lock()
		s.discover[string(in.id)] = true
		s.mu.Unlock()
	}
	if in.pass == nil {
		return nil
	}
	msg := in.pass
	if !bytes.HasSuffix(msg, []byte("\n")) {
		msg = append(msg[:len(msg):len(msg)], '\n')
	}
	_, err := pw.Write(msg)
	return err
}

// stdioWriter is the stdout mcp-go writes to: one message per Write
// (mcp-go writes each with one Fprintf).
type stdioWriter struct{ s *stdio }

func (w *stdioWriter) Write(p []byte) (int, error) {
	msg := bytes.TrimRight(p, "\n")
	discover := false
	if bytes.Contains(msg, []byte(`"capabilities"`)) {
		var r struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(msg, &r) == nil && r.ID != nil {
			w.s.mu.Lock()
			discover = w.s.discover[string(r.ID)]
			delete(w.s.discover, string(r.ID))
			w.s.mu.Unlock()
		}
	}
	if err := w.s.write(w.s.m.outbound(msg, discover, w.s.scope)); err != nil {
		return 0, err
	}
	return len(p), nil
}
