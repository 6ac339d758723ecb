package main

import (
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/scripts/internal/loadtest"
)

// Report is one churn run: report.json, and summary.txt in words.
type Report struct {
	Started time.Time `json:"started"`
	Seconds float64   `json:"seconds"` // the churn itself, set-up and diagnose excluded
	// ChurnStart is when the churn began. Every time in the report is in
	// seconds since the harness started; set-up takes the first few.
	ChurnStart float64            `json:"churn_start_s"`
	Settings   Settings           `json:"settings"`
	Host       Host               `json:"host"`
	Server     ServerLife         `json:"server"`
	Agents     []ActorStats       `json:"agents"`
	Person     ActorStats         `json:"person"`
	Clients    PersonStats        `json:"person_clients"`
	MCP        []MCPHealth        `json:"tmux_mcp"`
	Diagnose   DiagnoseResult     `json:"diagnose"`
	Leaked     []string           `json:"leaked,omitempty"`
	Notes      []string           `json:"notes,omitempty"`
	Verdicts   []loadtest.Verdict `json:"verdicts"`
	Passed     bool               `json:"passed"`
}

// Settings are the run's settings.
type Settings struct {
	Duration      string `json:"duration"`
	Tmux          string `json:"tmux"`
	TmuxVersion   string `json:"tmux_version"`
	TmuxMCP       string `json:"tmux_mcp"`
	MCP           int    `json:"mcp"`
	Pace          string `json:"pace"`
	Person        bool   `json:"person"`
	PersonControl bool   `json:"person_control"`
	PersonPTY     bool   `json:"person_pty"`
	Seed          uint64 `json:"seed"`
}

// Host is the machine.
type Host struct {
	CPUs      int    `json:"cpus"`
	LoadStart string `json:"load_start"` // /proc/loadavg
	LoadEnd   string `json:"load_end"`
}

// ServerLife is what the monitor saw of the tmux server.
type ServerLife struct {
	PIDStart   int          `json:"pid_start"`
	PIDEnd     int          `json:"pid_end"`
	AliveAtEnd bool         `json:"alive_at_end"`
	Checks     int          `json:"checks"`
	Deaths     []Death      `json:"deaths"`
	Servers    []ServerSeen `json:"servers"`
}

// Death is one death of the server the monitor watched.
type Death struct {
	At  float64 `json:"at_s"` // detected, seconds since the harness started
	PID int     `json:"pid"`
	How string  `json:"how"` // its wait status, in words
	// During names a person's control client that was in its handshake
	// (started, no reply yet) when the server died, if any.
	During string `json:"during,omitempty"`
}

// ActorStats is one actor's calls.
type ActorStats struct {
	Name   string             `json:"name"`
	Calls  int                `json:"calls"`
	Errors int                `json:"errors"`
	Ops    map[string]OpStats `json:"ops"`
}

// OpStats is one operation of an actor.
type OpStats struct {
	Calls        int                `json:"calls"`
	Errors       int                `json:"errors"`
	ErrorClasses map[string]int     `json:"error_classes,omitempty"`
	Examples     []string           `json:"examples,omitempty"`
	Latency      loadtest.Latencies `json:"latency"`
}

// PersonStats are the clients the person attached.
type PersonStats struct {
	ControlEnabled  bool               `json:"control_enabled"`
	ControlAttaches int                `json:"control_attaches"`
	Handshake       loadtest.Latencies `json:"control_handshake"` // start to first output
	PTYAttaches     int                `json:"pty_attaches"`
	PTYSkipped      string             `json:"pty_skipped,omitempty"`
	Control         []Attach           `json:"control"`
	PTY             []Attach           `json:"pty"`
}

// MCPHealth is one tmux-mcp process at the end: its server_health and
// the server life events it announced.
type MCPHealth struct {
	N              int      `json:"n"`
	PID            int      `json:"pid"`
	State          string   `json:"state"`
	ServerPID      int      `json:"server_pid"`
	Restarts       int      `json:"restarts"`
	LastDeathCause string   `json:"last_death_cause,omitempty"`
	LastDeath      string   `json:"last_death,omitempty"`
	Events         []string `json:"events,omitempty"`
	Error          string   `json:"error,omitempty"` // server_health failed
	Exit           string   `json:"exit,omitempty"`  // how the process ended, if not on request
}

// handshakeSlack is how long after a death its detection may come: the
// monitor looks every 100 ms, on a loaded machine later.
const handshakeSlack = 250 * time.Millisecond

// connectingAt names the control client of attaches that was in its
// handshake when a death was detected at at (seconds): started before
// it, with no output at all or its first output within handshakeSlack
// before it. "" when none was.
func connectingAt(at float64, attaches []Attach) string {
	slack := handshakeSlack.Seconds()
	var names []string
	for _, a := range attaches {
		if a.Start > at {
			continue
		}
		if a.FirstOutput == 0 && (a.End == 0 || a.End >= at-slack) || a.FirstOutput >= at-slack {
			s := fmt.Sprintf("person control client #%d (session %s) started %.0f ms before", a.N, a.Session, (at-a.Start)*1000)
			if a.FirstOutput == 0 {
				s += ", never answered"
			}
			if a.Error != "" {
				s += ", ended: " + a.Error
			}
			names = append(names, s)
		}
	}
	return strings.Join(names, "; ")
}

// Judge gives the run's verdicts: the server never died, tmux-mcp
// never restarted it, diagnose shows no crash or death, the actors
// worked, and nothing was left running.
func Judge(r *Report) []loadtest.Verdict {
	var vs []loadtest.Verdict
	life := r.Server
	alive := loadtest.Verdict{Name: "tmux server alive throughout", Pass: len(life.Deaths) == 0 && life.AliveAtEnd}
	switch {
	case len(life.Deaths) > 0:
		d := life.Deaths[0]
		alive.Detail = fmt.Sprintf("%d death(s); first: PID %d %.1f s into the churn, %s", len(life.Deaths), d.PID, d.At-r.ChurnStart, d.How)
		if d.During != "" {
			alive.Detail += "; during " + d.During
		}
	case !life.AliveAtEnd:
		alive.Detail = fmt.Sprintf("PID %d not alive at the end", life.PIDEnd)
	default:
		alive.Detail = fmt.Sprintf("PID %d alive at every one of %d checks (every 100 ms)", life.PIDStart, life.Checks)
	}
	vs = append(vs, alive)

	restarts := loadtest.Verdict{Name: "no restart by tmux-mcp", Pass: true}
	var rs []string
	for _, m := range r.MCP {
		switch {
		case m.Error != "":
			restarts.Pass = false
			rs = append(rs, fmt.Sprintf("tmux-mcp %d: server_health failed: %s", m.N, m.Error))
		case m.Restarts > 0 || m.LastDeathCause != "":
			restarts.Pass = false
			rs = append(rs, fmt.Sprintf("tmux-mcp %d: %d restart(s), last death %s", m.N, m.Restarts, orDash(m.LastDeathCause)))
		}
	}
	if len(r.MCP) == 0 {
		restarts.Pass = false
		rs = append(rs, "no tmux-mcp process reported")
	}
	restarts.Detail = strings.Join(rs, "; ")
	if restarts.Pass {
		restarts.Detail = fmt.Sprintf("%d tmux-mcp process(es): 0 restarts, no death recorded", len(r.MCP))
	}
	vs = append(vs, restarts)

	vs = append(vs, loadtest.Verdict{Name: "diagnose shows no crash or death", Pass: r.Diagnose.Ran && !r.Diagnose.Crash,
		Detail: r.Diagnose.Verdict})

	worked := loadtest.Verdict{Name: "every actor worked", Pass: true}
	var idle []string
	for _, a := range r.Agents {
		if a.Calls-a.Errors <= 0 {
			idle = append(idle, a.Name)
		}
	}
	if r.Settings.Person && r.Person.Calls-r.Person.Errors <= 0 {
		idle = append(idle, "person")
	}
	if r.Settings.PersonControl && r.Clients.ControlAttaches == 0 {
		idle = append(idle, "person's control clients")
	}
	if len(r.Agents) == 0 || len(idle) > 0 {
		worked.Pass = false
		worked.Detail = "no successful call: " + strings.Join(idle, ", ")
		if len(r.Agents) == 0 {
			worked.Detail = "no agent ran"
		}
	} else {
		worked.Detail = fmt.Sprintf("%d agent(s), %d calls; person %d calls, %d control attaches", len(r.Agents),
			sumCalls(r.Agents), r.Person.Calls, r.Clients.ControlAttaches)
	}
	vs = append(vs, worked)

	vs = append(vs, hungCalls(r.Agents))

	vs = append(vs, loadtest.Verdict{Name: "nothing left running", Pass: len(r.Leaked) == 0, Detail: leakDetail(r.Leaked)})
	return vs
}

func sumCalls(as []ActorStats) int {
	n := 0
	for _, a := range as {
		n += a.Calls
	}
	return n
}

func leakDetail(l []string) string {
	if len(l) == 0 {
		return "every process the run started has exited"
	}
	return "killed at the end: " + strings.Join(l, "; ")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// deathKinds tallies how the deaths ended, most frequent first:
// "SIGSEGV ×7, exit 0 ×4, unseen ×1". A server that exits 0 ended on
// its own (its last session closed: a server a person's new-session
// started after tmux-mcp stopped restarting); "unseen" is one whose
// parent (tmux-mcp, for a server it started) reaped it first.
func deathKinds(ds []Death) string {
	m := map[string]int{}
	for _, d := range ds {
		k := "other"
		switch {
		case strings.HasPrefix(d.How, "killed by signal "):
			k = strings.Fields(strings.TrimPrefix(d.How, "killed by signal "))[0]
		case strings.HasPrefix(d.How, "exited with status "):
			k = "exit " + strings.Fields(strings.TrimPrefix(d.How, "exited with status "))[0]
		case strings.HasPrefix(d.How, "gone"):
			k = "unseen"
		}
		m[k]++
	}
	return errorSummary(m)
}

// firstDeath is "no", or "yes, at N s" (and how many) for a table.
func firstDeath(l ServerLife, churnStart float64) string {
	if len(l.Deaths) == 0 {
		if !l.AliveAtEnd {
			return "not alive at end"
		}
		return "no"
	}
	s := fmt.Sprintf("yes, %.1f s into the churn", l.Deaths[0].At-churnStart)
	if n := len(l.Deaths); n > 1 {
		s += fmt.Sprintf(" (%d deaths: %s)", n, deathKinds(l.Deaths))
	}
	return s
}

// writeSummary writes the run in words.
func writeSummary(w io.Writer, r *Report) {
	word := "PASS"
	if !r.Passed {
		word = "FAIL"
	}
	s := r.Settings
	fmt.Fprintf(w, "churn: %s — %s, %.0f s of churn, pace %s, %d tmux-mcp, person %s (control clients %s, PTY clients %s), seed %d\n",
		word, s.TmuxVersion, r.Seconds, s.Pace, s.MCP, onOff(s.Person), onOff(s.PersonControl), onOff(s.PersonPTY && r.Clients.PTYSkipped == ""), s.Seed)
	fmt.Fprintf(w, "tmux %s; tmux-mcp %s; %d CPUs, load %s -> %s\n", s.Tmux, s.TmuxMCP, r.Host.CPUs, r.Host.LoadStart, r.Host.LoadEnd)
	l := r.Server
	fmt.Fprintf(w, "times: seconds since the harness started; the churn began at %.1f s\n", r.ChurnStart)
	fmt.Fprintf(w, "server: PID %d at the start, %d at the end; died: %s\n", l.PIDStart, l.PIDEnd, firstDeath(l, r.ChurnStart))
	for _, d := range l.Deaths {
		fmt.Fprintf(w, "  death at %.1f s: PID %d %s", d.At, d.PID, d.How)
		if d.During != "" {
			fmt.Fprintf(w, "; during %s", d.During)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "operations (calls / errors):")
	for _, a := range append(append([]ActorStats(nil), r.Agents...), r.Person) {
		if a.Name == "" {
			continue
		}
		fmt.Fprintf(w, "  %-8s %6d / %-5d %s\n", a.Name, a.Calls, a.Errors, opsLine(a))
	}
	c := r.Clients
	if c.ControlEnabled {
		fmt.Fprintf(w, "person's clients: %d control attaches (attach to reply p50 %.1f ms, max %.1f ms; %d never answered), %d PTY attaches",
			c.ControlAttaches, c.Handshake.P50, c.Handshake.Max, c.ControlAttaches-c.Handshake.N, c.PTYAttaches)
	} else {
		fmt.Fprintf(w, "person's clients: control clients off, %d PTY attaches", c.PTYAttaches)
	}
	if c.PTYSkipped != "" {
		fmt.Fprintf(w, " (PTY skipped: %s)", c.PTYSkipped)
	}
	fmt.Fprintln(w)
	for _, m := range r.MCP {
		fmt.Fprintf(w, "tmux-mcp %d (PID %d): state %s, server PID %d, restarts %d, last death %s", m.N, m.PID, orDash(m.State), m.ServerPID,
			m.Restarts, orDash(m.LastDeathCause))
		if m.Error != "" {
			fmt.Fprintf(w, ", server_health: %s", m.Error)
		}
		if m.Exit != "" {
			fmt.Fprintf(w, ", %s", m.Exit)
		}
		fmt.Fprintln(w)
		for _, e := range m.Events {
			fmt.Fprintf(w, "    %s\n", e)
		}
	}
	fmt.Fprintf(w, "diagnose (exit %d): %s\n", r.Diagnose.ExitCode, r.Diagnose.Verdict)
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	for _, v := range r.Verdicts {
		mark := "ok  "
		if !v.Pass {
			mark = "FAIL"
		}
		fmt.Fprintf(w, "%s %s: %s\n", mark, v.Name, v.Detail)
	}
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// opsLine is "op n[/errors class ×k], ..." for an actor, busiest first.
func opsLine(a ActorStats) string {
	names := make([]string, 0, len(a.Ops))
	for n := range a.Ops {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		x, y := a.Ops[names[i]], a.Ops[names[j]]
		return x.Calls > y.Calls || x.Calls == y.Calls && names[i] < names[j]
	})
	var parts []string
	for _, n := range names {
		o := a.Ops[n]
		p := fmt.Sprintf("%s %d", n, o.Calls)
		if o.Errors > 0 {
			p += " (" + errorSummary(o.ErrorClasses) + ")"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ", ")
}

// causesRe finds the causes in the journal check's summary:
// "3 death(s) recorded in the last 24h0m0s (crashed ×2, killed ×1), ...".
var causesRe = regexp.MustCompile(`\(([^)]*×[^)]*)\)`)

// tableDiagnose is diagnose's verdict, short, for a table cell.
func tableDiagnose(d DiagnoseResult) string {
	switch {
	case !d.Ran:
		return "did not run"
	case !d.Crash:
		return "no crash"
	}
	var parts []string
	if d.Cause != "" {
		parts = append(parts, "verdict "+d.Cause)
	}
	if d.JournalDeaths > 0 {
		j := fmt.Sprintf("%d deaths", d.JournalDeaths)
		if m := causesRe.FindStringSubmatch(d.JournalSummary); m != nil {
			j = m[1]
		}
		parts = append(parts, "journal: "+j)
	}
	if d.TopCause != "" {
		parts = append(parts, "likeliest "+d.TopCause)
	}
	if len(parts) == 0 {
		return strings.TrimPrefix(d.Verdict, "CRASH/DEATH: ")
	}
	return strings.Join(parts, "; ")
}

// TableHeader and TableRow make the Markdown table of several runs
// (churn -table).
const TableHeader = "| tmux | person control | pace | duration | server died? | when | diagnose | restarts | errors (agents / person) | control attaches |\n" +
	"|---|---|---|---:|---|---:|---|---:|---|---:|\n"

// TableRow is one run's row.
func TableRow(r *Report) string {
	died, when := "no", "-"
	if n := len(r.Server.Deaths); n > 0 {
		died = "**yes**: " + deathKinds(r.Server.Deaths)
		when = fmt.Sprintf("%.1f s", r.Server.Deaths[0].At-r.ChurnStart)
	} else if !r.Server.AliveAtEnd {
		died = "not alive at end"
	}
	restarts := 0
	for _, m := range r.MCP {
		restarts += m.Restarts
	}
	agentErr := 0
	for _, a := range r.Agents {
		agentErr += a.Errors
	}
	diag := tableDiagnose(r.Diagnose)
	return fmt.Sprintf("| %s | %s | %s | %.0f s | %s | %s | %s | %d | %d of %d / %d of %d | %d |\n",
		strings.TrimPrefix(r.Settings.TmuxVersion, "tmux "), onOff(r.Settings.PersonControl), r.Settings.Pace, r.Seconds,
		died, when, strings.ReplaceAll(diag, "|", "/"), restarts, agentErr, sumCalls(r.Agents), r.Person.Errors, r.Person.Calls,
		r.Clients.ControlAttaches)
}

// hungClasses are the error classes of an agent's call that tmux-mcp
// should never give while its server lives: a command tmux did not answer,
// a connection dropped. (An agent racing the person's kills gets
// not_found and the like; those are the churn's, not faults.)
var hungClasses = []string{"timeout", "connection_lost", "server_down", "server_exited", "result_unknown", "internal"}

// hungCalls is the verdict on agents' calls that timed out or lost their
// connection.
func hungCalls(agents []ActorStats) loadtest.Verdict {
	v := loadtest.Verdict{Name: "no agent call hung or lost its connection", Pass: true, Detail: "none"}
	var bad []string
	for _, a := range agents {
		for op, st := range a.Ops {
			for _, c := range hungClasses {
				if n := st.ErrorClasses[c]; n > 0 {
					bad = append(bad, fmt.Sprintf("%s %s %s ×%d", a.Name, op, c, n))
				}
			}
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		v.Pass, v.Detail = false, strings.Join(bad, ", ")
	}
	return v
}
