package capture

import (
	"testing"
	"time"
)

func TestProbeTrusted(t *testing.T) {
	sent := time.Unix(1000, 900_000_000) // 1000.9
	tests := []struct {
		name     string
		activity int64
		want     bool
	}{
		{"activity in an earlier second", 999, true},
		// Even when the answer comes back in the next second: the old
		// rule (activity < the second the answer came in) trusted this
		// one, yet output later in second 1000 would not have changed it.
		{"activity in the second the probe was sent", 1000, false},
		{"activity from a clock ahead", 1001, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := probeTrusted(tt.activity, sent); got != tt.want {
				t.Errorf("probeTrusted(%d, %v) = %v, want %v", tt.activity, sent, got, tt.want)
			}
		})
	}
}
