package diagnostics

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// SchemaVersion is the version of the JSON report. It changes when a field
// is renamed, removed or changes meaning; new fields do not change it.
const SchemaVersion = 1

// Status is the outcome of a check.
type Status string

// Statuses, from best to worst; skipped means the check did not apply or
// could not look (the reason is in its summary).
const (
	StatusSkipped Status = "skipped"
	StatusOK      Status = "ok"
	StatusWarn    Status = "warn"
	StatusFail    Status = "fail"
)

// severity orders statuses for "worst first".
func (s Status) severity() int {
	switch s {
	case StatusFail:
		return 3
	case StatusWarn:
		return 2
	case StatusOK:
		return 1
	}
	return 0
}

// worse returns the worse of two statuses.
func worse(a, b Status) Status {
	if b.severity() > a.severity() {
		return b
	}
	return a
}

// Confidence says how sure a verdict or a likely cause is.
type Confidence string

// Confidences, from surest to least sure.
const (
	// Certain: the kernel or tmux said so (an exit status, a process
	// state, tmux's own error message, a live listener on a deleted path).
	Certain Confidence = "certain"
	// Likely: good evidence that could be wrong in rare cases (a zombie
	// matched to the socket by start time, a cause the supervisor recorded
	// in the journal, a probe that timed out once).
	Likely Confidence = "likely"
	// Possible: consistent with what is left, nothing more.
	Possible Confidence = "possible"
)

func (c Confidence) score() int {
	switch c {
	case Certain:
		return 3
	case Likely:
		return 2
	case Possible:
		return 1
	}
	return 0
}

// Fact is one piece of evidence: a number, a path, a mode, or what a
// command printed. Values never hold environment values, pane contents or
// keystrokes.
type Fact struct {
	Name  string `json:"name"`
	Value any    `json:"value"`
}

// Check is the result of one check.
type Check struct {
	ID       string `json:"id"` // stable, dotted: "socket.file", "server.process"
	Title    string `json:"title"`
	Status   Status `json:"status"`
	Summary  string `json:"summary"` // one line
	Evidence []Fact `json:"evidence,omitempty"`
	// Remedy says what to do about a warning or failure; Commands are the
	// exact commands, with this machine's paths and PIDs.
	Remedy   string   `json:"remedy,omitempty"`
	Commands []string `json:"commands,omitempty"`
	// cause is what a warning or failure could lead to, for the ranking
	// of likely causes: a death.Cause, a hazard name, or
	// causeEvidence.
	cause string
}

// causeEvidence marks a check that only restates the evidence of a death
// (a stale socket, an exited process), which always comes with a verdict:
// the summary and the ranking leave it to the verdict. A check whose cause
// is the verdict's is left out of the summary too.
const causeEvidence = "evidence"

// fact appends a fact.
func (c *Check) fact(name string, value any) { c.Evidence = append(c.Evidence, Fact{name, value}) }

// Verdict is what the supervisor's classifier (death.Classify)
// says about a server, from the evidence diagnose gathered.
type Verdict struct {
	// Cause is a death.Cause ("killed", "socket_deleted", ...), or ""
	// when the server is alive and answers.
	Cause      string     `json:"cause"`
	Detail     string     `json:"detail"`
	Confidence Confidence `json:"confidence"`
	// Basis says what the confidence rests on and what was missing.
	Basis string `json:"basis"`
}

// ServerReport is everything diagnose found about one tmux server (one
// socket path).
type ServerReport struct {
	Socket string `json:"socket"` // as named: -L name or -S path
	Path   string `json:"path"`   // the socket file's path
	// State: "answering", "not answering", "alive, not probed" (too close
	// to its fd limit for a tmux client), "socket missing", "dead", or
	// "not running" (no server and no trace of one).
	State   string   `json:"state"`
	PID     int      `json:"pid,omitempty"`
	Version string   `json:"version,omitempty"`
	Verdict *Verdict `json:"verdict,omitempty"`
	Status  Status   `json:"status"` // worst of the verdict and the checks
	Checks  []Check  `json:"checks"`
}

// Event is one line of the timeline.
type Event struct {
	Time   time.Time `json:"time"`
	Socket string    `json:"socket,omitempty"`
	// Source: "journal" (recorded by tmux-mcp), "process" (from /proc),
	// "kernel" (the kernel's log), "socket" (the socket file's
	// timestamps), "diagnose" (now).
	Source string `json:"source"`
	What   string `json:"what"`
}

// LikelyCause is one candidate explanation, ranked in Report.Causes.
type LikelyCause struct {
	// Cause is a death.Cause for deaths and hangs, or a hazard:
	// "pty_exhaustion", "fd_exhaustion", "tmp_cleaner", "memory",
	// "known_bad_version", "exit_options".
	Cause      string     `json:"cause"`
	Socket     string     `json:"socket,omitempty"`
	Title      string     `json:"title"`
	Confidence Confidence `json:"confidence"`
	For        []string   `json:"for"`
	Against    []string   `json:"against"`
	NextSteps  []string   `json:"next_steps,omitempty"` // exact commands
	score      int
}

// Finding is one line of the summary.
type Finding struct {
	Status Status `json:"status"`
	Socket string `json:"socket,omitempty"`
	Text   string `json:"text"`
}

// Host describes where diagnose ran.
type Host struct {
	OS   string `json:"os"`
	Arch string `json:"arch"`
}

// Report is the crash report: the same content as JSON and as Markdown.
type Report struct {
	SchemaVersion int       `json:"schema_version"`
	GeneratedAt   time.Time `json:"generated_at"`
	Host          Host      `json:"host"`
	Status        Status    `json:"status"` // the worst status in the report
	// Summary has one line per warning or failure, worst first, and a
	// last line counting the rest.
	Summary   []Finding      `json:"summary"`
	Timeline  []Event        `json:"timeline"`
	System    []Check        `json:"system"`
	Servers   []ServerReport `json:"servers"`
	Causes    []LikelyCause  `json:"causes"`
	NextSteps []string       `json:"next_steps"`
}

// Exit statuses of `tmux-mcp diagnose`.
const (
	ExitOK       = 0 // every check passed
	ExitWarnings = 1 // warnings, no failure
	ExitFailures = 2 // at least one failure
	ExitNotRun   = 3 // diagnose could not run
)

// ExitCode returns the exit status for the report.
func (r *Report) ExitCode() int {
	switch r.Status {
	case StatusFail:
		return ExitFailures
	case StatusWarn:
		return ExitWarnings
	}
	return ExitOK
}

// JSON returns the report as indented JSON.
func (r *Report) JSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return nil, fmt.Errorf("diagnostics: encode report: %w", err)
	}
	return b.Bytes(), nil
}
