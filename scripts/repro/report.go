package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/tmux-mcp/tmux-mcp/scripts/internal/loadtest"
)

// Report is everything one run measured and decided; report.json is this
// struct.
type Report struct {
	Started  time.Time      `json:"started"`
	Seconds  float64        `json:"seconds"`
	Profile  string         `json:"profile"`
	Host     Host           `json:"host"`
	Settings map[string]any `json:"settings"`
	Phases   []Phase        `json:"phases"`
	Incident []IncidentRow  `json:"incident"`
	Faults   []Fault        `json:"faults"`
	// Unplanned are server deaths tmux-mcp reported outside every fault's
	// window: nobody injected them.
	Unplanned  []Fault            `json:"unplanned_deaths"`
	Agents     tally              `json:"agents"`
	Samples    []Sample           `json:"samples"`
	Leaked     []string           `json:"leaked_processes"`
	Bounds     Bounds             `json:"bounds"`
	Verdicts   []loadtest.Verdict `json:"verdicts"`
	Passed     bool               `json:"passed"`
	Diagnose   string             `json:"diagnose,omitempty"`
	DiagnoseOK bool               `json:"diagnose_ok"`
	Notes      []string           `json:"notes,omitempty"`
}

// Host describes the machine and tools of the run.
type Host struct {
	CPUs        int    `json:"cpus"`
	Tmux        string `json:"tmux"`
	Go          string `json:"go"`
	TmuxMCP     string `json:"tmux_mcp"`
	CPUClock    string `json:"cpu_clock"` // where server CPU times come from
	Goroutines  string `json:"goroutines"`
	PTYPressure string `json:"pty_pressure"`
}

// Phase is one stretch of a single workload against the main server.
type Phase struct {
	Name     string  `json:"name"`
	Workload string  `json:"workload"` // idle, raw, supervised, mixed
	Hz       float64 `json:"hz,omitempty"`
	Target   string  `json:"target,omitempty"`
	Start    float64 `json:"start_s"`
	End      float64 `json:"end_s"`
	tally
	// CaptureCommands is how many capture-pane commands reached tmux:
	// every raw call is one; supervised ones come from server_health's
	// captures counter.
	CaptureCommands uint64 `json:"capture_commands"`
	// TmuxCommands is every command the supervisor sent tmux (its
	// commands counter, its own probes included); for raw phases it is
	// the raw calls.
	TmuxCommands uint64  `json:"tmux_commands"`
	Barriers     uint64  `json:"barriers"`
	CacheHits    uint64  `json:"cache_hits"`
	ServerCPUms  float64 `json:"server_cpu_ms"`
	ServerPID    int     `json:"server_pid"`
	RSSStart     uint64  `json:"server_rss_start"`
	RSSEnd       uint64  `json:"server_rss_end"`
	FDsStart     int     `json:"server_fds_start"`
	FDsEnd       int     `json:"server_fds_end"`
	// Watchers are tmux-mcp's control-mode watcher connections (3 server
	// fds each) at the start and end.
	WatchersStart int  `json:"watchers_start"`
	WatchersEnd   int  `json:"watchers_end"`
	Died          bool `json:"server_died"`
}

// IncidentRow compares raw and supervised polling at one rate: the
// README's summary table.
type IncidentRow struct {
	Hz                 float64 `json:"hz"`
	RawCalls           int     `json:"raw_calls"`
	RawCaptures        uint64  `json:"raw_capture_commands"`
	RawCommands        uint64  `json:"raw_tmux_commands"`
	RawCPUms           float64 `json:"raw_server_cpu_ms"`
	RawCPUmsPer1k      float64 `json:"raw_server_cpu_ms_per_1000_calls"`
	SupCalls           int     `json:"supervised_calls"`
	SupCaptures        uint64  `json:"supervised_capture_commands"`
	SupCommands        uint64  `json:"supervised_tmux_commands"`
	SupBarriers        uint64  `json:"supervised_barriers"`
	SupCPUms           float64 `json:"supervised_server_cpu_ms"`
	SupCPUmsPer1k      float64 `json:"supervised_server_cpu_ms_per_1000_calls"`
	IdleCPUmsPerSecond float64 `json:"idle_server_cpu_ms_per_second"`
	RawCPUmsAboveIdle  float64 `json:"raw_server_cpu_ms_above_idle"`
	SupCPUmsAboveIdle  float64 `json:"supervised_server_cpu_ms_above_idle"`
	RawErrors          int     `json:"raw_errors"`
	SupErrors          int     `json:"supervised_errors"`
}

// Fault is one injected fault and what followed.
type Fault struct {
	Kind    string  `json:"kind"`
	At      float64 `json:"at_s"`
	Skipped string  `json:"skipped,omitempty"` // why it did not run
	// Died says whether the server really died (ground truth: its PID gone,
	// or it was stopped past the supervisor's hung bound); Recoverable
	// whether the supervisor is expected to bring it back by itself.
	Died        bool    `json:"died"`
	Recoverable bool    `json:"recoverable"`
	Cause       string  `json:"cause,omitempty"` // as the supervisor classified it
	DetectedMs  float64 `json:"detected_ms"`     // -1: not detected
	RecoveredMs float64 `json:"recovered_ms"`    // -1: not recovered
	// ObjectsBefore is the journaled sessions, windows and panes before
	// the fault; Lost those missing after recovery.
	ObjectsBefore int      `json:"objects_before"`
	Lost          []string `json:"lost,omitempty"`
	// JournalCheck says which snapshots the journal comparison used (the
	// one the restore rebuilt from, the one it took when done).
	JournalCheck string `json:"journal_check,omitempty"`
	Journaled    int    `json:"journaled_objects"` // in the snapshot the restore used
	Errors       int    `json:"call_errors"`       // failed calls during the fault window
	// RestoreReported says tmux-mcp announced a restore; Restored whether
	// it said the restore succeeded.
	RestoreReported bool   `json:"restore_reported"`
	Restored        bool   `json:"restored"`
	Note            string `json:"note,omitempty"`
	// Check is a fault's own pass condition beyond detection and loss
	// (the server still answers, the death is classified right).
	Check     string  `json:"check,omitempty"`
	CheckPass bool    `json:"check_pass"`
	End       float64 `json:"end_s"`
}

// Sample is one second of the run; the CSV has one row per Sample.
type Sample struct {
	T             float64 `json:"t"`
	Phase         string  `json:"phase"`
	ServerPID     int     `json:"server_pid"`
	ServerRSS     uint64  `json:"server_rss"`
	ServerFDs     int     `json:"server_fds"`
	ServerThreads int     `json:"server_threads"`
	ServerCPUms   float64 `json:"server_cpu_ms"` // cumulative over all server incarnations
	MCPPID        int     `json:"mcp_pid"`
	MCPRSS        uint64  `json:"mcp_rss"`
	MCPFDs        int     `json:"mcp_fds"`
	MCPThreads    int     `json:"mcp_threads"`
	RawCalls      int     `json:"raw_calls"`        // cumulative
	SupCalls      int     `json:"supervised_calls"` // cumulative
	AgentCalls    int     `json:"agent_calls"`      // cumulative
	TmuxCommands  uint64  `json:"tmux_commands"`    // cumulative, the supervisor's
	Captures      uint64  `json:"captures"`         // cumulative, supervised captures reaching tmux
	Barriers      uint64  `json:"barriers"`
	CacheHits     uint64  `json:"cache_hits"`
	Errors        int     `json:"errors"` // cumulative failed calls, all workloads
	State         string  `json:"state"`  // the supervisor's view of the server
	RawP50        Opt     `json:"raw_p50_ms"`
	RawP99        Opt     `json:"raw_p99_ms"`
	SupP50        Opt     `json:"supervised_p50_ms"`
	SupP99        Opt     `json:"supervised_p99_ms"`
	AgentP50      Opt     `json:"agent_p50_ms"`
	AgentP99      Opt     `json:"agent_p99_ms"`
}

var csvHeader = []string{"t", "phase", "server_pid", "server_rss", "server_fds", "server_threads", "server_cpu_ms",
	"mcp_pid", "mcp_rss", "mcp_fds", "mcp_threads", "raw_calls", "supervised_calls", "agent_calls",
	"tmux_commands", "captures", "barriers", "cache_hits", "errors", "state",
	"raw_p50_ms", "raw_p99_ms", "supervised_p50_ms", "supervised_p99_ms", "agent_p50_ms", "agent_p99_ms"}

func (s Sample) row() []string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }
	o := func(x Opt) string {
		if x.Missing() {
			return ""
		}
		return f(float64(x))
	}
	i := strconv.Itoa
	u := func(x uint64) string { return strconv.FormatUint(x, 10) }
	return []string{f(s.T), s.Phase, i(s.ServerPID), u(s.ServerRSS), i(s.ServerFDs), i(s.ServerThreads), f(s.ServerCPUms),
		i(s.MCPPID), u(s.MCPRSS), i(s.MCPFDs), i(s.MCPThreads), i(s.RawCalls), i(s.SupCalls), i(s.AgentCalls),
		u(s.TmuxCommands), u(s.Captures), u(s.Barriers), u(s.CacheHits), i(s.Errors), s.State,
		o(s.RawP50), o(s.RawP99), o(s.SupP50), o(s.SupP99), o(s.AgentP50), o(s.AgentP99)}
}

// WriteCSV writes the time series, one row per sample, with a header.
func WriteCSV(w io.Writer, samples []Sample) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(csvHeader); err != nil {
		return err
	}
	for _, s := range samples {
		if err := cw.Write(s.row()); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// writeFiles writes report.json, series.csv and report.html into dir.
func writeFiles(dir string, r *Report) error {
	err := loadtest.WriteReport(dir, r,
		loadtest.File{Name: "series.csv", Write: func(w io.Writer) error { return WriteCSV(w, r.Samples) }},
		loadtest.File{Name: "report.html", Write: func(w io.Writer) error { return WriteHTML(w, r) }})
	if err != nil {
		return fmt.Errorf("repro: %w", err)
	}
	return nil
}

// Opt is a number that may be missing (NaN), such as a latency percentile
// of a second without calls. It encodes as null when missing.
type Opt float64

// Missing reports whether o has no value.
func (o Opt) Missing() bool { return o != o }

// MarshalJSON writes null for a missing value.
func (o Opt) MarshalJSON() ([]byte, error) {
	if o.Missing() {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, float64(o), 'f', 3, 64), nil
}

// UnmarshalJSON reads null as missing.
func (o *Opt) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*o = Opt(math.NaN())
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	*o = Opt(f)
	return err
}
