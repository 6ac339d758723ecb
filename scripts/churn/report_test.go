package main

import (
	"os"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/scripts/internal/loadtest"
)

// The fixtures are real `tmux-mcp diagnose -format json` reports of two
// churn runs on tmux 3.3a (the private directory renamed churnX): one
// where the server lived, one where it crashed (SIGSEGV) while a
// person's control client identified and tmux-mcp restarted it.
const fixtureSock = "/tmp/churnX/s"

func TestScanDiagnoseAlive(t *testing.T) {
	js, err := os.ReadFile("testdata/diagnose-ok.json")
	if err != nil {
		t.Fatal(err)
	}
	d, err := scanDiagnose(js, fixtureSock)
	if err != nil {
		t.Fatal(err)
	}
	if d.Crash || !d.Ran || d.State != "answering" || d.PID == 0 || d.JournalDeaths != 0 || len(d.DeathLines) != 0 {
		t.Errorf("scan = %+v, want a live server and no death", d)
	}
	if !strings.HasPrefix(d.Verdict, "no crash: server answering") {
		t.Errorf("verdict = %q", d.Verdict)
	}
}

func TestScanDiagnoseCrashed(t *testing.T) {
	js, err := os.ReadFile("testdata/diagnose-crashed.json")
	if err != nil {
		t.Fatal(err)
	}
	d, err := scanDiagnose(js, fixtureSock)
	if err != nil {
		t.Fatal(err)
	}
	// The restarted server answers: the death shows in the journal (once
	// per tmux-mcp process) and the timeline.
	if !d.Crash || d.State != "answering" || d.JournalDeaths != 3 || len(d.DeathLines) != 3 {
		t.Errorf("scan = %+v, want a crash: 3 journal deaths, 3 timeline lines", d)
	}
	if d.TopCause != "crashed (likely)" {
		t.Errorf("top cause = %q", d.TopCause)
	}
	for _, want := range []string{"CRASH/DEATH", "crashed ×3", "likeliest cause: crashed"} {
		if !strings.Contains(d.Verdict, want) {
			t.Errorf("verdict %q lacks %q", d.Verdict, want)
		}
	}
}

func TestScanDiagnoseDeadOrMissing(t *testing.T) {
	dead := `{"status":"fail","servers":[{"path":"/x/s","state":"dead","verdict":{"cause":"crashed","confidence":"certain"},"checks":[]}],
		"timeline":[{"source":"kernel","what":"tmux[12]: segfault at 0"}]}`
	d, err := scanDiagnose([]byte(dead), "/x/s")
	if err != nil {
		t.Fatal(err)
	}
	if !d.Crash || !strings.Contains(d.Verdict, "verdict crashed (certain)") || !strings.Contains(d.Verdict, "state dead") ||
		len(d.DeathLines) != 1 {
		t.Errorf("dead server: %+v", d)
	}
	d, err = scanDiagnose([]byte(dead), "/other/s")
	if err != nil {
		t.Fatal(err)
	}
	if !d.Crash || !strings.Contains(d.Verdict, "no report of the server on /other/s") {
		t.Errorf("server missing from the report: %+v", d)
	}
	if _, err := scanDiagnose([]byte("# tmux diagnosis"), "/x/s"); err == nil {
		t.Error("markdown read as JSON")
	}
}

func TestConnectingAt(t *testing.T) {
	attaches := []Attach{
		{N: 1, Session: "a", Start: 1.0, FirstOutput: 1.005, End: 3},      // long done
		{N: 2, Session: "b", Start: 4.90, FirstOutput: 0, End: 4.95},      // never answered, ended by the death
		{N: 3, Session: "c", Start: 4.80, FirstOutput: 4.93, End: 4.96},   // answered just before the detection
		{N: 4, Session: "d", Start: 5.5, FirstOutput: 5.51, End: 6},       // after the death
		{N: 5, Session: "e", Start: 2.0, FirstOutput: 0, End: 2.1},        // never answered, long ago
		{N: 6, Session: "f", Start: 4.0, FirstOutput: 4.004, End: 4.9999}, // answered long before
	}
	got := connectingAt(5.0, attaches)
	for _, want := range []string{"#2 (session b) started 100 ms before, never answered", "#3 (session c)"} {
		if !strings.Contains(got, want) {
			t.Errorf("connectingAt = %q, want it to name %q", got, want)
		}
	}
	for _, not := range []string{"#1 ", "#4 ", "#5 ", "#6 "} {
		if strings.Contains(got, not) {
			t.Errorf("connectingAt = %q names %s", got, not)
		}
	}
	if got := connectingAt(10, attaches); got != "" {
		t.Errorf("no client connecting at 10 s, got %q", got)
	}
}

// passing is a report of a run where nothing went wrong.
func passing() *Report {
	return &Report{
		ChurnStart: 1,
		Settings:   Settings{Person: true, PersonControl: true, Pace: "realistic", TmuxVersion: "tmux 3.3a", MCP: 2},
		Server:     ServerLife{PIDStart: 10, PIDEnd: 10, AliveAtEnd: true, Checks: 1800},
		Agents:     []ActorStats{{Name: "agent-1", Calls: 500, Errors: 1}, {Name: "agent-2", Calls: 480}},
		Person:     ActorStats{Name: "person", Calls: 90, Errors: 3},
		Clients:    PersonStats{ControlEnabled: true, ControlAttaches: 20},
		MCP:        []MCPHealth{{N: 1, State: "up"}, {N: 2, State: "up"}},
		Diagnose:   DiagnoseResult{Ran: true, Verdict: "no crash: server answering"},
	}
}

func verdict(t *testing.T, vs []loadtest.Verdict, name string) loadtest.Verdict {
	t.Helper()
	for _, v := range vs {
		if v.Name == name {
			return v
		}
	}
	t.Fatalf("no verdict %q in %+v", name, vs)
	return loadtest.Verdict{}
}

func TestJudgePass(t *testing.T) {
	vs := Judge(passing())
	if !loadtest.Passed(vs) {
		t.Fatalf("verdicts of a clean run: %+v", vs)
	}
}

func TestJudgeFailures(t *testing.T) {
	cases := []struct {
		name    string
		change  func(*Report)
		verdict string
		detail  string
	}{
		{"death", func(r *Report) {
			r.Server.Deaths = []Death{{At: 31.5, PID: 10, How: "killed by signal SIGSEGV", During: "person control client #4"}}
		}, "tmux server alive throughout", "first: PID 10 30.5 s into the churn, killed by signal SIGSEGV; during person control client #4"},
		{"dead at the end", func(r *Report) { r.Server.AliveAtEnd = false }, "tmux server alive throughout", "not alive at the end"},
		{"restart", func(r *Report) { r.MCP[1].Restarts, r.MCP[1].LastDeathCause = 1, "crashed" }, "no restart by tmux-mcp",
			"tmux-mcp 2: 1 restart(s), last death crashed"},
		{"health failed", func(r *Report) { r.MCP[0].Error = "EOF" }, "no restart by tmux-mcp", "server_health failed: EOF"},
		{"no tmux-mcp", func(r *Report) { r.MCP = nil }, "no restart by tmux-mcp", "no tmux-mcp process reported"},
		{"diagnose crash", func(r *Report) { r.Diagnose.Crash, r.Diagnose.Verdict = true, "CRASH/DEATH: x" }, "diagnose shows no crash or death", "CRASH/DEATH: x"},
		{"diagnose not run", func(r *Report) { r.Diagnose = DiagnoseResult{Verdict: "diagnose did not run"} }, "diagnose shows no crash or death", "did not run"},
		{"idle agent", func(r *Report) { r.Agents[1].Errors = r.Agents[1].Calls }, "every actor worked", "agent-2"},
		{"no control attach", func(r *Report) { r.Clients.ControlAttaches = 0 }, "every actor worked", "person's control clients"},
		{"leak", func(r *Report) { r.Leaked = []string{"123 (tmux)"} }, "nothing left running", "123 (tmux)"},
		{"hung call", func(r *Report) {
			r.Agents[0].Ops = map[string]OpStats{"run_command": {Calls: 9, Errors: 1, ErrorClasses: map[string]int{"timeout": 1}}}
		}, "no agent call hung or lost its connection", "agent-1 run_command timeout ×1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := passing()
			c.change(r)
			vs := Judge(r)
			if loadtest.Passed(vs) {
				t.Fatal("passed")
			}
			v := verdict(t, vs, c.verdict)
			if v.Pass || !strings.Contains(v.Detail, c.detail) {
				t.Errorf("%s = %+v, want a failure saying %q", c.verdict, v, c.detail)
			}
		})
	}
	// Without the person's control clients none are expected.
	r := passing()
	r.Settings.PersonControl, r.Clients.ControlAttaches = false, 0
	if vs := Judge(r); !loadtest.Passed(vs) {
		t.Errorf("person-control off: %+v", vs)
	}
}

func TestTableRow(t *testing.T) {
	r := passing()
	r.Seconds = 180.4
	if got, want := TableRow(r), "| 3.3a | on | realistic | 180 s | no | - | no crash | 0 | 1 of 980 / 3 of 90 | 20 |\n"; got != want {
		t.Errorf("row = %q\nwant  %q", got, want)
	}
	r.Server.Deaths = []Death{{At: 3.25, How: "killed by signal SIGSEGV (core dumped)"}, {At: 9, How: "exited with status 0"}}
	r.MCP[0].Restarts, r.MCP[1].Restarts = 2, 2
	r.Diagnose.Crash, r.Diagnose.Verdict = true, "CRASH/DEATH: journal: 4 death(s) | x"
	r.Diagnose.JournalDeaths, r.Diagnose.TopCause = 4, "crashed (likely)"
	r.Diagnose.JournalSummary = "4 death(s) recorded in the last 24h0m0s (crashed ×3, killed ×1), 4 restart(s), 1 restore(s)"
	want := "| 3.3a | on | realistic | 180 s | **yes**: SIGSEGV ×1, exit 0 ×1 | 2.2 s | journal: crashed ×3, killed ×1; likeliest crashed (likely) | 4 | 1 of 980 / 3 of 90 | 20 |\n"
	if got := TableRow(r); got != want {
		t.Errorf("row = %q\nwant  %q", got, want)
	}
}

func TestClassOfTmux(t *testing.T) {
	for msg, want := range map[string]string{
		"":                                  "",
		"no server running on /tmp/churn/s": "server_gone",
		"server exited unexpectedly":        "server_gone",
		"can't find pane: %12":              "not_found",
		"duplicate session: p-1":            "duplicate",
		"timed out after 10s":               "timeout",
		"unknown command: frob":             "tmux_error",
	} {
		if got := classOfTmux(msg); got != want {
			t.Errorf("classOfTmux(%q) = %q, want %q", msg, got, want)
		}
	}
}

func TestOpsLine(t *testing.T) {
	a := ActorStats{Ops: map[string]OpStats{
		"kill_pane":    {Calls: 3},
		"capture_pane": {Calls: 9, Errors: 3, ErrorClasses: map[string]int{"restarting": 2, "timeout": 1}},
		"create":       {Calls: 3},
	}}
	if got, want := opsLine(a), "capture_pane 9 (restarting ×2, timeout ×1), create 3, kill_pane 3"; got != want {
		t.Errorf("opsLine = %q, want %q", got, want)
	}
}

func TestDeathKinds(t *testing.T) {
	ds := []Death{{How: "killed by signal SIGSEGV"}, {How: "exited with status 0"}, {How: "killed by signal SIGSEGV (core dumped)"},
		{How: "gone; its exit status was not seen (reaped by its parent)"}, {How: "ended; not yet reaped after 300 ms"}}
	if got, want := deathKinds(ds), "SIGSEGV ×2, exit 0 ×1, other ×1, unseen ×1"; got != want {
		t.Errorf("deathKinds = %q, want %q", got, want)
	}
}

func TestTableDiagnose(t *testing.T) {
	for _, c := range []struct {
		d    DiagnoseResult
		want string
	}{
		{DiagnoseResult{}, "did not run"},
		{DiagnoseResult{Ran: true}, "no crash"},
		{DiagnoseResult{Ran: true, Crash: true, Cause: "crashed", State: "dead"}, "verdict crashed"},
		{DiagnoseResult{Ran: true, Crash: true, JournalDeaths: 2}, "journal: 2 deaths"},
		{DiagnoseResult{Ran: true, Crash: true, Verdict: "CRASH/DEATH: no report of the server on /x"}, "no report of the server on /x"},
	} {
		if got := tableDiagnose(c.d); got != c.want {
			t.Errorf("tableDiagnose(%+v) = %q, want %q", c.d, got, c.want)
		}
	}
}
