package tools

import (
	"testing"
	"time"
)

func TestJournalToolsWhenTheJournalIsOff(t *testing.T) {
	e := newEnv(t, Mutating)
	for name, args := range map[string]map[string]any{
		"journal_events":   {"since": "1h"},
		"list_snapshots":   {},
		"restore_sessions": {"dry_run": true},
	} {
		e.fails(name, args, "the session journal is off [journal_off]", "--journal PATH")
	}
}

func TestSinceArg(t *testing.T) {
	now := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
	tests := []struct {
		in      string
		want    time.Time
		wantErr bool
	}{
		{"", time.Time{}, false},
		{"90m", now.Add(-90 * time.Minute), false},
		{"2026-05-06T01:00:00Z", time.Date(2026, 5, 6, 1, 0, 0, 0, time.UTC), false},
		{"-1h", time.Time{}, true},
		{"yesterday", time.Time{}, true},
	}
	for _, tt := range tests {
		got, err := sinceArg(tt.in, now)
		if !got.Equal(tt.want) || (err != nil) != tt.wantErr {
			t.Errorf("sinceArg(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}
