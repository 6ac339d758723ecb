package view

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"net/http"
	"strings"
	"time"
)

// Handler serves the view under /view/: the page, the sign-in page
// (/view/login) and their assets, which hold no data, and the data: the
// event stream (/view/stream) and, when Options.Input is set and the
// Source types, the input (/view/input). It authenticates nothing: the
// HTTP server mounts it behind its Origin checks and its credentials,
// and answers the sign-in's POST itself.
type Handler struct {
	hub   *Hub
	typer Typist
	mux   *http.ServeMux
}

// heartbeat keeps an idle stream visibly alive (and proxies from closing
// it).
const heartbeat = 15 * time.Second

// NewHandler returns the view's handler over src.
func NewHandler(src Source, o Options) *Handler {
	o = o.withDefaults()
	h := &Handler{hub: NewHub(src, o), mux: http.NewServeMux()}
	if t, ok := src.(Typist); ok && o.Input {
		h.typer = t
	}
	assets, _ := fs.Sub(assetFS, "assets")
	h.mux.HandleFunc("GET /view/{$}", page("assets/index.html"))
	h.mux.HandleFunc("GET /view/login", page("assets/login.html"))
	h.mux.Handle("GET /view/assets/", http.StripPrefix("/view/assets/", noDirs(http.FileServerFS(assets))))
	h.mux.HandleFunc("GET /view/stream", h.stream)
	h.mux.HandleFunc("POST /view/input", h.input)
	h.mux.HandleFunc("/view/", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "Not Found: the view is at /view/", http.StatusNotFound)
	})
	return h
}

// Close ends the event streams, so that the HTTP server's shutdown is not
// held by a browser that watches.
func (h *Handler) Close() { h.hub.close() }

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	secureHeaders(w.Header())
	h.mux.ServeHTTP(w, r)
}

// secureHeaders keep the page to its own scripts and out of other sites'
// frames.
func secureHeaders(hd http.Header) {
	hd.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "+
		"connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("Cache-Control", "no-store")
}

// noDirs refuses directory listings of the assets.
func noDirs(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "" || strings.HasSuffix(r.URL.Path, "/") {
			http.NotFound(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// page serves one of the HTML pages.
func page(name string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b, err := assetFS.ReadFile(name)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(b) //nolint:errcheck // the browser went away
	}
}

// stream sends the overview and the frames as server-sent events until
// the browser leaves or falls too far behind.
func (h *Handler) stream(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("X-Accel-Buffering", "no")
	c := h.hub.join()
	defer h.hub.leave(c)
	rc := http.NewResponseController(w)
	if _, err := w.Write([]byte("retry: 1000\n\n")); err != nil {
		return
	}
	fl.Flush()
	beat := time.NewTicker(heartbeat)
	defer beat.Stop()
	for {
		var msg []byte
		select {
		case <-r.Context().Done():
			return
		case <-beat.C:
			msg = []byte(": beat\n\n")
		case m, ok := <-c.ch:
			if !ok {
				return
			}
			msg = m
		}
		rc.SetWriteDeadline(time.Now().Add(10 * time.Second)) //nolint:errcheck // best effort
		if _, err := w.Write(msg); err != nil {
			return
		}
		// Write what else is queued before flushing: one packet for a burst.
		for more := true; more; {
			select {
			case m, ok := <-c.ch:
				if !ok {
					fl.Flush()
					return
				}
				if _, err := w.Write(m); err != nil {
					return
				}
			default:
				more = false
			}
		}
		fl.Flush()
	}
}

// inputRequest is what the page posts to type into a pane.
type inputRequest struct {
	Server string `json:"server"`
	Pane   string `json:"pane"`
	Text   string `json:"text"`
	Enter  bool   `json:"enter"`
}

// maxInput bounds one input: a line or a short paste.
const maxInput = 4096

// input types the posted text into a pane, when the view may.
func (h *Handler) input(w http.ResponseWriter, r *http.Request) {
	if h.typer == nil {
		http.Error(w, "Forbidden: this view is read-only; typing from the page needs --view-input and --safety destructive",
			http.StatusForbidden)
		return
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		// A form post from another page cannot set this type without a
		// CORS preflight, which nothing here answers.
		http.Error(w, "Unsupported Media Type: post application/json", http.StatusUnsupportedMediaType)
		return
	}
	var in inputRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxInput+512)).Decode(&in); err != nil {
		http.Error(w, "Bad Request: want {\"server\", \"pane\", \"text\", \"enter\"}", http.StatusBadRequest)
		return
	}
	if in.Server == "" || in.Pane == "" || len(in.Text) > maxInput {
		http.Error(w, "Bad Request: server and pane are required; text at most 4096 bytes", http.StatusBadRequest)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
	defer cancel()
	if err := h.typer.Type(ctx, in.Server, in.Pane, in.Text, in.Enter); err != nil {
		status := http.StatusBadGateway
		if errors.Is(err, context.DeadlineExceeded) {
			status = http.StatusGatewayTimeout
		}
		http.Error(w, err.Error(), status)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
