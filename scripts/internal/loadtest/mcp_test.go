package loadtest

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

func TestErrorClass(t *testing.T) {
	keywords := []string{"rate limited", "503"}
	tests := []struct {
		name   string
		err    error
		prefix string
		want   string
	}{
		{"none", nil, "", ""},
		{"deadline", fmt.Errorf("call: %w", context.DeadlineExceeded), "", "deadline"},
		{"canceled", context.Canceled, "", "canceled"},
		{"class in the first line", errors.New("pane gone [pane_not_found]\nmore"), "", "pane_not_found"},
		{"class only on a later line", errors.New("failed\n[pane_not_found]"), "", "protocol"},
		{"keyword, spaces as underscores", errors.New("Rate Limited: wait"), "", "rate_limited"},
		{"keyword with a prefix", errors.New("status 503"), "http_", "http_503"},
		{"nothing known", errors.New("odd"), "http_", "protocol"},
	}
	for _, tt := range tests {
		if got := ErrorClass(tt.err, tt.prefix, keywords); got != tt.want {
			t.Errorf("%s: ErrorClass(%v) = %q, want %q", tt.name, tt.err, got, tt.want)
		}
	}
}

func TestFirstLine(t *testing.T) {
	tests := []struct{ in, want string }{{"", ""}, {"one", "one"}, {"one\ntwo", "one"}, {"\ntwo", ""}}
	for _, tt := range tests {
		if got := FirstLine(tt.in); got != tt.want {
			t.Errorf("FirstLine(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSyncBufferTail(t *testing.T) {
	var b SyncBuffer
	fmt.Fprint(&b, "hello ")
	fmt.Fprint(&b, "world")
	tests := []struct {
		n    int
		want string
	}{{5, "world"}, {100, "hello world"}, {0, ""}}
	for _, tt := range tests {
		if got := b.Tail(tt.n); got != tt.want {
			t.Errorf("Tail(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
	if got := b.String(); got != "hello world" {
		t.Errorf("String = %q, want hello world", got)
	}
}

func TestPassed(t *testing.T) {
	tests := []struct {
		name string
		vs   []Verdict
		want bool
	}{
		{"all pass", []Verdict{{Pass: true}, {Pass: true}}, true},
		{"one fails", []Verdict{{Pass: true}, {Pass: false}}, false},
		{"no verdict is no pass", nil, false},
	}
	for _, tt := range tests {
		if got := Passed(tt.vs); got != tt.want {
			t.Errorf("%s: Passed = %v, want %v", tt.name, got, tt.want)
		}
	}
}
