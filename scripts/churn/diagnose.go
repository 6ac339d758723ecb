package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// DiagnoseResult is what `tmux-mcp diagnose` said about the run's
// server, and the harness's reading of it.
type DiagnoseResult struct {
	Ran      bool   `json:"ran"`
	ExitCode int    `json:"exit_code"` // 0 ok, 1 warnings, 2 failures, 3 not run
	Status   string `json:"status"`    // the report's worst status
	State    string `json:"state"`     // the server's: answering, dead, ...
	PID      int    `json:"pid,omitempty"`
	// Cause is the verdict's cause ("" for a server that answers).
	Cause      string `json:"cause,omitempty"`
	Confidence string `json:"confidence,omitempty"`
	// JournalDeaths is the deaths the journal recorded (check
	// journal.server): each tmux-mcp process that saw a death records
	// it, so one death of a server three of them watch counts three.
	JournalDeaths  int    `json:"journal_deaths"`
	JournalSummary string `json:"journal_summary,omitempty"`
	// TopCause is diagnose's likeliest cause, "cause (confidence)".
	TopCause string `json:"top_cause,omitempty"`
	// DeathLines are the timeline's lines about a death: the journal's
	// "died", the kernel's log.
	DeathLines []string `json:"death_lines,omitempty"`
	Summary    []string `json:"summary,omitempty"` // diagnose's summary lines
	// Crash: diagnose shows a crash or death of the server.
	Crash   bool   `json:"crash"`
	Verdict string `json:"verdict"` // one line
	Error   string `json:"error,omitempty"`
}

// diagnoseReport is the part of diagnose's JSON report read here
// (diagnostics.Report, schema 1).
type diagnoseReport struct {
	Status  string `json:"status"`
	Summary []struct {
		Status string `json:"status"`
		Text   string `json:"text"`
	} `json:"summary"`
	Timeline []struct {
		Source string `json:"source"`
		What   string `json:"what"`
	} `json:"timeline"`
	Causes []struct {
		Cause      string `json:"cause"`
		Confidence string `json:"confidence"`
	} `json:"causes"`
	Servers []struct {
		Path    string `json:"path"`
		State   string `json:"state"`
		PID     int    `json:"pid"`
		Verdict *struct {
			Cause      string `json:"cause"`
			Confidence string `json:"confidence"`
		} `json:"verdict"`
		Checks []struct {
			ID       string `json:"id"`
			Summary  string `json:"summary"`
			Evidence []struct {
				Name  string `json:"name"`
				Value any    `json:"value"`
			} `json:"evidence"`
		} `json:"checks"`
	} `json:"servers"`
}

// scanDiagnose reads diagnose's JSON report for the server on sock. It
// counts as a crash or death: a verdict with a cause (dead, hung,
// socket gone), a state other than answering, deaths in the journal,
// or a timeline line of the journal or the kernel about a death.
func scanDiagnose(js []byte, sock string) (DiagnoseResult, error) {
	var r diagnoseReport
	if err := json.Unmarshal(js, &r); err != nil {
		return DiagnoseResult{}, fmt.Errorf("diagnose report: %w", err)
	}
	d := DiagnoseResult{Ran: true, Status: r.Status}
	for _, f := range r.Summary {
		d.Summary = append(d.Summary, f.Status+": "+f.Text)
	}
	found := false
	for _, s := range r.Servers {
		if s.Path != sock {
			continue
		}
		found = true
		d.State, d.PID = s.State, s.PID
		if s.Verdict != nil {
			d.Cause, d.Confidence = s.Verdict.Cause, s.Verdict.Confidence
		}
		for _, c := range s.Checks {
			if c.ID != "journal.server" {
				continue
			}
			d.JournalSummary = c.Summary
			for _, e := range c.Evidence {
				if n, ok := e.Value.(float64); ok && e.Name == "deaths" {
					d.JournalDeaths = int(n)
				}
			}
		}
	}
	if len(r.Causes) > 0 {
		d.TopCause = r.Causes[0].Cause + " (" + r.Causes[0].Confidence + ")"
	}
	for _, e := range r.Timeline {
		what := strings.ToLower(e.What)
		if e.Source == "kernel" || e.Source == "journal" && strings.Contains(what, " died") {
			d.DeathLines = append(d.DeathLines, e.Source+": "+e.What)
		}
	}
	var why []string
	if !found {
		why = append(why, "no report of the server on "+sock)
	}
	if d.Cause != "" {
		why = append(why, "verdict "+d.Cause+" ("+d.Confidence+")")
	}
	if found && d.State != "answering" {
		why = append(why, "state "+d.State)
	}
	if d.JournalDeaths > 0 {
		why = append(why, "journal: "+d.JournalSummary)
	}
	if n := len(d.DeathLines); n > 0 {
		why = append(why, fmt.Sprintf("%d timeline line(s) about a death", n))
	}
	d.Crash = len(why) > 0
	if d.Crash {
		d.Verdict = "CRASH/DEATH: " + strings.Join(why, "; ")
		if d.TopCause != "" {
			d.Verdict += "; likeliest cause: " + d.TopCause
		}
	} else {
		d.Verdict = fmt.Sprintf("no crash: server %s, PID %d, no death in the journal (report status %s)", d.State, d.PID, d.Status)
	}
	return d, nil
}

// runDiagnose runs `tmux-mcp diagnose` on the run's server with the
// environment and journal the tmux-mcp processes had, once as JSON
// (read by scanDiagnose) and once as Markdown; both go to out.
func runDiagnose(ctx context.Context, bin string, env []string, args []string, sock, out string) DiagnoseResult {
	run := func(format, file string) (int, error) {
		ctx, cancel := context.WithTimeout(ctx, 90*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, append(append([]string{"diagnose"}, args...), "-format", format, "-out", file)...)
		cmd.Env = env
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() < 3 {
			// 1 and 2: warnings or failures, the report is there.
			return ee.ExitCode(), nil
		}
		if err != nil {
			return -1, fmt.Errorf("%v: %s", err, strings.TrimSpace(stderr.String()))
		}
		return 0, nil
	}
	jsonFile := filepath.Join(out, "diagnose.json")
	code, err := run("json", jsonFile)
	if err != nil {
		return DiagnoseResult{ExitCode: code, Error: "diagnose: " + err.Error(), Verdict: "diagnose did not run: " + err.Error()}
	}
	js, err := os.ReadFile(jsonFile)
	if err != nil {
		return DiagnoseResult{ExitCode: code, Error: err.Error(), Verdict: "diagnose wrote no report: " + err.Error()}
	}
	d, err := scanDiagnose(js, sock)
	if err != nil {
		return DiagnoseResult{ExitCode: code, Error: err.Error(), Verdict: "diagnose's report unreadable: " + err.Error()}
	}
	d.ExitCode = code
	if _, err := run("markdown", filepath.Join(out, "diagnose.md")); err != nil {
		d.Error = "markdown: " + err.Error()
	}
	return d
}
