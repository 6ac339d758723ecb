package view

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"
)

func TestScrolled(t *testing.T) {
	for _, c := range []struct {
		name      string
		prev, cur []string
		want      int
	}{
		{"unchanged", []string{"a", "b", "c", "d"}, []string{"a", "b", "c", "d"}, 0},
		{"one line up", []string{"a", "b", "c", "d", ""}, []string{"b", "c", "d", "e", ""}, 1},
		{"two lines up, cursor line written", []string{"a", "b", "c", "d", "$ "}, []string{"c", "d", "$ e", "f", "$ "}, 2},
		{"a row changed in place", []string{"a", "b", "c", "d"}, []string{"a", "x", "c", "d"}, 0},
		{"blank screen", []string{"", "", "", ""}, []string{"", "", "", ""}, 0},
		{"everything new", []string{"a", "b", "c", "d"}, []string{"w", "x", "y", "z"}, 0},
		{"sizes differ", []string{"a", "b"}, []string{"a", "b", "c"}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := scrolled(c.prev, c.cur); got != c.want {
				t.Errorf("scrolled(%q, %q) = %d, want %d", c.prev, c.cur, got, c.want)
			}
		})
	}
}

// sameOverview is a Source whose overview is the same until changed; it
// has no panes.
type sameOverview struct {
	mu    sync.Mutex
	reads int
	name  string
}

func (s *sameOverview) Overview(context.Context) (Overview, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reads++
	return Overview{Servers: []Server{{Key: "k", Name: s.name}}}, nil
}
func (s *sameOverview) Screen(context.Context, string, string) (Screen, error) { return Screen{}, nil }
func (s *sameOverview) Changes(context.Context, string, string) (<-chan struct{}, func(), error) {
	return nil, nil, errors.New("no panes")
}

// readsPast waits until the overview was read more than n times.
func (s *sameOverview) readsPast(t *testing.T, n int) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s.mu.Lock()
		r := s.reads
		s.mu.Unlock()
		if r > n {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("the overview was read %d times, want more than %d", r, n)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestOverviewSentWhenChanged: an overview read again unchanged is not
// sent again; a changed one is.
func TestOverviewSentWhenChanged(t *testing.T) {
	src := &sameOverview{name: "a"}
	h := NewHub(src, Options{OverviewInterval: time.Millisecond, Linger: time.Millisecond})
	c := h.join()
	defer func() { h.leave(c); h.close() }()
	// Each read but the last has been sent, or not, when the next one
	// starts.
	src.readsPast(t, 5)
	if got := len(c.ch); got != 1 {
		t.Fatalf("%d messages after 5 reads of one overview, want 1", got)
	}
	// It carries what the page reads, no time of its own.
	msg := <-c.ch
	data, ok := bytes.CutPrefix(bytes.TrimSpace(msg), []byte("event: overview\ndata: "))
	var fields map[string]json.RawMessage
	if !ok || json.Unmarshal(data, &fields) != nil {
		t.Fatalf("message %q: want an overview event", msg)
	}
	if _, ok := fields["time"]; ok {
		t.Errorf("the overview holds a time, which the page never reads: %s", data)
	}
	src.mu.Lock()
	src.name = "b"
	n := src.reads
	src.mu.Unlock()
	src.readsPast(t, n+1)
	if got := len(c.ch); got != 1 {
		t.Errorf("%d messages after the overview changed, want 1", got)
	}
}
