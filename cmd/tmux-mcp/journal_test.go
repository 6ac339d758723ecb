package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/journal"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// runCLI runs tmux-mcp in-process with args and the given environment.
func runCLI(t *testing.T, vars map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, env{stdout: &out, stderr: &errb, getenv: func(k string) string { return vars[k] }})
	return code, out.String(), errb.String()
}

// structuredOf decodes a tool result's structured content into v.
func structuredOf(t *testing.T, res *mcp.CallToolResult, v any) {
	t.Helper()
	raw := res.RawStructuredContent
	if len(raw) == 0 {
		raw, _ = json.Marshal(res.StructuredContent)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
}

// snapshotInto writes one snapshot of the default server of a supervisor
// made with cfg into a new journal at path, and closes the journal.
func snapshotInto(t *testing.T, path string, cfg supervisor.Config) {
	t.Helper()
	sup := supervisor.New(cfg)
	t.Cleanup(func() { sup.Close() })
	j, err := journal.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := sup.Default(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := j.TakeSnapshot(context.Background(), srv); !ok || err != nil {
		t.Fatalf("TakeSnapshot = %v, %v", ok, err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestJournalCLI drives every `tmux-mcp journal` command against a journal
// holding a snapshot of a real server.
func TestJournalCLI(t *testing.T) {
	tm := tmuxtest.New(t)
	tm.Start("work")
	dir := t.TempDir()
	tm.MustTmux("new-window", "-d", "-t", "=work:", "-n", "second", "-c", dir)
	// The snapshot reads the pane's directory from its process: wait until
	// the shell runs there, not the server's child about to exec it.
	tmuxtest.WaitFor(t, 10*time.Second, "the new pane's shell in its directory", func() bool {
		out, err := tm.Tmux("display-message", "-p", "-t", "=work:second", "#{pane_current_command} #{pane_current_path}")
		return err == nil && out == "sh "+dir
	})
	path := filepath.Join(t.TempDir(), "journal.db")
	vars := map[string]string{"TMUX_MCP_JOURNAL": path, "TMUX_MCP_SOCKET_PATH": tm.Socket, "TMUX_MCP_TMUX_CONFIG": "/dev/null"}

	snapshotInto(t, path, supervisor.Config{DefaultSocket: tmux.Socket{Path: tm.Socket}, TmuxConfig: "/dev/null"})

	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"journal", "ls"}, []string{"SOCKET", tm.Socket, "1 "}},
		{[]string{"journal", "show"}, []string{"snapshot 1 of " + tm.Socket, `"work"`, `"second"`, dir}},
		{[]string{"journal", "show", "--server", tm.Socket, "--snapshot", "1"}, []string{"session $"}},
		{[]string{"journal", "events", "--since", "1h"}, []string{"snapshot", "1 sessions, 2 windows, 2 panes"}},
		{[]string{"journal", "check"}, []string{path + ": OK"}},
		{[]string{"journal", "compact"}, []string{path + ": ", " bytes"}},
	}
	for _, tt := range tests {
		code, out, errs := runCLI(t, vars, tt.args...)
		if code != exitOK {
			t.Errorf("%v: exit %d, stderr %s", tt.args, code, errs)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: output does not contain %q:\n%s", tt.args, w, out)
			}
		}
	}

	// The window goes; a dry run plans it back and changes nothing, a
	// restore brings it back.
	tm.MustTmux("kill-window", "-t", "=work:second")
	code, out, errs := runCLI(t, vars, "journal", "restore", "--dry-run", "--snapshot", "1")
	if code != exitOK || !strings.Contains(out, "new-window -d -t {$") || !strings.Contains(out, "dry run: ") {
		t.Fatalf("restore --dry-run: exit %d, output:\n%s\nstderr %s", code, out, errs)
	}
	if got := tm.MustTmux("list-windows", "-t", "=work", "-F", "#{window_name}"); strings.Contains(got, "second") {
		t.Errorf("the dry run made the window: %q", got)
	}
	// The snapshot is of the live server itself: restore it by number.
	code, out, errs = runCLI(t, vars, "journal", "restore", "--snapshot", "1")
	if code != exitOK || !strings.Contains(out, "applied ") {
		t.Fatalf("restore: exit %d, output:\n%s\nstderr %s", code, out, errs)
	}
	tm.PanePath("=work:second") // its directory is known once its command runs
	if got := tm.MustTmux("list-windows", "-t", "=work", "-F", "#{window_name} #{pane_current_path}"); !strings.Contains(got, "second "+dir) {
		t.Errorf("windows after restore = %q, want second in %s", got, dir)
	}

	// Usage errors and a damaged file.
	if code, _, errs := runCLI(t, map[string]string{"TMUX_MCP_JOURNAL": "off"}, "journal", "ls"); code != exitUsage || !strings.Contains(errs, "off") {
		t.Errorf("journal ls with the journal off: exit %d, %q", code, errs)
	}
	if code, _, _ := runCLI(t, vars, "journal", "frobnicate"); code != exitUsage {
		t.Errorf("journal frobnicate: exit %d, want %d", code, exitUsage)
	}
	if err := os.WriteFile(path, bytes.Repeat([]byte("garbage!"), 4096), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCLI(t, vars, "journal", "check"); code != exitFail || !strings.Contains(errs, "corrupt") {
		t.Errorf("journal check of garbage: exit %d, stderr %q; want 1 and corrupt", code, errs)
	}
}

// TestJournalEndToEnd drives the built binary: a session made through the
// tools is snapshotted, survives kill -9 of the tmux server, and the
// journal tools show what happened.
func TestJournalEndToEnd(t *testing.T) {
	bin := buildBinary(t)
	tm := tmuxtest.New(t)
	dir := t.TempDir()
	c, _, stderr := startStdio(t, bin, binaryEnv(tm.Socket, "TMUX_MCP_SAFETY=destructive", "SHELL=/bin/sh"))
	t.Cleanup(func() { c.Close() })
	callTool(t, c, "create_session", map[string]any{"session_name": "agent", "start_directory": dir})
	tmuxtest.WaitFor(t, 10*time.Second, "a snapshot with session agent", func() bool {
		var snaps struct {
			Result []struct {
				Sessions int `json:"sessions"`
			} `json:"result"`
		}
		structuredOf(t, callTool(t, c, "list_snapshots", nil), &snaps)
		return len(snaps.Result) > 0 && snaps.Result[0].Sessions == 1
	})
	pid := tm.PID()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	tmuxtest.WaitFor(t, 15*time.Second, "session agent back in a new server", func() bool {
		res, err := callToolErr(c, "list_sessions", nil)
		return err == nil && !res.IsError && contains(sessionNames(t, res), "agent") && tm.PID() != pid
	})
	// list_sessions is answered during the restore, and tmux reports a
	// new pane's path only once its process runs: PanePath waits for it.
	if got := tm.PanePath("=agent:"); got != dir {
		t.Errorf("restored pane in %q, want %q", got, dir)
	}
	var events struct {
		Result []struct {
			Type   string `json:"type"`
			Cause  string `json:"cause"`
			Detail string `json:"detail"`
		} `json:"result"`
	}
	tmuxtest.WaitFor(t, 5*time.Second, "the restore in the journal", func() bool {
		structuredOf(t, callTool(t, c, "journal_events", map[string]any{"since": "1h"}), &events)
		for _, e := range events.Result {
			if e.Type == "restore" {
				return true
			}
		}
		return false
	})
	var died bool
	for _, e := range events.Result {
		died = died || e.Type == "server_died" && e.Cause == "killed"
	}
	if !died {
		t.Errorf("journal_events = %+v, want a server_died event (killed)", events.Result)
	}
	var plan struct {
		Steps   []string `json:"steps"`
		DryRun  bool     `json:"dry_run"`
		Applied int      `json:"applied"`
	}
	structuredOf(t, callTool(t, c, "restore_sessions", map[string]any{"dry_run": true}), &plan)
	if !plan.DryRun || len(plan.Steps) != 0 {
		t.Errorf("restore_sessions dry run after the restore = %+v, want no steps", plan)
	}
	if strings.Contains(stderr.String(), "level=WARN") {
		t.Errorf("warnings on stderr:\n%s", stderr)
	}
}

// TestUnreadableJournalDoesNotStopTheServer starts the binary on a
// journal file full of garbage: it is moved aside with a warning, a fresh
// one is used, and the tools work.
func TestUnreadableJournalDoesNotStopTheServer(t *testing.T) {
	bin := buildBinary(t)
	tm := tmuxtest.New(t)
	tm.Start("main")
	path := filepath.Join(filepath.Dir(tm.Socket), "journal.db")
	garbage := bytes.Repeat([]byte{0xde, 0xad, 0xbe, 0xef}, 8192)
	if err := os.WriteFile(path, garbage, 0o600); err != nil {
		t.Fatal(err)
	}
	c, _, stderr := startStdio(t, bin, binaryEnv(tm.Socket))
	t.Cleanup(func() { c.Close() })
	if got := sessionNames(t, callTool(t, c, "list_sessions", nil)); !contains(got, "main") {
		t.Errorf("list_sessions = %v, want main", got)
	}
	callTool(t, c, "journal_events", nil)
	moved, _ := filepath.Glob(path + ".corrupt-*")
	if len(moved) != 1 {
		t.Fatalf("moved aside: %v, want one file", moved)
	}
	if kept, _ := os.ReadFile(moved[0]); !bytes.Equal(kept, garbage) {
		t.Errorf("the file moved aside is not the garbage one")
	}
	if !strings.Contains(stderr.String(), "moved it aside") {
		t.Errorf("stderr has no warning about the journal:\n%s", stderr)
	}
}
