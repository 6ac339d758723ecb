package main

import (
	"strings"
	"testing"
)

func TestMaxTick(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		want  int
		found bool
	}{
		{"none", "$ \n", 0, false},
		{"screen", "tick 7\ntick 8\ntick 9\n", 9, true},
		{"JSON-escaped", `{"result":"tick 98\ntick 99\ntick 100\n"}`, 100, true},
		{"highest, not last", "tick 12\ntick 3\n", 12, true},
		{"a wrapped half line", "tick 1", 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, found := maxTick(tt.text)
			if got != tt.want || found != tt.found {
				t.Errorf("maxTick(%q) = %d, %v; want %d, %v", tt.text, got, found, tt.want, tt.found)
			}
		})
	}
}

// TestMarkerLine: only the command's output holds the marker, not the
// line typed at the prompt (which the pane echoes); and one marker is
// never a prefix of a later one.
func TestMarkerLine(t *testing.T) {
	typed, want := markerLine(3, 5)
	if strings.Contains(typed, want) {
		t.Errorf("typed line %q contains the marker %q", typed, want)
	}
	_, later := markerLine(3, 50)
	if strings.Contains(later, want) {
		t.Errorf("marker %q is inside the later marker %q", want, later)
	}
	if got := strings.ReplaceAll(strings.TrimSuffix(strings.TrimPrefix(typed, "echo "), " | tr Z Y"), "Z", "Y"); got != want {
		t.Errorf("the shell prints %q, want %q", got, want)
	}
}

func TestListeningURL(t *testing.T) {
	tests := []struct{ stderr, want string }{
		{"", ""},
		{"time=... level=INFO msg=listening url=http://127.0.0.1:40123/mcp auth=bearer\n", "http://127.0.0.1:40123/mcp"},
		{"level=INFO msg=starting\nlevel=INFO msg=listening url=http://127.0.0.1:1/mcp\n", "http://127.0.0.1:1/mcp"},
	}
	for _, tt := range tests {
		if got := listeningURL(tt.stderr); got != tt.want {
			t.Errorf("listeningURL(%q) = %q, want %q", tt.stderr, got, tt.want)
		}
	}
}

func TestErrClass(t *testing.T) {
	tests := []struct {
		err  string
		want string
	}{
		{"[rate_limited] too many captures", "rate_limited"},
		{"transport error: request failed with status 503: too many sessions", "http_503"},
		{"Post \"http://127.0.0.1:1/mcp\": dial tcp: connection refused", "http_connection_refused"},
		{"something else", "protocol"},
	}
	for _, tt := range tests {
		if got := errClass(errString(tt.err)); got != tt.want {
			t.Errorf("errClass(%q) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

type errString string

func (e errString) Error() string { return string(e) }
