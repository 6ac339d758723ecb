package death

import (
	"testing"
	"time"
)

// TestProbeVerdicts plays sequences of probes to the hang detector: a
// server is hung when it has answered nothing for HungAfter and used no
// CPU meanwhile (or used it near its fd limit, where spinning is the
// fault), or when it has answered nothing for BusyHungAfter whatever it
// used.
func TestProbeVerdicts(t *testing.T) {
	type step struct {
		at       time.Duration // since t0
		timedOut bool
		answered time.Duration // AnsweredAt since t0; -1: zero (unknown)
		cpu      time.Duration
		work     bool // CPUIsWork
		want     Verdict
	}
	const none = -1
	tests := []struct {
		name  string
		steps []step
	}{
		{"an answer ends the silence", []step{
			{0, true, none, 0, true, VerdictSlow},
			{5 * time.Second, true, none, 0, true, VerdictSlow},
			{6 * time.Second, false, none, 0, true, VerdictUp},
			{7 * time.Second, true, none, 0, true, VerdictSlow},
			{16 * time.Second, true, none, 0, true, VerdictSlow},
			{17 * time.Second, true, none, 0, true, VerdictHung},
		}},
		{"stopped: no answer, no CPU", []step{
			{0, true, none, time.Second, true, VerdictSlow},
			{9 * time.Second, true, none, time.Second, true, VerdictSlow},
			{10 * time.Second, true, none, time.Second, true, VerdictHung},
		}},
		{"answers to queued commands keep it slow, not hung", []step{
			{0, true, none, 0, true, VerdictSlow},
			{8 * time.Second, true, 7 * time.Second, 0, true, VerdictSlow},
			{16 * time.Second, true, 15 * time.Second, 0, true, VerdictSlow},
			{24 * time.Second, true, 15 * time.Second, 0, true, VerdictSlow},
			{25 * time.Second, true, 15 * time.Second, 0, true, VerdictHung}, // nothing since 15 s
		}},
		{"an answer from before the silence does not count", []step{
			{0, true, none, 0, true, VerdictSlow},
			{10 * time.Second, true, -time.Second, 0, true, VerdictHung},
		}},
		{"busy: silent but using CPU, until BusyHungAfter", []step{
			{0, true, none, 0, true, VerdictSlow},
			{5 * time.Second, true, none, 50 * time.Millisecond, true, VerdictSlow},
			{10 * time.Second, true, none, 60 * time.Millisecond, true, VerdictBusy},
			{30 * time.Second, true, none, 2 * time.Second, true, VerdictBusy},
			{59 * time.Second, true, none, 3 * time.Second, true, VerdictBusy},
			{60 * time.Second, true, none, 4 * time.Second, true, VerdictHung},
		}},
		{"busy, then stopped: hung HungAfter after the CPU stood still", []step{
			{0, true, none, 0, true, VerdictSlow},
			{10 * time.Second, true, none, time.Second, true, VerdictBusy},
			{19 * time.Second, true, none, time.Second, true, VerdictBusy},
			{20 * time.Second, true, none, time.Second, true, VerdictHung},
		}},
		{"near the fd limit CPU is spinning, not work", []step{
			{0, true, none, 0, false, VerdictSlow},
			{5 * time.Second, true, none, time.Second, false, VerdictSlow},
			{10 * time.Second, true, none, 2 * time.Second, false, VerdictHung},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := NewTracker(RestartPolicy{HungAfter: 10 * time.Second}, 0)
			for _, s := range tt.steps {
				l := Liveness{TimedOut: s.timedOut, CPU: s.cpu, CPUIsWork: s.work}
				if s.answered != none {
					l.AnsweredAt = t0.Add(s.answered)
				}
				if got := tr.Probe(t0.Add(s.at), l); got != s.want {
					t.Errorf("probe(+%v, %+v) = %v, want %v", s.at, l, got, s.want)
				}
			}
		})
	}
}
