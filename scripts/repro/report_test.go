package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/scripts/internal/loadtest"
)

// sampleReport is a small report with every part filled in.
func sampleReport() *Report {
	r := &Report{Started: time.Date(2026, 11, 23, 1, 0, 0, 0, time.UTC), Seconds: 30, Profile: "smoke"}
	r.Phases = []Phase{
		{Name: "idle", Workload: "idle", Start: 0, End: 5, ServerCPUms: 10, RSSStart: 30 << 20, RSSEnd: 30 << 20, FDsStart: 17, FDsEnd: 17},
		{Name: "raw 1 Hz", Workload: "raw", Hz: 1, Start: 5, End: 10, tally: tally{Calls: 5, OK: 5}, CaptureCommands: 5, TmuxCommands: 5, ServerCPUms: 20},
		{Name: "supervised 1 Hz", Workload: "supervised", Hz: 1, Start: 10, End: 15, tally: tally{Calls: 5, OK: 4, Errors: map[string]int{"timeout": 1}}, CaptureCommands: 1, ServerCPUms: 12},
		{Name: "mixed + faults", Workload: "mixed", Start: 15, End: 30},
	}
	r.Incident = []IncidentRow{incidentRow(1, r.Phases[0], r.Phases[1], r.Phases[2])}
	r.Faults = []Fault{
		{Kind: FaultKill, At: 20, Died: true, Recoverable: true, DetectedMs: 40, RecoveredMs: 900, Cause: "killed", ObjectsBefore: 15},
		{Kind: FaultPTY, Skipped: "shared machine <b>"},
	}
	for i := range 30 {
		s := Sample{T: float64(i + 1), Phase: "p", ServerRSS: 30 << 20, ServerFDs: 17, ServerCPUms: float64(i), RawCalls: i,
			RawP50: Opt(1.5), RawP99: Opt(3), SupP50: Opt(math.NaN()), SupP99: Opt(math.NaN()), AgentP50: Opt(math.NaN()), AgentP99: Opt(math.NaN())}
		r.Samples = append(r.Samples, s)
	}
	r.Verdicts = Judge(r.Phases, r.Faults, nil, DefaultBounds(3000))
	r.Passed = loadtest.Passed(r.Verdicts)
	return r
}

func TestIncidentRow(t *testing.T) {
	row := sampleReport().Incident[0]
	// idle: 10 ms over 5 s = 2 ms/s; raw: 20 ms, 10 above idle; 4,000 ms per 1,000 calls.
	checks := []struct {
		name      string
		got, want float64
	}{
		{"idle ms/s", row.IdleCPUmsPerSecond, 2},
		{"raw per 1k", row.RawCPUmsPer1k, 4000},
		{"raw above idle", row.RawCPUmsAboveIdle, 10},
		{"supervised per 1k", row.SupCPUmsPer1k, 2400},
		{"supervised above idle", row.SupCPUmsAboveIdle, 2},
		{"supervised errors", float64(row.SupErrors), 1},
	}
	for _, c := range checks {
		if math.Abs(c.got-c.want) > 1e-9 {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

func TestWriteCSV(t *testing.T) {
	r := sampleReport()
	var b bytes.Buffer
	if err := WriteCSV(&b, r.Samples); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatalf("read back: %v", err)
	}
	if got, want := len(rows), len(r.Samples)+1; got != want {
		t.Fatalf("rows = %d, want %d", got, want)
	}
	if !slices.Equal(rows[0], csvHeader) {
		t.Errorf("header = %v, want %v", rows[0], csvHeader)
	}
	col := slices.Index(csvHeader, "supervised_p50_ms")
	if got := rows[1][col]; got != "" {
		t.Errorf("a second without supervised calls has p50 %q, want empty", got)
	}
	if got := rows[1][slices.Index(csvHeader, "raw_p50_ms")]; got != "1.500" {
		t.Errorf("raw p50 = %q, want 1.500", got)
	}
}

func TestOptJSON(t *testing.T) {
	tests := []struct {
		in   Opt
		want string
	}{
		{Opt(math.NaN()), "null"},
		{Opt(2.5), "2.500"},
		{Opt(0), "0.000"},
	}
	for _, tt := range tests {
		b, err := json.Marshal(tt.in)
		if err != nil || string(b) != tt.want {
			t.Errorf("Marshal(%v) = %s, %v, want %s", float64(tt.in), b, err, tt.want)
		}
		var back Opt
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if back.Missing() != tt.in.Missing() || !back.Missing() && back != tt.in {
			t.Errorf("round trip of %v = %v", float64(tt.in), float64(back))
		}
	}
}

func TestWriteFiles(t *testing.T) {
	dir := t.TempDir()
	r := sampleReport()
	if err := writeFiles(dir, r); err != nil {
		t.Fatal(err)
	}
	j, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(j, &back); err != nil {
		t.Fatalf("report.json does not decode: %v", err)
	}
	if len(back.Samples) != len(r.Samples) || len(back.Faults) != 2 || back.Passed != r.Passed {
		t.Errorf("report.json: %d samples, %d faults, passed %v; want %d, 2, %v", len(back.Samples), len(back.Faults), back.Passed, len(r.Samples), r.Passed)
	}
	h, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	html := string(h)
	if got := strings.Count(html, "<svg"); got != 5 {
		t.Errorf("report.html has %d charts, want 5", got)
	}
	for _, want := range []string{"detected: kill-9", "40 ms", "killed", "shared machine &lt;b&gt;", "Call latency", "Server CPU time"} {
		if !strings.Contains(html, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	// Self-contained: nothing loaded from elsewhere.
	if m := regexp.MustCompile(`(src|href)=`).FindString(html); m != "" {
		t.Errorf("report.html references an outside resource (%s)", m)
	}
	// A fault is marked on the charts at its time, and its recovery.
	if !strings.Contains(html, ">kill-9</text>") || !strings.Contains(html, ">back</text>") {
		t.Errorf("report.html charts lack the fault and recovery markers")
	}
}

func TestSummaryMarkdown(t *testing.T) {
	md := SummaryMarkdown(sampleReport())
	for _, want := range []string{"| raw `capture-pane`, 1 Hz | 5 | 5 | 0 | - | 20.0 | 4000.0 | 2000.0 | 0 |",
		"| kill-9 | yes | 40 ms | killed | 900 ms | 0 of 15 |", "| pty-pressure | skipped |"} {
		if !strings.Contains(md, want) {
			t.Errorf("summary lacks %q:\n%s", want, md)
		}
	}
}

func TestInventoryOf(t *testing.T) {
	listing := strings.Join([]string{
		"__tmux_mcp\ttail\t0",
		"incident\tsilent\t0",
		"agent-1\thome\t0",
		"agent-1\thome\t1",
		"agent-1\tscratch-3\t0",
		"scratch-flood\tscratch-flood\t0",
		"garbage line",
	}, "\n")
	got := inventoryOf(listing)
	want := []string{"session incident", "window incident/silent", "pane incident/silent.0",
		"session agent-1", "window agent-1/home", "pane agent-1/home.0", "pane agent-1/home.1"}
	if !slices.Equal(got, want) {
		t.Errorf("inventoryOf = %q, want %q", got, want)
	}
	if lost := missing(want, got[:3]); len(lost) != 4 || lost[0] != "session agent-1" {
		t.Errorf("missing = %q, want the four agent-1 objects", lost)
	}
	if lost := missing(want, want); lost != nil {
		t.Errorf("missing(x, x) = %q, want none", lost)
	}
}

func TestRate(t *testing.T) {
	s := []Sample{{T: 1, RawCalls: 0}, {T: 2, RawCalls: 100}, {T: 4, RawCalls: 300}, {T: 4, RawCalls: 400}}
	got := rate(s, func(x Sample) float64 { return float64(x.RawCalls) })
	want := []loadtest.Pt{{X: 2, Y: 100}, {X: 4, Y: 100}} // no second without time
	if !slices.Equal(got, want) {
		t.Errorf("rate = %v, want %v", got, want)
	}
}

func TestSnapshotObjects(t *testing.T) {
	text := `snapshot 2 of /tmp/soak1/main, taken 2026-11-23 02:40:04: 2 sessions, 3 windows, 4 panes
server PID 20886, tmux 3.3a, /usr/bin/tmux
session $1 "incident" 120x40
  window @1 0 "silent" [active] layout aafe,120x40,0,0,1
    pane %1 0 /work "vm" (cat) [active, started from its shell]
      argv ["cat"]
session $4 "agent \"one\"" 120x40
  window @4 0 "home" [active] layout ab01,120x40,0,0,4
    pane %4 0 /work "vm" (sh) [active]
    pane %9 1 /work "vm" (sh)
  window @6 1 "scratch-0" layout ab03,120x40,0,0,6
    pane %6 0 /work "vm" (sleep) [active, started from its shell]
`
	got := snapshotObjects(text)
	want := []string{"session incident", "window incident:0 silent", "pane incident:0 silent.0",
		`session agent "one"`, `window agent "one":0 home`, `pane agent "one":0 home.0`, `pane agent "one":0 home.1`,
		`window agent "one":1 scratch-0`, `pane agent "one":1 scratch-0.0`}
	if !slices.Equal(got, want) {
		t.Errorf("snapshotObjects =\n%q\nwant\n%q", got, want)
	}
	for _, tt := range []struct {
		in   string
		want uint64
		ok   bool
	}{{"snapshot 12: 25 steps applied", 12, true}, {"snapshot 3: 5 sessions", 3, true}, {"not restored: ended on purpose", 0, false}} {
		if n, ok := snapshotNumber(tt.in); n != tt.want || ok != tt.ok {
			t.Errorf("snapshotNumber(%q) = %d, %v, want %d, %v", tt.in, n, ok, tt.want, tt.ok)
		}
	}
}
