package taskext

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
)

// HTTP wraps the streamable HTTP handler next (mcp-go's) with the layer:
// a POST that is one of the extension's requests is answered here (a
// task subscription as an event stream), and mcp-go's answer to the
// others is rewritten on its way out. It reads the body of each POST, so
// it belongs inside whatever bounds the body.
func (m *Manager) HTTP(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		r.Body.Close() //nolint:errcheck // read whole
		if err != nil {
			// The bound was hit or the client went away; mcp-go tells.
			r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), errReader{err}))
			next.ServeHTTP(w, r)
			return
		}
		o := httpOwner(r.Header)
		in := m.inbound(r.Context(), bytes.TrimSpace(body), r.Header, o)
		switch {
		case in.reply != nil:
			writeJSON(w, in.reply)
			return
		case in.listen != nil:
			m.httpListen(w, r, in.listen)
			return
		case in.later != nil:
			writeJSON(w, in.later(r.Context().Done()))
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(in.pass))
		r.ContentLength = int64(len(in.pass))
		sc := newScope()
		r = r.WithContext(withOwner(withScope(r.Context(), sc), o))
		next.ServeHTTP(&rewriter{ResponseWriter: w, m: m, discover: in.discover, scope: sc}, r)
	})
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// writeJSON writes a JSON-RPC response, with the HTTP status 2026-07-28
// gives its error.
func writeJSON(w http.ResponseWriter, msg []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(httpStatus(msg))
	w.Write(append(msg, '\n')) //nolint:errcheck // the client went away
}

// httpStatus is the HTTP status 2026-07-28 gives a JSON-RPC response.
func httpStatus(msg []byte) int {
	if !bytes.Contains(msg, []byte(`"error"`)) {
		return http.StatusOK
	}
	var r struct {
		Result json.RawMessage `json:"result"`
		Error  *RPCError       `json:"error"`
	}
	if json.Unmarshal(bytes.TrimSpace(msg), &r) != nil || r.Error == nil || r.Result != nil {
		return http.StatusOK
	}
	switch r.Error.Code {
	case codeMethodNotFound:
		return http.StatusNotFound
	case codeHeaderMismatch, codeMissingClientCap, codeInvalidParams, mcp.INVALID_REQUEST, mcp.PARSE_ERROR:
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// httpListen serves a task subscription as an event stream until the
// client closes it.
func (m *Manager) httpListen(w http.ResponseWriter, r *http.Request, l *listenRequest) {
	flusher, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	write := func(msg []byte) error {
		if _, err := w.Write(sseEvent(msg)); err != nil {
			return err
		}
		if flusher != nil {
			flusher.Flush()
		}
		return nil
	}
	m.serveListen(l, write, r.Context().Done())
}

func sseEvent(msg []byte) []byte {
	var b bytes.Buffer
	b.WriteString("event: message\ndata: ")
	b.Write(msg)
	b.WriteString("\n\n")
	return b.Bytes()
}

// rewriter rewrites mcp-go's answer: a JSON body or events, each written
// with one Write. The status of a JSON body waits for the body: a tool's
// error that the layer turns into a JSON-RPC error has the HTTP status
// of that error.
type rewriter struct {
	http.ResponseWriter
	m        *Manager
	discover bool
	scope    *scope
	status   int // held until the first Write
}

func (w *rewriter) WriteHeader(code int) {
	if code == http.StatusOK && w.Header().Get("Content-Type") == "application/json" && w.status == 0 {
		w.status = code
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *rewriter) Write(p []byte) (int, error) {
	if !w.discover && !bytes.Contains(p, []byte(w.m.placeholder)) &&
		!bytes.Contains(p, []byte(mcp.MethodNotificationSubscriptionsAcknowledged)) {
		w.flushStatus(http.StatusOK)
		return w.ResponseWriter.Write(p)
	}
	var out []byte
	if rest, ok := bytes.CutPrefix(p, []byte("event: ")); ok && bytes.Contains(rest, []byte("\ndata: ")) {
		var b bytes.Buffer
		for _, line := range strings.SplitAfter(string(p), "\n") {
			if data, ok := strings.CutPrefix(line, "data: "); ok {
				nl := strings.HasSuffix(data, "\n")
				b.WriteString("data: ")
				b.Write(w.m.outbound([]byte(strings.TrimSuffix(data, "\n")), w.discover, w.scope))
				if nl {
					b.WriteByte('\n')
				}
				continue
			}
			b.WriteString(line)
		}
		out = b.Bytes()
	} else {
		trimmed := bytes.TrimRight(p, "\n")
		out = append(w.m.outbound(trimmed, w.discover, w.scope), p[len(trimmed):]...)
	}
	w.flushStatus(httpStatus(out))
	if _, err := w.ResponseWriter.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// flushStatus writes the status held back, as code when the body is an
// error that has a status of its own.
func (w *rewriter) flushStatus(code int) {
	if w.status == 0 {
		return
	}
	w.status = 0
	w.ResponseWriter.WriteHeader(code)
}

// Flush passes on.
func (w *rewriter) Flush() {
	w.flushStatus(http.StatusOK)
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Hijack passes on.
func (w *rewriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	if h, ok := w.ResponseWriter.(http.Hijacker); ok {
		return h.Hijack()
	}
	return nil, nil, http.ErrNotSupported
}

// Unwrap gives http.ResponseController the writer below.
func (w *rewriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
