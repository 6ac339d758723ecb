package diagnostics

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strconv"
)

// Run diagnoses the servers o names (and with o.All every server it can
// find) and the machine they run on, and returns the report. It starts no
// tmux server, creates no session, and bounds every probe with a timeout.
// It fails only when it cannot run at all (a socket it cannot name); what
// it finds, however bad, is in the report.
func Run(ctx context.Context, o Options) (*Report, error) {
	o = o.withDefaults()
	for _, s := range o.Sockets {
		if err := s.Validate(); err != nil {
			return nil, fmt.Errorf("diagnostics: %w", err)
		}
	}
	if len(o.Sockets) == 0 && !o.All {
		return nil, errors.New("diagnostics: no server to diagnose (name a socket or ask for all)")
	}
	now := o.Now()
	r := &Report{SchemaVersion: SchemaVersion, GeneratedAt: now, Host: Host{OS: o.Machine.GOOS, Arch: runtime.GOARCH}}

	binPath, client, binErr := clientVersion(ctx, o.Binary)
	r.System = []Check{
		checkBinary(o.Binary, binPath, client, binErr),
		checkPTYs(o.Machine),
		checkFileHandles(o.Machine),
		checkDarwinFDLimit(ctx, o.Machine),
		checkJournal(o.Journal),
	}
	if o.Self {
		r.System = append(r.System, checkSelf())
	}

	sockets := o.Sockets
	if o.All {
		sockets = discover(o.Sockets, o.Journal)
	}
	left := newLeftovers(o.Machine)
	var facts []*serverFacts
	for _, s := range sockets {
		facts = append(facts, gather(ctx, o, s, client, left))
	}
	finish(ctx, o, r, facts)
	return r, nil
}

// finish fills in the report from the facts gathered about each server:
// their checks and verdicts, the likely causes, the timeline, the summary
// and the next steps.
func finish(ctx context.Context, o Options, r *Report, facts []*serverFacts) {
	for _, f := range facts {
		r.Servers = append(r.Servers, serverReport(ctx, o, f))
	}
	r.Causes = rankCauses(r.Servers, facts, r.System)
	r.Timeline = timeline(r.Servers, facts, r.GeneratedAt)
	r.Summary, r.Status = summarize(r)
	r.NextSteps = []string{}
	for _, c := range r.Causes {
		r.NextSteps = appendNew(r.NextSteps, c.NextSteps...)
	}
}

// summarize returns one line per warning or failure, worst first, then a
// line counting what passed, and the report's status.
func summarize(r *Report) ([]Finding, Status) {
	var out []Finding
	status := StatusOK
	ok, skipped := 0, 0
	add := func(c Check, socket string) {
		status = worse(status, c.Status)
		switch c.Status {
		case StatusOK:
			ok++
		case StatusSkipped:
			skipped++
		default:
			out = append(out, Finding{Status: c.Status, Socket: socket, Text: c.Title + ": " + c.Summary})
		}
	}
	for _, c := range r.System {
		add(c, "")
	}
	for _, s := range r.Servers {
		st := verdictStatus(s.Verdict)
		status = worse(status, st)
		switch {
		case s.Verdict == nil:
			out = append(out, Finding{Status: StatusOK, Socket: s.Socket, Text: "no server running, and no trace of one"})
		case s.Verdict.Cause == "":
			out = append(out, Finding{Status: StatusOK, Socket: s.Socket,
				Text: fmt.Sprintf("server PID %d %s (tmux %s)", s.PID, s.State, orUnknown(s.Version))})
		default:
			out = append(out, Finding{Status: st, Socket: s.Socket,
				Text: fmt.Sprintf("%s: %s (%s)", title(s.Verdict.Cause), s.Verdict.Detail, s.Verdict.Confidence)})
		}
		for _, c := range s.Checks {
			if s.Verdict != nil && s.Verdict.Cause != "" && (c.cause == causeEvidence || c.cause == s.Verdict.Cause) {
				status = worse(status, c.Status)
				continue // the verdict's line says it
			}
			add(c, s.Socket)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Status.severity() > out[j].Status.severity() })
	out = append(out, Finding{Status: StatusOK, Text: strconv.Itoa(ok) + " checks passed, " + strconv.Itoa(skipped) + " skipped"})
	return out, status
}

func orUnknown(s string) string {
	if s == "" {
		return "version unknown"
	}
	return s
}
