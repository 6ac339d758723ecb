package death

import (
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func TestRestartPolicyDefaults(t *testing.T) {
	got := RestartPolicy{}.WithDefaults()
	want := RestartPolicy{MaxAttempts: 5, Initial: 200 * time.Millisecond, Max: 10 * time.Second,
		Multiplier: 2, StableAfter: 60 * time.Second, HungAfter: 10 * time.Second, BusyHungAfter: 60 * time.Second}
	if got != want {
		t.Errorf("RestartPolicy{}.WithDefaults() = %+v, want %+v", got, want)
	}
	set := RestartPolicy{MaxAttempts: 2, Initial: time.Second, Max: 3 * time.Second, Multiplier: 3,
		StableAfter: time.Minute, HungAfter: time.Second, BusyHungAfter: 2 * time.Second}
	if got := set.WithDefaults(); got != set {
		t.Errorf("withDefaults changed explicit fields: got %+v, want %+v", got, set)
	}
	// BusyHungAfter follows HungAfter, and is never shorter.
	if got := (RestartPolicy{HungAfter: time.Second}).WithDefaults().BusyHungAfter; got != 6*time.Second {
		t.Errorf("BusyHungAfter for HungAfter 1s = %v, want 6s", got)
	}
	if got := (RestartPolicy{HungAfter: time.Minute, BusyHungAfter: time.Second}).WithDefaults().BusyHungAfter; got != time.Minute {
		t.Errorf("BusyHungAfter 1s with HungAfter 1m = %v, want 1m", got)
	}
}

func TestDecideByCause(t *testing.T) {
	tests := []struct {
		cause   Cause
		want    Action
		attempt int
		delay   time.Duration
	}{
		{CauseKillServer, ActNone, 0, 0},
		{CauseLastSession, ActStartOnDemand, 0, 0},
		{CausePermission, ActGiveUp, 0, 0},
		{CauseVersionSkew, ActGiveUp, 0, 0},
		{CauseSocketDeleted, ActRecreateSocket, 1, 200 * time.Millisecond},
		{CauseHung, ActTerminate, 1, 200 * time.Millisecond},
		{CauseFDLivelock, ActTerminate, 1, 200 * time.Millisecond},
		{CauseKilled, ActRestart, 1, 200 * time.Millisecond},
		{CauseCrashed, ActRestart, 1, 200 * time.Millisecond},
		{CauseUnknown, ActRestart, 1, 200 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(string(tt.cause), func(t *testing.T) {
			tr := NewTracker(RestartPolicy{}, 0)
			got := tr.Decide(t0, tt.cause)
			if got.Action != tt.want || got.Attempt != tt.attempt || got.Delay != tt.delay {
				t.Errorf("decide(%s) = %v attempt %d delay %v, want %v attempt %d delay %v",
					tt.cause, got.Action, got.Attempt, got.Delay, tt.want, tt.attempt, tt.delay)
			}
			if got.Reason == "" {
				t.Errorf("decide(%s) has no reason", tt.cause)
			}
		})
	}
}

func TestDecideBackoffGrowsCapsAndGivesUp(t *testing.T) {
	tr := NewTracker(RestartPolicy{MaxAttempts: 6, Initial: time.Second, Max: 5 * time.Second}, 0)
	now := t0
	wantDelays := []time.Duration{1 * time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second, 5 * time.Second}
	for i, want := range wantDelays {
		got := tr.Decide(now, CauseCrashed)
		if got.Action != ActRestart || got.Delay != want || got.Attempt != i+1 || got.Max != 6 {
			t.Fatalf("death %d: got %v delay %v attempt %d/%d, want restart delay %v attempt %d/6",
				i+1, got.Action, got.Delay, got.Attempt, got.Max, want, i+1)
		}
		// The new server comes up briefly, then dies again.
		now = now.Add(got.Delay)
		tr.Up(now)
		now = now.Add(time.Second)
	}
	got := tr.Decide(now, CauseCrashed)
	if got.Action != ActGiveUp || got.Attempt != 6 {
		t.Errorf("after 6 attempts: got %v attempt %d, want give_up attempt 6", got.Action, got.Attempt)
	}
	// Deliberate kills are still honoured after giving up.
	if got := tr.Decide(now, CauseKillServer); got.Action != ActNone {
		t.Errorf("kill_server after giving up: got %v, want none", got.Action)
	}
	tr.Reset(now)
	if got := tr.Decide(now, CauseCrashed); got.Action != ActRestart || got.Attempt != 1 || got.Delay != time.Second {
		t.Errorf("after reset: got %v attempt %d delay %v, want restart attempt 1 delay 1s", got.Action, got.Attempt, got.Delay)
	}
}

func TestDecideResetsAfterStablePeriod(t *testing.T) {
	tests := []struct {
		name        string
		upFor       time.Duration
		callUpAgain bool // the health loop reports up again at the end of the period
		wantAttempt int
		wantDelay   time.Duration
	}{
		{"short run keeps counting", 59 * time.Second, true, 3, 800 * time.Millisecond},
		// After a stable run the history is clean: the first restart starts at once.
		{"stable run resets via up", 60 * time.Second, true, 1, 0},
		{"stable run resets at decide", 90 * time.Second, false, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := NewTracker(RestartPolicy{}, 0)
			now := t0
			for range 2 {
				d := tr.Decide(now, CauseKilled)
				now = now.Add(d.Delay)
				tr.Up(now)
			}
			now = now.Add(tt.upFor)
			if tt.callUpAgain {
				tr.Up(now)
			}
			got := tr.Decide(now, CauseKilled)
			if got.Attempt != tt.wantAttempt || got.Delay != tt.wantDelay {
				t.Errorf("got attempt %d delay %v, want attempt %d delay %v", got.Attempt, got.Delay, tt.wantAttempt, tt.wantDelay)
			}
		})
	}
}

// TestDecideFirstRestartAfterCleanHistory checks that a server that dies
// after StableAfter of health is restarted at once, and that deaths that
// follow soon after still back off.
func TestDecideFirstRestartAfterCleanHistory(t *testing.T) {
	tr := NewTracker(RestartPolicy{}, 0)
	tr.Up(t0)
	now := t0.Add(time.Hour)
	steps := []struct {
		upFor   time.Duration // before this death
		attempt int
		delay   time.Duration
	}{
		{0, 1, 0}, // up an hour: at once
		{5 * time.Second, 2, 200 * time.Millisecond}, // died again soon: backoff
		{5 * time.Second, 3, 400 * time.Millisecond},
		{time.Minute, 1, 0}, // stable again: the history is clean
	}
	for i, s := range steps {
		now = now.Add(s.upFor)
		got := tr.Decide(now, CauseKilled)
		if got.Action != ActRestart || got.Attempt != s.attempt || got.Delay != s.delay {
			t.Errorf("death %d: got %v attempt %d delay %v, want restart attempt %d delay %v",
				i+1, got.Action, got.Attempt, got.Delay, s.attempt, s.delay)
		}
		now = now.Add(got.Delay)
		tr.Up(now)
	}
	// A server that dies before it was ever stable backs off from the start.
	fresh := NewTracker(RestartPolicy{}, 0)
	fresh.Up(t0)
	if got := fresh.Decide(t0.Add(time.Second), CauseCrashed); got.Delay != 200*time.Millisecond {
		t.Errorf("death after 1s of a new server: delay %v, want 200ms", got.Delay)
	}
}

func TestDecideJitterStaysNearDelay(t *testing.T) {
	tr := NewTracker(RestartPolicy{Initial: time.Second}, DefaultJitter)
	got := tr.Decide(t0, CauseKilled).Delay
	if got < 900*time.Millisecond || got > 1100*time.Millisecond {
		t.Errorf("jittered first delay = %v, want within 10%% of 1s", got)
	}
}

func TestDecideHistoryBounded(t *testing.T) {
	tr := NewTracker(RestartPolicy{}, 0)
	for i := range 100 {
		tr.Decide(t0.Add(time.Duration(i)*time.Second), CauseKillServer)
	}
	if got := len(tr.history); got != maxRestartHistory {
		t.Errorf("len(history) = %d, want %d", got, maxRestartHistory)
	}
	if got, want := tr.history[len(tr.history)-1].At, t0.Add(99*time.Second); !got.Equal(want) {
		t.Errorf("last history entry at %v, want %v", got, want)
	}
}
