package capture

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

func TestCoalescerNeverServesARunThatBeganBeforeTheCaller(t *testing.T) {
	var c Coalescer[string, int64]
	var clock atomic.Int64
	f := func() (int64, error) {
		begun := clock.Add(1)
		time.Sleep(time.Millisecond) // a run takes a while; others arrive meanwhile
		return begun, nil
	}
	var wg sync.WaitGroup
	for g := 0; g < 16; g++ {
		wg.Go(func() {
			for i := 0; i < 50; i++ {
				arrived := clock.Add(1)
				begun, err := c.Do(context.Background(), "k", false, f)
				if err != nil {
					t.Error(err)
					return
				}
				if begun < arrived {
					t.Errorf("got a run that began at %d, before the caller arrived at %d", begun, arrived)
				}
			}
		})
	}
	wg.Wait()
	// The last run lets go of its key just after its callers got their
	// result.
	tmuxtest.WaitFor(t, 5*time.Second, "no key in flight", func() bool { return c.inflight() == 0 })
}

// burst starts n callers while a first run is held in flight and returns
// how many runs served them all.
func burst(t *testing.T, join bool, n int) int {
	t.Helper()
	var c Coalescer[string, int]
	var runs atomic.Int32
	release := make(chan struct{})
	f := func() (int, error) {
		runs.Add(1)
		<-release
		return 1, nil
	}
	var wg sync.WaitGroup
	first := make(chan struct{})
	wg.Go(func() {
		close(first)
		c.Do(context.Background(), "k", join, f) //nolint:errcheck
	})
	<-first
	tmuxtest.WaitFor(t, 5*time.Second, "the first run", func() bool { return runs.Load() == 1 })
	for i := 0; i < n; i++ {
		wg.Go(func() {
			if _, err := c.Do(context.Background(), "k", join, f); err != nil {
				t.Error(err)
			}
		})
	}
	tmuxtest.WaitFor(t, 5*time.Second, "the callers to wait", func() bool { return c.waiting.Load() == int32(n+1) })
	close(release)
	wg.Wait()
	return int(runs.Load())
}

func TestCoalescerBurst(t *testing.T) {
	tests := []struct {
		name string
		join bool
		want int
	}{
		{"late callers wait for one more run", false, 2},
		{"late callers join the run in flight", true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := burst(t, tt.join, 40); got != tt.want {
				t.Errorf("runs for a first caller and 40 during its run = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestCoalescerCallerDeadlineLeavesTheRunToOthers(t *testing.T) {
	var c Coalescer[string, string]
	release := make(chan struct{})
	f := func() (string, error) {
		<-release
		return "done", nil
	}
	patient := make(chan string, 1)
	go func() {
		v, _ := c.Do(context.Background(), "k", true, f)
		patient <- v
	}()
	tmuxtest.WaitFor(t, 5*time.Second, "a run in flight", func() bool { return c.inflight() == 1 })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := c.Do(ctx, "k", true, f); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("impatient caller: got %v, want DeadlineExceeded", err)
	}
	close(release)
	if got := <-patient; got != "done" {
		t.Errorf("patient caller got %q, want done", got)
	}
}

func TestCoalescerRecoversAPanic(t *testing.T) {
	var c Coalescer[string, int]
	_, err := c.Do(context.Background(), "k", false, func() (int, error) { panic("boom") })
	if err == nil {
		t.Fatal("a panicking run returned no error")
	}
	got, err := c.Do(context.Background(), "k", false, func() (int, error) { return 7, nil })
	if err != nil || got != 7 {
		t.Errorf("after a panic: got %d, %v; want 7, nil", got, err)
	}
}
