package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/diagnostics"
	"github.com/tmux-mcp/tmux-mcp/journal"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/supervisor/death"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// runDiagnoseCmd runs `tmux-mcp diagnose args...` in-process with no
// TMUX_MCP_* settings from the caller's environment, and no journal (the
// default one is the user's).
func runDiagnoseCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	getenv := func(k string) string {
		if k == "TMUX_MCP_JOURNAL" {
			return "off"
		}
		return ""
	}
	code = run(context.Background(), append([]string{"diagnose"}, args...),
		env{stdout: &out, stderr: &errb, getenv: getenv})
	return code, out.String(), errb.String()
}

// privateTmpdir points tmux's socket directory at an empty directory of
// the test's own.
func privateTmpdir(t *testing.T) string {
	t.Helper()
	tmp, err := os.MkdirTemp("", "dgc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	t.Setenv("TMUX_TMPDIR", tmp)
	return tmp
}

// TestDiagnoseWithNoServerAtAll: on a machine without any tmux server,
// `tmux-mcp diagnose` prints a short, correct report, exits 0 or 1, and
// creates nothing.
func TestDiagnoseWithNoServerAtAll(t *testing.T) {
	tmp := privateTmpdir(t)
	code, out, errOut := runDiagnoseCmd(t)
	if code != diagnostics.ExitOK && code != diagnostics.ExitWarnings {
		t.Fatalf("exit %d, want 0 or 1\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if errOut != "" {
		t.Errorf("stderr = %q, want nothing", errOut)
	}
	for _, want := range []string{"# tmux diagnosis", "`tmux-mcp` no server running, and no trace of one", "## Likely causes"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "\n"); n > 60 {
		t.Errorf("report has %d lines, want a short one:\n%s", n, out)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("TMUX_TMPDIR holds %d entries after diagnose, want none (no server, no socket directory)", len(entries))
	}
}

// healthyReport checks the report on a healthy server: status ok, or
// where the capability table says the version has known regressions
// (SpinRegressions, DeadPaneOutputCrash), warn from exactly the two checks
// that name them (the binary's and the server's). It returns the exit code diagnose must give.
func healthyReport(t *testing.T, ts *tmuxtest.Server, r diagnostics.Report) int {
	t.Helper()
	want, exit, wantWarned := diagnostics.StatusOK, diagnostics.ExitOK, []string{}
	if caps := serverCaps(t, ts); caps.SpinRegressions || caps.DeadPaneOutputCrash {
		want, exit, wantWarned = diagnostics.StatusWarn, diagnostics.ExitWarnings, []string{"server.known_bad", "tmux.binary"}
	}
	warned := []string{}
	checks := r.System
	for _, s := range r.Servers {
		checks = append(checks, s.Checks...)
	}
	for _, c := range checks {
		if c.Status != diagnostics.StatusOK && c.Status != diagnostics.StatusSkipped {
			warned = append(warned, c.ID)
		}
	}
	if slices.Sort(warned); r.Status != want || !slices.Equal(warned, wantWarned) {
		t.Errorf("healthy server: status %s with checks %q not ok; want %s with %q", r.Status, warned, want, wantWarned)
	}
	return exit
}

func TestDiagnoseFlagsAndExitCodes(t *testing.T) {
	privateTmpdir(t)
	ts := tmuxtest.New(t)
	pid := ts.Start("main")

	code, out, _ := runDiagnoseCmd(t, "--socket-path", ts.Socket, "--format", "json", "--since", "1h")
	var r diagnostics.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("--format json: %v\n%s", err, out)
	}
	if want := healthyReport(t, ts, r); code != want {
		t.Errorf("healthy server: exit %d, want %d\n%s", code, want, out)
	}
	if r.SchemaVersion != diagnostics.SchemaVersion || len(r.Servers) != 1 || r.Servers[0].PID != pid {
		t.Errorf("json report: schema %d, servers %+v; want schema %d and server PID %d", r.SchemaVersion, r.Servers, diagnostics.SchemaVersion, pid)
	}

	// A failure: the socket deleted under a live server. --out writes the
	// report to a file and nothing to stdout.
	if err := os.Remove(ts.Socket); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "report.md")
	code, out, errOut := runDiagnoseCmd(t, "--socket-path", ts.Socket, "--out", file)
	if code != diagnostics.ExitFailures {
		t.Errorf("deleted socket: exit %d, want 2\n%s", code, errOut)
	}
	if out != "" || !strings.Contains(errOut, "report written to "+file) {
		t.Errorf("with --out: stdout %q, stderr %q; want nothing and a note", out, errOut)
	}
	b, err := os.ReadFile(file)
	if err != nil || !strings.Contains(string(b), "kill -USR1") {
		t.Errorf("report file: %v\n%s", err, b)
	}
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("report file mode: %v %v, want 0600", fi.Mode(), err)
	}

	for _, args := range [][]string{
		{"--format", "yaml"},
		{"--since", "-1h"},
		{"--bogus"},
		{"extra"},
		{"--socket-path", strings.Repeat("x", 200)},
	} {
		if code, _, errOut := runDiagnoseCmd(t, args...); code != diagnostics.ExitNotRun || errOut == "" {
			t.Errorf("diagnose %q: exit %d (stderr %q), want 3 with a reason", args, code, errOut)
		}
	}
	if code, _, _ := runDiagnoseCmd(t, "-h"); code != diagnostics.ExitOK {
		t.Errorf("diagnose -h: exit %d, want 0", code)
	}
}

// TestDiagnoseBinary runs the built binary: the CLI and the MCP tool over
// stdio.
func TestDiagnoseBinary(t *testing.T) {
	bin := buildBinary(t)
	privateTmpdir(t)
	ts := tmuxtest.New(t)
	ts.Start("main")

	cmd := exec.Command(bin, "diagnose", "--all")
	cmd.Env = binaryEnv(ts.Socket)
	out, err := cmd.Output()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "### Server `"+ts.Socket+"`: answering") {
		t.Errorf("diagnose --all did not find the server on %s:\n%s", ts.Socket, out)
	}

	c, _, stderr := startStdio(t, bin, binaryEnv(ts.Socket))
	defer c.Close()
	res := callTool(t, c, "diagnose", nil)
	raw := res.RawStructuredContent
	if len(raw) == 0 {
		raw, _ = json.Marshal(res.StructuredContent)
	}
	var r diagnostics.Report
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("structured content: %v\n%s", err, raw)
	}
	if len(r.Servers) != 1 || r.Servers[0].State != "answering" {
		t.Errorf("report over MCP: servers %+v; want the server answering\nstderr:\n%s", r.Servers, stderr)
	}
	healthyReport(t, ts, r)
	self := false
	for _, c := range r.System {
		self = self || c.ID == "tmux_mcp.self" && c.Status == diagnostics.StatusOK
	}
	if !self {
		t.Errorf("no tmux_mcp.self check over MCP: %+v", r.System)
	}
}

// TestDiagnoseReadsTheJournal: `tmux-mcp diagnose` reads the journal the
// settings name: its health, the server's last snapshot and the deaths it
// logged, which outlive the dead server.
func TestDiagnoseReadsTheJournal(t *testing.T) {
	privateTmpdir(t)
	tm := tmuxtest.New(t)
	tm.Start("main")
	path := filepath.Join(t.TempDir(), "journal.db")
	j, err := journal.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	sup := supervisor.New(supervisor.Config{DefaultSocket: tmux.Socket{Path: tm.Socket}, TmuxConfig: "/dev/null"})
	srv, err := sup.Default(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.TakeSnapshot(context.Background(), srv); err != nil {
		t.Fatal(err)
	}
	j.Append(supervisor.Event{Type: supervisor.EventServerDied, Socket: srv.Socket(), PID: 4242, Cause: death.CauseKilled})
	if err := j.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(sup.Close(), j.Close()); err != nil {
		t.Fatal(err)
	}

	var out, errb bytes.Buffer
	vars := map[string]string{"TMUX_MCP_JOURNAL": path, "TMUX_MCP_SOCKET_PATH": tm.Socket}
	code := run(context.Background(), []string{"diagnose", "--format", "json"},
		env{stdout: &out, stderr: &errb, getenv: func(k string) string { return vars[k] }})
	if code == diagnostics.ExitNotRun {
		t.Fatalf("exit %d; stderr:\n%s", code, errb.String())
	}
	var r diagnostics.Report
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("decode report: %v\n%s", err, out.String())
	}
	got := map[string]diagnostics.Check{}
	for _, c := range r.System {
		got[c.ID] = c
	}
	for _, s := range r.Servers {
		for _, c := range s.Checks {
			got[c.ID] = c
		}
	}
	if c := got["journal"]; c.Status != diagnostics.StatusOK || !strings.Contains(c.Summary, "1 server") {
		t.Errorf("journal check = %s %q, want ok with records of 1 server", c.Status, c.Summary)
	}
	c := got["journal.server"]
	text, _ := json.Marshal(c)
	for _, want := range []string{"1 sessions, 1 windows, 1 panes", "killed"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("journal.server check lacks %q: %s", want, text)
		}
	}
}
