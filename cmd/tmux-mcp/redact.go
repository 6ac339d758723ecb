package main

import (
	"bytes"
	"io"

	"github.com/tmux-mcp/tmux-mcp/hosts"
)

// redactingWriter writes through hosts.Redact: what tmux-mcp prints to
// its stderr (a refused --host value that the flag package echoes, an
// unexpected argument, a log line) never shows the password of a URL.
type redactingWriter struct{ w io.Writer }

func (r redactingWriter) Write(p []byte) (int, error) {
	if !bytes.ContainsRune(p, '@') {
		return r.w.Write(p)
	}
	if _, err := io.WriteString(r.w, hosts.Redact(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
