package main

import (
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/scripts/internal/loadtest"
)

func find(vs []loadtest.Verdict, prefix string) (loadtest.Verdict, bool) {
	for _, v := range vs {
		if strings.HasPrefix(v.Name, prefix) {
			return v, true
		}
	}
	return loadtest.Verdict{}, false
}

func TestJudgeFaults(t *testing.T) {
	b := DefaultBounds(3000)
	tests := []struct {
		name    string
		fault   Fault
		verdict string
		pass    bool
		present bool
	}{
		{"death detected in bound", Fault{Kind: FaultKill, Died: true, DetectedMs: 50, RecoveredMs: 900, Recoverable: true}, "detected: kill-9", true, true},
		{"death never detected", Fault{Kind: FaultKill, Died: true, DetectedMs: -1, RecoveredMs: 900, Recoverable: true}, "detected: kill-9", false, true},
		{"death detected too late", Fault{Kind: FaultKill, Died: true, DetectedMs: 15001, RecoveredMs: 20000, Recoverable: true}, "detected: kill-9", false, true},
		{"hang gets the hung bound", Fault{Kind: FaultHang, Died: true, DetectedMs: 17000, RecoveredMs: 20000, Recoverable: true}, "detected: sigstop", true, true},
		{"hang past the hung bound", Fault{Kind: FaultHang, Died: true, DetectedMs: 18001, RecoveredMs: 20000, Recoverable: true}, "detected: sigstop", false, true},
		{"not recovered", Fault{Kind: FaultKill, Died: true, DetectedMs: 50, RecoveredMs: -1, Recoverable: true}, "recovered: kill-9", false, true},
		{"recovered too late", Fault{Kind: FaultKill, Died: true, DetectedMs: 50, RecoveredMs: 60001, Recoverable: true}, "recovered: kill-9", false, true},
		{"unrecoverable death needs no recovery", Fault{Kind: FaultExitEmpty, Died: true, DetectedMs: 50, RecoveredMs: -1}, "recovered:", false, false},
		{"no death, no detection verdict", Fault{Kind: FaultStuck, DetectedMs: -1, RecoveredMs: -1}, "detected:", false, false},
		{"objects lost", Fault{Kind: FaultKill, Died: true, DetectedMs: 50, RecoveredMs: 900, Recoverable: true, ObjectsBefore: 3, Lost: []string{"pane a/b.1"}}, "nothing lost: kill-9", false, true},
		{"nothing lost", Fault{Kind: FaultKill, Died: true, DetectedMs: 50, RecoveredMs: 900, Recoverable: true, ObjectsBefore: 3}, "nothing lost: kill-9", true, true},
		{"failed restore", Fault{Kind: FaultKill, Died: true, DetectedMs: 50, RecoveredMs: 900, Recoverable: true, RestoreReported: true}, "restore succeeded: kill-9", false, true},
		{"good restore", Fault{Kind: FaultKill, Died: true, DetectedMs: 50, RecoveredMs: 900, Recoverable: true, RestoreReported: true, Restored: true}, "restore succeeded: kill-9", true, true},
		{"fault's own check fails", Fault{Kind: FaultFDLimit, Check: "server answers", CheckPass: false}, "fd-limit: server answers", false, true},
		{"skipped fault is not judged", Fault{Kind: FaultPTY, Skipped: "no", Died: true, DetectedMs: -1}, "detected:", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs := Judge(nil, []Fault{tt.fault}, nil, b)
			v, ok := find(vs, tt.verdict)
			if ok != tt.present {
				t.Fatalf("verdict %q present = %v, want %v (verdicts %+v)", tt.verdict, ok, tt.present, vs)
			}
			if ok && v.Pass != tt.pass {
				t.Errorf("verdict %q pass = %v, want %v (%s)", v.Name, v.Pass, tt.pass, v.Detail)
			}
		})
	}
}

func TestJudgeServerGrowth(t *testing.T) {
	b := DefaultBounds(3000)
	const mb = 1 << 20
	phase := func(rss0, rss1 uint64, fd0, fd1, w0, w1 int, died bool) []Phase {
		return []Phase{
			{Workload: "idle", RSSStart: rss0, FDsStart: fd0, WatchersStart: w0, ServerPID: 1},
			{Workload: "raw", RSSEnd: rss1, FDsEnd: fd1, WatchersEnd: w1, ServerPID: 1, Died: died},
			{Workload: "mixed", RSSStart: 1, RSSEnd: 1000 * mb, FDsStart: 1, FDsEnd: 1000}, // faults' phase is not judged here
		}
	}
	tests := []struct {
		name    string
		phases  []Phase
		verdict string
		pass    bool
	}{
		{"flat RSS", phase(30*mb, 30*mb, 17, 17, 0, 0, false), "server RSS bounded", true},
		{"RSS within 8 MiB + 10%", phase(30*mb, 41*mb, 17, 17, 0, 0, false), "server RSS bounded", true},
		{"RSS beyond", phase(30*mb, 42*mb, 17, 17, 0, 0, false), "server RSS bounded", false},
		{"fds +4", phase(30*mb, 30*mb, 17, 21, 0, 0, false), "server fds bounded", true},
		{"fds +5", phase(30*mb, 30*mb, 17, 22, 0, 0, false), "server fds bounded", false},
		{"fds +7 with one watcher", phase(30*mb, 30*mb, 17, 24, 0, 1, false), "server fds bounded", true},
		{"fds +8 with one watcher", phase(30*mb, 30*mb, 17, 25, 0, 1, false), "server fds bounded", false},
		{"a death in the polling phases", phase(30*mb, 30*mb, 17, 17, 0, 0, true), "tmux survived the polling phases", false},
		{"no death", phase(30*mb, 30*mb, 17, 17, 0, 0, false), "tmux survived the polling phases", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, ok := find(Judge(tt.phases, nil, nil, b), tt.verdict)
			if !ok {
				t.Fatalf("no verdict %q", tt.verdict)
			}
			if v.Pass != tt.pass {
				t.Errorf("%s: pass = %v, want %v (%s)", v.Name, v.Pass, tt.pass, v.Detail)
			}
		})
	}
}

func TestJudgeLeaks(t *testing.T) {
	b := DefaultBounds(3000)
	if v, _ := find(Judge(nil, nil, nil, b), "no leaked processes"); !v.Pass {
		t.Errorf("no leaks: pass = false, want true")
	}
	vs := Judge(nil, nil, []string{"123 (tmux -S /tmp/soak1/main)"}, b)
	if v, _ := find(vs, "no leaked processes"); v.Pass {
		t.Errorf("one leak: pass = true, want false")
	}
	if loadtest.Passed(vs) {
		t.Errorf("Passed = true with a failed verdict, want false")
	}
}

func TestUnplanned(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	const sock = "/tmp/soak1/main"
	events := []event{
		{at: at(5), kind: "server_died", socket: sock, cause: "crashed"},
		{at: at(5.1), kind: "server_died", socket: "ee", cause: "last_session"}, // another server
		{at: at(5.5), kind: "restored", socket: sock, ok: true},
		{at: at(10.2), kind: "server_died", socket: sock, cause: "killed"}, // inside the kill-9 fault
		{at: at(11), kind: "restored", socket: sock, ok: true},
		{at: at(20), kind: "server_died", socket: sock, cause: "crashed"}, // never recovered
	}
	faults := []Fault{{Kind: FaultKill, At: 10, End: 12}, {Kind: FaultPTY, Skipped: "x", At: 19, End: 21}}
	got := unplanned(events, sock, t0, faults)
	if len(got) != 2 {
		t.Fatalf("unplanned = %+v, want 2 deaths", got)
	}
	if got[0].Cause != "crashed" || got[0].RecoveredMs != 500 || !got[0].Restored || !got[0].Recoverable {
		t.Errorf("first = %+v, want crashed, recovered in 500 ms, restored", got[0])
	}
	if got[1].RecoveredMs != -1 {
		t.Errorf("second recovered in %v ms, want -1 (never)", got[1].RecoveredMs)
	}
	var passes []bool
	for _, v := range Judge(nil, got, nil, DefaultBounds(3000)) {
		if strings.HasPrefix(v.Name, "recovered: unplanned") {
			passes = append(passes, v.Pass)
		}
	}
	if len(passes) != 2 || !passes[0] || passes[1] {
		t.Errorf("recovery verdicts pass = %v, want [true false]", passes)
	}
}
