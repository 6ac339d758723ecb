package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/scripts/internal/loadtest"
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

func TestParseLevels(t *testing.T) {
	tests := []struct {
		in      string
		want    []level
		wantErr bool
	}{
		{"8", []level{{8, 1}}, false},
		{"8x1,512x4", []level{{8, 1}, {512, 4}}, false},
		{" 64 , 256x2", []level{{64, 1}, {256, 2}}, false},
		{"0", nil, true},
		{"8x", nil, true},
		{"ax1", nil, true},
	}
	for _, tt := range tests {
		got, err := parseLevels(tt.in)
		if (err != nil) != tt.wantErr || !slices.Equal(got, tt.want) {
			t.Errorf("parseLevels(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestParseAgents(t *testing.T) {
	tests := []struct {
		in      string
		want    []int
		wantErr bool
	}{
		{"1,8,32,64", []int{1, 8, 32, 64}, false},
		{"64", []int{64}, false},
		{"0", nil, true},
		{"1,,2", nil, true},
	}
	for _, tt := range tests {
		got, err := parseAgents(tt.in)
		if (err != nil) != tt.wantErr || !slices.Equal(got, tt.want) {
			t.Errorf("parseAgents(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

// TestCurves: one series per level and variant, agents on x in the order
// they ran, printing steps dashed.
func TestCurves(t *testing.T) {
	step := func(sessions, agents int, output bool, p50 float64) Step {
		return Step{StepSpec: StepSpec{Sessions: sessions, PanesPerSession: 1, Agents: agents, Output: output},
			tally: tally{Captures: Latency{N: 1, P50: p50}}}
	}
	steps := []Step{step(8, 1, false, 1), step(8, 8, false, 2), step(8, 1, true, 3), step(64, 1, false, 4)}
	got := curves(steps, func(s Step) float64 { return s.Captures.P50 })
	want := []loadtest.Series{
		{Name: "8 sessions", Pts: []loadtest.Pt{{X: 1, Y: 1}, {X: 8, Y: 2}}},
		{Name: "8 sessions, printing", Dashed: true, Pts: []loadtest.Pt{{X: 1, Y: 3}}},
		{Name: "64 sessions", Pts: []loadtest.Pt{{X: 1, Y: 4}}},
	}
	if len(got) != len(want) {
		t.Fatalf("%d series, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		if got[i].Name != w.Name || got[i].Dashed != w.Dashed || !slices.Equal(got[i].Pts, w.Pts) {
			t.Errorf("series %d = %+v, want %+v", i, got[i], w)
		}
	}
}

// TestServerRate: the harness gives tmux-mcp the server rate its largest
// fleet needs, never less than tmux-mcp's default.
func TestServerRate(t *testing.T) {
	tests := []struct {
		agents []int
		hz     float64
		want   float64
	}{
		{[]int{1, 8}, 2, 200},
		{[]int{1, 8, 32, 64}, 2, 640},
		{[]int{64, 8}, 5, 1600},
	}
	for _, tt := range tests {
		if got := (config{agents: tt.agents, hz: tt.hz}).serverRate(); got != tt.want {
			t.Errorf("serverRate(agents %v, hz %v) = %v, want %v", tt.agents, tt.hz, got, tt.want)
		}
	}
}
