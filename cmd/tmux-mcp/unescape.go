package main

import (
	"bytes"
	"io"
	"sync"
)

// mcp-go encodes each stdio frame with json.Marshal, which writes <, >
// and & inside strings as \u003c, \u003e and \u0026. The text is the same
// once decoded, but a person reading the wire (a client's log, a trace)
// and a client that shows raw structured content read escapes where the
// pane printed `a && b -> <div>`. unescapeWriter puts the three
// characters back, in strings only, before a frame reaches stdout. The
// results themselves are encoded without the escapes (mcpserver/jsonenc.go).

// unescapeWriter passes whole lines (one JSON-RPC frame each) to w with
// \u003c, \u003e and \u0026 written as <, > and &. A frame's bytes are
// held until its newline: mcp-go writes a frame and its newline at once.
type unescapeWriter struct {
	mu      sync.Mutex
	w       io.Writer
	pending []byte
}

func newUnescapeWriter(w io.Writer) *unescapeWriter { return &unescapeWriter{w: w} }

func (u *unescapeWriter) Write(p []byte) (int, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.pending = append(u.pending, p...)
	end := bytes.LastIndexByte(u.pending, '\n')
	if end < 0 {
		return len(p), nil
	}
	out := unescapeHTML(u.pending[:end+1])
	u.pending = append(u.pending[:0], u.pending[end+1:]...)
	if _, err := u.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// unescapeHTML rewrites the HTML escapes json.Marshal adds inside the
// strings of the JSON text b. An escaped backslash (\\u003c is the text
// `\u003c`) is left as it is; so is everything outside strings.
func unescapeHTML(b []byte) []byte {
	if !bytes.Contains(b, []byte(`\u00`)) {
		return b
	}
	out := make([]byte, 0, len(b))
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '"':
			inString = !inString
		case c == '\\' && inString && i+1 < len(b):
			if r, ok := htmlEscape(b[i:]); ok {
				out = append(out, r)
				i += 5
				continue
			}
			out = append(out, c, b[i+1])
			i++
			continue
		}
		out = append(out, c)
	}
	return out
}

// htmlEscape returns the character b begins with an escape of, if it is
// one of json.Marshal's HTML escapes.
func htmlEscape(b []byte) (byte, bool) {
	if len(b) < 6 || b[1] != 'u' || string(b[2:4]) != "00" {
		return 0, false
	}
	switch string(b[4:6]) {
	case "3c", "3C":
		return '<', true
	case "3e", "3E":
		return '>', true
	case "26":
		return '&', true
	}
	return 0, false
}
