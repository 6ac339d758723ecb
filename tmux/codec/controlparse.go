package codec

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// This file is the control-mode block parser: pure, no I/O beyond the reader
// it is given. See reference/tmux-failure-modes.md §3.2 and §3.8.

// EventKind says what a parsed control-mode event is.
type EventKind int

// The kinds of event.
const (
	// EventBlock is a complete %begin ... %end/%error block.
	EventBlock EventKind = iota + 1
	// EventNotify is a notification line (outside a block, or
	// %pause/%continue inside one).
	EventNotify
	// EventExit is an %exit line outside a block: the client is leaving.
	EventExit
)

// Event is one thing the parser read.
type Event struct {
	Kind EventKind
	// Block fields (EventBlock).
	Header string // "<time> <number> <flags>" exactly as received
	Flags  string // the third header field: "1" for our own commands
	IsErr  bool   // the block ended with %error
	Body   []byte // the block's lines, each followed by "\n"
	// Line is the notification line without its newline (EventNotify), or
	// the %exit line (EventExit).
	Line []byte
	// Reason is the %exit reason (EventExit), "" when there is none.
	Reason string
}

// Parser splits a control client's stdout into blocks and notifications.
// It holds no lock; one goroutine calls Next.
type Parser struct {
	r       *bufio.Reader
	line    []byte // scratch for lines longer than the reader's buffer
	inBlock bool
	hdr     []byte
	endLine []byte // "%end " + hdr
	errLine []byte // "%error " + hdr
	flags   string
	body    bytes.Buffer
	last    []byte // the block's last body line (for %exit mid-block)
}

// NewParser returns a parser of the control stream r.
func NewParser(r io.Reader) *Parser {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	return &Parser{r: br}
}

// ErrTruncated is returned by Next when the stream ends inside a block.
var ErrTruncated = errors.New("tmux: control stream ended inside a block")

// readLine returns the next line without its "\n" (or "\r\n" is NOT trimmed:
// tmux ends lines with "\n" only, and a "\r" may be pane data). The slice is
// valid until the next call. At EOF it returns the unterminated tail, if any,
// with io.EOF.
func (p *Parser) readLine() ([]byte, error) {
	s, err := p.r.ReadSlice('\n')
	if err == nil {
		return s[:len(s)-1], nil
	}
	if !errors.Is(err, bufio.ErrBufferFull) {
		return s, err
	}
	p.line = append(p.line[:0], s...)
	for {
		s, err = p.r.ReadSlice('\n')
		p.line = append(p.line, s...)
		switch {
		case err == nil:
			return p.line[:len(p.line)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return p.line, err
		}
	}
}

// Next returns the next event. At the end of the stream it returns io.EOF
// (or the read error); if the stream ended inside a block it returns
// ErrTruncated wrapped around the read error, and an %exit line that was the
// block's last line is reported as EventExit first.
func (p *Parser) Next() (Event, error) {
	for {
		line, err := p.readLine()
		if err != nil {
			if !p.inBlock && validExit(line) {
				// An unterminated last line: still report an %exit.
				return exitEvent(line), nil
			}
			if p.inBlock {
				if len(line) > 0 {
					p.last = append(p.last[:0], line...)
				}
				p.inBlock = false
				if bytes.HasPrefix(p.last, []byte("%exit")) && validExit(p.last) {
					ev := exitEvent(p.last)
					p.last = p.last[:0]
					return ev, nil
				}
				return Event{}, errors.Join(ErrTruncated, err)
			}
			return Event{}, err
		}
		if !p.inBlock {
			if ev, ok := p.outside(line); ok {
				return ev, nil
			}
			continue
		}
		if bytes.Equal(line, p.endLine) || bytes.Equal(line, p.errLine) {
			ev := Event{
				Kind:   EventBlock,
				Header: string(p.hdr),
				Flags:  p.flags,
				IsErr:  line[1] == 'e' && line[2] == 'r',
				Body:   bytes.Clone(p.body.Bytes()),
			}
			if ev.Body == nil {
				ev.Body = []byte{}
			}
			p.inBlock = false
			p.body.Reset()
			p.last = p.last[:0]
			return ev, nil
		}
		if isFlowNotification(line) {
			return Event{Kind: EventNotify, Line: bytes.Clone(line)}, nil
		}
		p.body.Write(line)
		p.body.WriteByte('\n')
		p.last = append(p.last[:0], line...)
	}
}

// outside handles a line read outside a block. It reports false for lines
// that produce no event (blank or non-% noise).
func (p *Parser) outside(line []byte) (Event, bool) {
	if hdr, ok := bytes.CutPrefix(line, []byte("%begin ")); ok {
		if flags, ok := blockFlags(hdr); ok {
			p.inBlock = true
			p.hdr = append(p.hdr[:0], hdr...)
			p.endLine = append(append(p.endLine[:0], "%end "...), hdr...)
			p.errLine = append(append(p.errLine[:0], "%error "...), hdr...)
			p.flags = flags
			p.body.Reset()
			p.last = p.last[:0]
			return Event{}, false
		}
	}
	if validExit(line) {
		return exitEvent(line), true
	}
	if len(line) > 0 && line[0] == '%' {
		return Event{Kind: EventNotify, Line: bytes.Clone(line)}, true
	}
	// Not protocol: tmux never writes such a line outside a block. Ignore.
	return Event{}, false
}

// validExit reports whether line is "%exit" or "%exit <reason>".
func validExit(line []byte) bool {
	return bytes.Equal(line, []byte("%exit")) || bytes.HasPrefix(line, []byte("%exit "))
}

func exitEvent(line []byte) Event {
	reason, _ := bytes.CutPrefix(line, []byte("%exit"))
	reason = bytes.TrimPrefix(reason, []byte(" "))
	return Event{Kind: EventExit, Line: bytes.Clone(line), Reason: string(reason)}
}

// blockFlags checks a %begin header "<time> <number> <flags>" (three fields
// of digits; tmux writes "%ld %u %d") and returns the flags field.
func blockFlags(hdr []byte) (string, bool) {
	fields := bytes.Split(hdr, []byte(" "))
	if len(fields) != 3 {
		return "", false
	}
	for i, f := range fields {
		if len(f) == 0 {
			return "", false
		}
		for j, c := range f {
			if c == '-' && j == 0 && i == 2 && len(f) > 1 {
				continue
			}
			if c < '0' || c > '9' {
				return "", false
			}
		}
	}
	return string(fields[2]), true
}

// isFlowNotification reports whether line is exactly "%pause %<n>" or
// "%continue %<n>": tmux 3.3a prints these inside command blocks.
func isFlowNotification(line []byte) bool {
	rest, ok := bytes.CutPrefix(line, []byte("%pause %"))
	if !ok {
		rest, ok = bytes.CutPrefix(line, []byte("%continue %"))
	}
	return ok && isDigits(rest)
}

func isDigits(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
