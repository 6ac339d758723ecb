package hosts

import (
	"errors"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func TestReconnectPolicyDefaults(t *testing.T) {
	got := reconnectPolicy{}.withDefaults()
	want := reconnectPolicy{Min: 200 * time.Millisecond, Max: 15 * time.Second, Multiplier: 1.5, StableAfter: 2 * time.Second}
	if got != want {
		t.Errorf("reconnectPolicy{}.withDefaults() = %+v, want %+v", got, want)
	}
	set := reconnectPolicy{Min: time.Second, Max: 3 * time.Second, Multiplier: 2, StableAfter: time.Minute}
	if got := set.withDefaults(); got != set {
		t.Errorf("withDefaults changed explicit fields: got %+v, want %+v", got, set)
	}
	// The options the link is made with.
	if got, want := (Options{}).reconnectPolicy().withDefaults(), want; got != want {
		t.Errorf("Options{}'s policy = %+v, want %+v", got, want)
	}
	if got := (Options{RetryMin: time.Second, RetryMax: time.Minute}).reconnectPolicy(); got.Min != time.Second || got.Max != time.Minute {
		t.Errorf("RetryMin 1s, RetryMax 1m: policy %+v", got)
	}
}

// step is one event of a link's life and, for a down, the decision
// wanted.
type step struct {
	at     time.Duration // since t0
	up     bool          // a connection was made; else it ended, or the attempt failed
	err    string
	wait   time.Duration
	repeat bool
	reason string // in the decision's reason
}

func TestReconnectDecisions(t *testing.T) {
	const ms = time.Millisecond
	tests := []struct {
		name  string
		steps []step
	}{
		{"attempts that fail back off, growing by half to the cap", []step{
			{at: 0, err: "refused", wait: 200 * ms, reason: "the attempt failed: backing off, failure 1, 200ms"},
			{at: 1 * time.Second, err: "refused", wait: 300 * ms, repeat: true, reason: "failure 2"},
			{at: 2 * time.Second, err: "refused", wait: 450 * ms, repeat: true},
			{at: 3 * time.Second, err: "refused", wait: 675 * ms, repeat: true},
			{at: 4 * time.Second, err: "refused", wait: 1012500 * time.Microsecond, repeat: true},
			{at: 5 * time.Second, err: "refused", wait: 1518750 * time.Microsecond, repeat: true},
		}},
		{"the cap holds", waits("refused",
			200*ms, 300*ms, 450*ms, 675*ms, 1012500*time.Microsecond, 1518750*time.Microsecond,
			2278125*time.Microsecond, 3417187500, 5125781250, 7688671875, 11533007812,
			15*time.Second, 15*time.Second)},
		{"a connection that served more than 2s is retried at once", []step{
			{at: 0, up: true},
			{at: time.Minute, err: "ssh exited", wait: 0, reason: "the connection served 1m0s (more than 2s): at once"},
			// The next attempt failing backs off from the start.
			{at: time.Minute + 100*ms, err: "refused", wait: 200 * ms, reason: "the attempt failed"},
			{at: time.Minute + 400*ms, err: "refused", wait: 300 * ms, repeat: true},
		}},
		{"2s is not more than 2s", []step{
			{at: 0, up: true},
			{at: 2 * time.Second, err: "ssh exited", wait: 200 * ms, reason: "the connection ended after 2s (not more than 2s): backing off, failure 1, 200ms"},
		}},
		{"a moment more than 2s is", []step{
			{at: 0, up: true},
			{at: 2*time.Second + time.Nanosecond, err: "ssh exited", wait: 0},
		}},
		{"a connection lost at once backs off, from the start at each connection made", []step{
			{at: 0, err: "refused", wait: 200 * ms},
			{at: 300 * ms, err: "refused", wait: 300 * ms, repeat: true},
			{at: 700 * ms, err: "refused", wait: 450 * ms, repeat: true},
			{at: 1200 * ms, up: true},
			{at: 1700 * ms, err: "first ping: timeout", wait: 200 * ms, reason: "the connection ended after 500ms"},
			{at: 2000 * ms, up: true},
			{at: 2500 * ms, err: "first ping: timeout", wait: 200 * ms},
		}},
		{"the same failure again is not news until the link was up", []step{
			{at: 0, err: "refused", wait: 200 * ms},
			{at: time.Second, err: "refused", wait: 300 * ms, repeat: true},
			{at: 2 * time.Second, err: "no route", wait: 450 * ms},
			{at: 3 * time.Second, err: "refused", wait: 675 * ms},
			{at: 4 * time.Second, up: true},
			{at: time.Minute, err: "refused", wait: 0},
			{at: time.Minute + time.Second, err: "refused", wait: 200 * ms, repeat: true},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newReconnects(reconnectPolicy{}, 0)
			for i, s := range tt.steps {
				now := t0.Add(s.at)
				if s.up {
					r.up(now)
					continue
				}
				got := r.down(now, errors.New(s.err))
				if got.Wait != s.wait || got.Repeat != s.repeat || !strings.Contains(got.Reason, s.reason) {
					t.Errorf("step %d (%s at %v): got wait %v repeat %v reason %q, want wait %v repeat %v reason with %q",
						i, s.err, s.at, got.Wait, got.Repeat, got.Reason, s.wait, s.repeat, s.reason)
				}
			}
		})
	}
}

// waits is failed attempts a second apart, of err, with the waits
// wanted (every one after the first a repeat).
func waits(err string, want ...time.Duration) []step {
	var out []step
	for i, w := range want {
		out = append(out, step{at: time.Duration(i) * time.Second, err: err, wait: w, repeat: i > 0})
	}
	return out
}

// TestReconnectCap: the policy's fields shape the waits.
func TestReconnectCap(t *testing.T) {
	r := newReconnects(reconnectPolicy{Min: time.Second, Max: 5 * time.Second, Multiplier: 2}, 0)
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second}
	for i, w := range want {
		if got := r.down(t0.Add(time.Duration(i)*time.Minute), errors.New("refused")).Wait; got != w {
			t.Errorf("failure %d: wait %v, want %v", i+1, got, w)
		}
	}
}

// TestReconnectJitter: with the links' jitter each wait is within 25% of
// the unjittered one, at the first wait and at the cap.
func TestReconnectJitter(t *testing.T) {
	for _, tt := range []struct {
		name     string
		failures int
		base     time.Duration
	}{
		{"first wait", 1, 200 * time.Millisecond},
		{"at the cap", 20, 15 * time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			lo, hi := tt.base*3/4, tt.base*5/4
			spread := false
			for range 200 {
				r := newReconnects(reconnectPolicy{}, reconnectJitter)
				var got time.Duration
				for i := range tt.failures {
					got = r.down(t0.Add(time.Duration(i)*time.Minute), errors.New("refused")).Wait
				}
				if got < lo || got > hi {
					t.Fatalf("jittered wait %v, want within 25%% of %v", got, tt.base)
				}
				spread = spread || got != tt.base
			}
			if !spread {
				t.Errorf("200 jittered waits were all %v: no jitter", tt.base)
			}
		})
	}
}
