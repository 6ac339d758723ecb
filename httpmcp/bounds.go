package httpmcp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"
)

// Defaults of the settings that bound what HTTP clients can make tmux-mcp
// hold: a body, a slow client, a connection, a session. Each is the
// default of the Options field of its name.
const (
	DefaultMaxBody           = 4 << 20
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultReadTimeout       = 30 * time.Second
	DefaultIdleTimeout       = 2 * time.Minute
	DefaultMaxConns          = 256
	DefaultMaxSessions       = 64
	DefaultSessionTTL        = time.Hour
)

// limitBody reads a request's body whole before the handler sees it, and
// answers 413 to one over limit bytes: at once when Content-Length says
// so, else as soon as limit is passed, so no more than that is ever held.
// A client that sends its body slower than the server's ReadTimeout gets
// 408 (net/http lifts that deadline itself once the body is read, so a
// reply may take longer: a tool call that waits, the notification
// stream).
func limitBody(limit int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > limit {
			tooLarge(w, limit)
			return
		}
		if r.Body != nil && r.Body != http.NoBody {
			var buf bytes.Buffer
			if r.ContentLength > 0 {
				buf.Grow(int(r.ContentLength))
			}
			_, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, limit))
			var big *http.MaxBytesError
			switch {
			case errors.As(err, &big):
				tooLarge(w, limit)
				return
			case errors.Is(err, os.ErrDeadlineExceeded):
				w.Header().Set("Connection", "close")
				http.Error(w, "Request Timeout: the body came too slowly (--http-read-timeout)", http.StatusRequestTimeout)
				return
			case err != nil:
				w.Header().Set("Connection", "close")
				http.Error(w, "Bad Request: reading the body: "+err.Error(), http.StatusBadRequest)
				return
			}
			r.Body = io.NopCloser(&buf)
		}
		next.ServeHTTP(w, r)
	})
}

func tooLarge(w http.ResponseWriter, limit int64) {
	w.Header().Set("Connection", "close")
	http.Error(w, fmt.Sprintf("Request Entity Too Large: bodies are limited to %d bytes (--http-max-body)", limit),
		http.StatusRequestEntityTooLarge)
}

// limitConns lets at most limit connections of ln be open at once. One
// more is answered 503 Service Unavailable and closed at once, rather
// than left to wait in the accept queue behind the ones that hold the
// slots.
func limitConns(ln net.Listener, limit int) net.Listener {
	return &connLimiter{Listener: ln, slots: make(chan struct{}, limit)}
}

type connLimiter struct {
	net.Listener
	slots chan struct{}
}

// refusal is the whole answer to a connection over the limit.
var refusal = func() string {
	body := "Service Unavailable: too many connections (--http-max-conns)\n"
	return "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\n" +
		"Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
}()

func (l *connLimiter) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		select {
		case l.slots <- struct{}{}:
			return &limitedConn{Conn: c, release: func() { <-l.slots }}, nil
		default:
			// A few bytes into a new connection's empty send buffer do
			// not block; the deadline covers the case where they would.
			_ = c.SetWriteDeadline(time.Now().Add(time.Second))
			_, _ = io.WriteString(c, refusal)
			_ = c.Close()
		}
	}
}

// limitedConn gives its slot back when closed, once however often
// net/http closes it.
type limitedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
