package capture

import (
	"bytes"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Plan is what a capture asks tmux for, and how its result is cut.
type Plan struct {
	// Start and End are capture-pane's -S and -E ("" for tmux's default:
	// the top and the bottom of the visible screen). Start is never "-":
	// the whole history never reaches tmux uncapped.
	Start, End string
	// MaxLines and MaxBytes cap the result; TruncateTail applies them.
	MaxLines, MaxBytes int
	// Narrowed: the requested range was moved so that tmux is asked for no
	// more than MaxLines lines (the tail is kept).
	Narrowed bool
}

// Limits are the capture caps: the defaults a request gets (Lines,
// Bytes) and the ceilings it may raise them to (MaxLines, MaxBytes).
type Limits struct {
	Lines, Bytes       int
	MaxLines, MaxBytes int
}

// NewPlan turns a request into capture-pane's range and the caps to
// apply to its result. It is pure. cfg must have its defaults filled in.
// FullHistory overrides Start.
//
// Lines are numbered as capture-pane numbers them: 0 is the top visible
// line, negative numbers are history. paneHeight is the pane's height when
// the caller knows it (from list-panes or a probe), or 0. tmux is asked for
// at most MaxLines lines ending where the request ends; when the bottom is
// not known (no End and no paneHeight), the start is held to MaxLines
// lines above the top of the screen and TruncateTail removes the excess.
func NewPlan(req Request, cfg Limits, paneHeight int) (Plan, error) {
	p := Plan{MaxLines: cfg.Lines, MaxBytes: cfg.Bytes}
	switch {
	case req.MaxLines < 0:
		return Plan{}, fmt.Errorf("max_lines must be positive, got %d", req.MaxLines)
	case req.MaxLines > cfg.MaxLines:
		return Plan{}, fmt.Errorf("max_lines %d is above the ceiling of %d lines", req.MaxLines, cfg.MaxLines)
	case req.MaxLines > 0:
		p.MaxLines = req.MaxLines
	}
	switch {
	case req.MaxBytes < 0:
		return Plan{}, fmt.Errorf("max_bytes must be positive, got %d", req.MaxBytes)
	case req.MaxBytes > cfg.MaxBytes:
		return Plan{}, fmt.Errorf("max_bytes %d is above the ceiling of %d bytes", req.MaxBytes, cfg.MaxBytes)
	case req.MaxBytes > 0:
		p.MaxBytes = req.MaxBytes
	}
	if !req.FullHistory && req.Start != nil && req.End != nil && *req.Start > *req.End {
		return Plan{}, fmt.Errorf("start (%d) is after end (%d)", *req.Start, *req.End)
	}

	// The bottom of the range, if known.
	bottom, bottomKnown := 0, false
	switch {
	case req.End != nil:
		bottom, bottomKnown = *req.End, true
		if paneHeight > 0 {
			bottom = min(bottom, paneHeight-1) // tmux clamps -E to the screen
		}
		p.End = strconv.Itoa(*req.End)
	case paneHeight > 0:
		bottom, bottomKnown = paneHeight-1, true
	}

	// The top: as asked, or the screen's top; the whole history is "as far
	// back as the cap allows".
	lowest := -p.MaxLines // unknown bottom: at most MaxLines above the screen
	if bottomKnown {
		lowest = bottom - p.MaxLines + 1
	}
	switch {
	case req.FullHistory:
		p.Start = strconv.Itoa(lowest)
		p.Narrowed = true
	case req.Start != nil && *req.Start < lowest:
		p.Start = strconv.Itoa(lowest)
		p.Narrowed = true
	case req.Start != nil:
		p.Start = strconv.Itoa(*req.Start)
	case bottomKnown && lowest > 0:
		// No start: the screen's top, unless the screen alone is longer
		// than the cap.
		p.Start = strconv.Itoa(lowest)
		p.Narrowed = true
	}
	return p, nil
}

// TruncateTail keeps the last maxLines lines of content and at most
// maxBytes bytes of them (0 or less: no cap). A byte cut falls on a line
// boundary when one is within the kept bytes, otherwise on a UTF-8
// character boundary, so the result is never invalid UTF-8 that the input
// did not already contain. out shares content's memory.
//
// Lines end with "\n" as capture-pane prints them; a last line without one
// still counts. droppedLines counts lines dropped whole; a line cut in the
// middle counts as kept.
func TruncateTail(content []byte, maxLines, maxBytes int) (out []byte, droppedLines, droppedBytes int) {
	out = content
	if maxLines > 0 {
		out = lastLines(out, maxLines)
	}
	if maxBytes > 0 && len(out) > maxBytes {
		out = lastBytes(out, maxBytes)
	}
	return out, countLines(content) - countLines(out), len(content) - len(out)
}

// lastLines returns the suffix of b holding its last n lines.
func lastLines(b []byte, n int) []byte {
	end := len(b)
	if end > 0 && b[end-1] == '\n' {
		end-- // the final line's own terminator
	}
	for i := 0; i < n; i++ {
		j := bytes.LastIndexByte(b[:end], '\n')
		if j < 0 {
			return b
		}
		if i == n-1 {
			return b[j+1:]
		}
		end = j
	}
	return b
}

// lastBytes returns a suffix of b of at most n bytes, starting at a line
// start if the suffix holds one, else at a UTF-8 character start.
func lastBytes(b []byte, n int) []byte {
	cut := len(b) - n
	// A line starts at cut if the byte before it ends a line.
	if b[cut-1] == '\n' {
		return b[cut:]
	}
	tail := b[cut:]
	body := tail
	if len(body) > 0 && body[len(body)-1] == '\n' {
		body = body[:len(body)-1]
	}
	if i := bytes.IndexByte(body, '\n'); i >= 0 {
		return tail[i+1:]
	}
	for len(tail) > 0 && !utf8.RuneStart(tail[0]) {
		tail = tail[1:]
	}
	return tail
}

// countLines counts lines as capture-pane prints them.
func countLines(b []byte) int {
	n := bytes.Count(b, []byte{'\n'})
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}

// Key is the cache key of req captured as planned.
func (plan Plan) Key(req Request) Key {
	return Key{pane: req.Pane, start: plan.Start, end: plan.End, join: req.Join, escape: req.Escape,
		maxLines: plan.MaxLines, maxBytes: plan.MaxBytes}
}
