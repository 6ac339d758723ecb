package tools

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/drive"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// printLines starts a pane that prints prefix0..prefix(n-1), one a line,
// and waits for the last and for the pane to run sleep.
func (e *env) printLines(prefix string, n int) string {
	e.t.Helper()
	p := e.window(fmt.Sprintf("for i in $(seq 0 %d); do echo %s$i; done; exec sleep 1000", n-1, prefix))
	last := fmt.Sprintf("%s%d", prefix, n-1)
	e.waitScreen(p, last, func(s string) bool { return strings.Contains(s, last) })
	// The last line shows a moment before the shell execs sleep, which
	// the snapshots report as the pane's command.
	tmuxtest.WaitFor(e.t, 10*time.Second, "the pane to run sleep", func() bool {
		return strings.TrimSpace(e.tmux("display-message", "-p", "-t", p, "#{pane_current_command}")) == "sleep"
	})
	return p
}

func TestCapturePane(t *testing.T) {
	e := newEnv(t, Readonly)
	p := e.printLines("scrollback_line_", 60) // the screen has 40 rows
	var c captureResult
	res := e.ok("capture_pane", map[string]any{"pane_id": p}, &c)
	lines := strings.Split(c.Result, "\n")
	if len(lines) != 39 || lines[38] != "scrollback_line_59" || c.Truncated || text(res) != c.Result ||
		len(c.SHA256) != 64 || c.Freshness == "" {
		t.Errorf("capture_pane = %d lines ending %q, truncated %v, sha256 %q, freshness %q; want the screen's 39 lines of text",
			len(lines), lines[len(lines)-1], c.Truncated, c.SHA256, c.Freshness)
	}
	var again captureResult
	e.ok("capture_pane", map[string]any{"pane_id": p}, &again)
	if again.SHA256 != c.SHA256 {
		t.Errorf("second capture of an unchanged pane: sha256 %s, want %s", again.SHA256, c.SHA256)
	}

	res = e.ok("capture_pane", map[string]any{"pane_id": p, "max_lines": 5}, &c)
	if len(res.Content) != 2 || !strings.HasSuffix(text(res), "34 earlier lines left out: raise max_lines (up to 10000), or read them with start and end.") {
		t.Errorf("capture_pane(max_lines 5) text %q (%d blocks), want the screen and a block saying how to read the rest", text(res), len(res.Content))
	}
	lines = strings.Split(c.Result, "\n")
	if len(lines) != 6 || lines[0] != "[... truncated 34 lines ...]" || lines[5] != "scrollback_line_59" ||
		!c.Truncated || c.TruncatedLines != 34 {
		t.Errorf("capture_pane(max_lines 5) = %q (%d cut), want a header and the last 5 lines", lines, c.TruncatedLines)
	}

	// History: lines -21..-12 are scrollback_line_ 0..9 (the history holds 21 lines).
	e.ok("capture_pane", map[string]any{"pane_id": p, "start": -21, "end": -12}, &c)
	if lines = strings.Split(c.Result, "\n"); len(lines) != 10 || lines[0] != "scrollback_line_0" || c.Truncated {
		t.Errorf("capture_pane(-20..-11) = %q, want lines 0..9 untruncated", lines)
	}
	// A range reaching past the cap: the rows it asked for, counted.
	e.ok("capture_pane", map[string]any{"pane_id": p, "start": -1000, "max_lines": 10}, &c)
	if lines = strings.Split(c.Result, "\n"); len(lines) != 11 || lines[0] != "[... truncated 50 lines ...]" || c.TruncatedLines != 50 {
		t.Errorf("capture_pane(-1000.., max_lines 10) = %q (%d cut), want 50 of the 60 rows cut", lines, c.TruncatedLines)
	}

	e.fails("capture_pane", map[string]any{"pane_id": p, "start": 5, "end": 2}, "start (5) is after end (2)", "[argument]")
	e.fails("capture_pane", map[string]any{"pane_id": p, "max_lines": 0}, "argument max_lines: must be at least 1")
	e.fails("capture_pane", map[string]any{"pane_id": p, "max_lines": 1 << 30}, "above the ceiling")
	e.fails("capture_pane", map[string]any{"pane_id": "%999999"}, "Pane not found: %999999", "[pane_not_found]")
	e.fails("capture_pane", map[string]any{"pane_id": "x"}, "argument pane_id")
}

func TestSnapshotPane(t *testing.T) {
	e := newEnv(t, Readonly)
	p := e.printLines("snap_line_", 60)
	var s paneSnapshot
	e.ok("snapshot_pane", map[string]any{"pane_id": p}, &s)
	if s.PaneID != p || !strings.HasSuffix(s.Content, "snap_line_59") || s.PaneWidth != 120 || s.PaneHeight != 40 ||
		s.CursorY != 39 || s.HistorySize != 21 || s.PaneInMode || s.PaneMode != nil || s.PaneDead || s.PaneCurrentCommand != "sleep" ||
		s.ContentTruncated || s.IsCaller != nil || len(s.SHA256) != 64 {
		t.Errorf("snapshot_pane = %+v, want pane %s 120x40 running sleep, cursor on row 39", s, p)
	}
	var c captureResult
	e.ok("capture_pane", map[string]any{"pane_id": p}, &c)
	if c.SHA256 != s.SHA256 {
		t.Errorf("snapshot sha256 %s, capture_pane sha256 %s: want the same digest for the same screen", s.SHA256, c.SHA256)
	}
	e.ok("snapshot_pane", map[string]any{"pane_id": p, "max_lines": 5}, &s)
	if !s.ContentTruncated || s.ContentTruncatedLines != 34 || strings.Count(s.Content, "\n") != 4 ||
		strings.Contains(s.Content, "truncated") {
		t.Errorf("snapshot_pane(max_lines 5) content %q, truncated %v (%d); want 5 lines, 34 cut, no header",
			s.Content, s.ContentTruncated, s.ContentTruncatedLines)
	}
	e.tmux("copy-mode", "-t", p)
	e.tmux("send-keys", "-t", p, "-X", "scroll-up")
	e.ok("snapshot_pane", map[string]any{"pane_id": p}, &s)
	if !s.PaneInMode || s.PaneMode == nil || *s.PaneMode != "copy-mode" || s.ScrollPosition == nil || *s.ScrollPosition != 1 {
		t.Errorf("snapshot_pane in copy mode = mode %v %v, scroll %v; want copy-mode scrolled 1", s.PaneInMode, derefS(s.PaneMode), deref(s.ScrollPosition))
	}
	e.fails("snapshot_pane", map[string]any{"pane_id": "%999999"}, "Pane not found: %999999")
	if hidden, err := e.tm.Tmux("list-panes", "-t", "=__tmux_mcp", "-F", "#{pane_id}"); err == nil { // control mode only
		e.fails("snapshot_pane", map[string]any{"pane_id": hidden}, "Pane not found: "+hidden)
	}
}

type sinceOut struct {
	sinceResult
}

func TestCaptureSince(t *testing.T) {
	e := newEnv(t, Readonly)
	p := e.window("exec cat")
	e.ttyWrite(p, "OLD\r\n")
	e.waitScreen(p, "OLD", func(s string) bool { return strings.Contains(s, "OLD") })
	var a, b, c sinceOut
	e.ok("capture_since", map[string]any{"pane_id": p}, &a)
	if a.PaneID != p || a.Cursor == "" || a.LinesMissed || a.Truncated || !contains(a.Lines, "OLD") {
		t.Errorf("capture_since (first) = %+v, want the screen with OLD and a cursor", a)
	}
	e.ttyWrite(p, "NEW\r\n")
	e.waitScreen(p, "NEW", func(s string) bool { return strings.Contains(s, "NEW") })
	e.ok("capture_since", map[string]any{"cursor": a.Cursor}, &b)
	if b.PaneID != p || !equalLines(b.Lines, "NEW") || b.LinesMissed {
		t.Errorf("capture_since (after NEW) = %q, missed %v; want [NEW]", b.Lines, b.LinesMissed)
	}
	e.ok("capture_since", map[string]any{"cursor": b.Cursor, "pane_id": p}, &c)
	if len(c.Lines) != 0 {
		t.Errorf("capture_since (nothing new) = %q, want none", c.Lines)
	}

	// A row rewritten in place counts.
	e.ttyWrite(p, "working 1")
	e.waitScreen(p, "working 1", func(s string) bool { return strings.Contains(s, "working 1") })
	e.ok("capture_since", map[string]any{"cursor": c.Cursor}, &a)
	e.ttyWrite(p, "\rworking 2")
	e.waitScreen(p, "working 2", func(s string) bool { return strings.Contains(s, "working 2") })
	e.ok("capture_since", map[string]any{"cursor": a.Cursor}, &b)
	if !equalLines(b.Lines, "working 2") {
		t.Errorf("capture_since (rewritten row) = %q, want [working 2]", b.Lines)
	}

	// Output scrolling the anchor into the history.
	e.ttyWrite(p, "\r\n")
	e.ok("capture_since", map[string]any{"cursor": b.Cursor}, &a)
	var burst strings.Builder
	for i := range 48 {
		fmt.Fprintf(&burst, "BURST_%d\r\n", i)
	}
	e.ttyWrite(p, burst.String())
	e.waitScreen(p, "BURST_47", func(s string) bool { return strings.Contains(s, "BURST_47") })
	e.ok("capture_since", map[string]any{"cursor": a.Cursor, "max_lines": 10}, &b)
	if len(b.Lines) != 10 || b.Lines[9] != "BURST_47" || !b.Truncated || b.TruncatedLines != 38 || b.LinesMissed {
		t.Errorf("capture_since (48 lines, max 10) = %q, truncated %v (%d), missed %v; want the last 10 of 48",
			b.Lines, b.Truncated, b.TruncatedLines, b.LinesMissed)
	}
	e.ok("capture_since", map[string]any{"cursor": a.Cursor, "max_bytes": 32}, &c)
	if joined := strings.Join(c.Lines, "\n"); len(joined) > 32 || c.TruncatedBytes == 0 || !strings.HasSuffix(joined, "BURST_47") {
		t.Errorf("capture_since (max_bytes 32) = %q, %d bytes cut; want at most 32 bytes ending BURST_47", c.Lines, c.TruncatedBytes)
	}

	// The history cleared under the cursor: the screen, and lines_missed.
	e.tmux("clear-history", "-t", p)
	e.ttyWrite(p, "AFTER\r\n")
	e.waitScreen(p, "AFTER", func(s string) bool { return strings.Contains(s, "AFTER") })
	e.ok("capture_since", map[string]any{"cursor": b.Cursor}, &c)
	if !c.LinesMissed || !contains(c.Lines, "AFTER") {
		t.Errorf("capture_since (history cleared) = %q, missed %v; want the screen with AFTER and lines_missed", c.Lines, c.LinesMissed)
	}

	e.fails("capture_since", map[string]any{"cursor": "nonsense"}, "invalid capture_since cursor: wrong prefix")
	e.fails("capture_since", map[string]any{"cursor": drive.CursorPrefix + "!!"}, "invalid capture_since cursor: undecodable payload")
	other := e.window("exec cat")
	e.fails("capture_since", map[string]any{"cursor": c.Cursor, "pane_id": other}, "cursor pane "+p+" does not match requested pane "+other)
	e.fails("capture_since", map[string]any{"pane_id": p, "max_bytes": 0}, "argument max_bytes: must be at least 1")

	e.tmux("respawn-pane", "-k", "-t", p, "exec cat")
	e.fails("capture_since", map[string]any{"cursor": c.Cursor}, "pane "+p+" was respawned", "[pane_respawned]")
	e.tmux("set-option", "-t", p, "-p", "remain-on-exit", "on")
	e.ok("capture_since", map[string]any{"pane_id": p}, &a)
	e.tmux("respawn-pane", "-k", "-t", p, "true")
	tmuxtest.WaitFor(t, 5e9, "pane dead", func() bool { return e.tmux("display-message", "-p", "-t", p, "#{pane_dead}") == "1" })
	e.fails("capture_since", map[string]any{"pane_id": p, "cursor": a.Cursor}, "died")
}

func contains(lines []string, s string) bool {
	for _, l := range lines {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

func equalLines(got []string, want ...string) bool {
	return strings.Join(got, "\n") == strings.Join(want, "\n")
}

func derefS(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}
