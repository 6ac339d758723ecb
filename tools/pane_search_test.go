package tools

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/shellquote"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
)

// echoPane starts a pane that prints text and sleeps, and waits for it.
func (e *env) echoPane(session, text string) string {
	e.t.Helper()
	p := e.tmux("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", session+":", "printf '%s\\n' "+shellquote.Quote(text)+"; exec sleep 1000")
	e.waitScreen(p, "its text", func(s string) bool { return strings.Contains(s, text) })
	return p
}

func matchIDs(r searchResult) []string {
	var ids []string
	for _, m := range r.Matches {
		ids = append(ids, m.PaneID)
	}
	return ids
}

func TestSearchPanes(t *testing.T) {
	e := newEnv(t, Readonly)
	e.tmux("new-session", "-d", "-s", "other")
	upper := e.echoPane("main", "Build FAILED: error_code_42_found at 192.168.1.1")
	lower := e.echoPane("other", "all good here")
	tests := []struct {
		name string
		args map[string]any
		want []string
	}{
		{"plain", map[string]any{"pattern": "error_code_42"}, []string{upper}},
		{"case-insensitive", map[string]any{"pattern": "build failed"}, []string{upper}},
		{"case-sensitive miss", map[string]any{"pattern": "build failed", "match_case": true}, nil},
		{"case-sensitive hit", map[string]any{"pattern": "FAILED", "match_case": true}, []string{upper}},
		{"regex", map[string]any{"pattern": `error_code_\d+_found`, "regex": true}, []string{upper}},
		{"dots are literal", map[string]any{"pattern": "192.168.1.1"}, []string{upper}},
		{"dots do not match other characters", map[string]any{"pattern": "192x168"}, nil},
		{"no match", map[string]any{"pattern": "nowhere_to_be_found"}, nil},
		{"scoped to a session", map[string]any{"pattern": "good", "session_name": "other"}, []string{lower}},
		{"scoped away", map[string]any{"pattern": "good", "session_name": "main"}, nil},
		{"history range", map[string]any{"pattern": "good", "content_start": -100}, []string{lower}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := *e
			e.t = t
			var r searchResult
			e.ok("search_panes", tt.args, &r)
			if got := matchIDs(r); !slices.Equal(got, tt.want) || r.Total != len(tt.want) {
				t.Errorf("search_panes(%v) = %v (total %d), want %v", tt.args, got, r.Total, tt.want)
			}
			for _, m := range r.Matches {
				if m.SessionID == "" || m.WindowID == "" || m.SessionName == "" || len(m.MatchedLines) == 0 {
					t.Errorf("match %+v: want session, window and matched lines", m)
				}
			}
		})
	}
	// The fast path: tmux's filter leaves one candidate, so one pane is read.
	reads := countReads(t, e)
	e.ok("search_panes", map[string]any{"pattern": "error_code_42"}, nil)
	if n := reads(); n != 1 {
		t.Errorf("search_panes(plain pattern) read %d panes, want 1 (the filter's match)", n)
	}
	e.ok("search_panes", map[string]any{"pattern": "error_code_4[2]", "regex": true}, nil)
	if n := reads(); n != 5 {
		t.Errorf("search_panes(regex) read %d panes in all, want 1 + all 4", n)
	}
	e.fails("search_panes", map[string]any{"pattern": "[invalid", "regex": true}, "Invalid regex pattern: ")
	e.fails("search_panes", map[string]any{"pattern": ""}, "argument pattern: must not be empty")
	e.fails("search_panes", map[string]any{"pattern": "x", "session_name": "nope"}, "Object not found: session_name=nope")
	e.fails("search_panes", map[string]any{"pattern": "x", "limit": 0}, "argument limit: must be at least 1")
}

// TestSearchPanesInjection searches for texts that would be formats or
// jobs inside tmux's filter: they match literally and run nothing.
func TestSearchPanesInjection(t *testing.T) {
	e := newEnv(t, Readonly)
	flag := filepath.Join(t.TempDir(), "pwned")
	seeded := e.echoPane("main", "INJECT_MARKER_xyz}qq9 NEST_#{pane_id}_ABC #S ## *glob? [E]")
	clean := e.echoPane("main", "INJECT_MARKER_xyzqq9 NEST__ABC")
	for _, pattern := range []string{"INJECT_MARKER_xyz}qq9", "NEST_#{pane_id}_ABC", "#S ##", "*glob?", "[E]"} {
		var r searchResult
		e.ok("search_panes", map[string]any{"pattern": pattern}, &r)
		if got := matchIDs(r); !slices.Equal(got, []string{seeded}) {
			t.Errorf("search_panes(%q) = %v, want only %s (not %s)", pattern, got, seeded, clean)
		}
	}
	e.ok("search_panes", map[string]any{"pattern": "#(touch " + flag + ")"}, nil)
	e.ok("search_panes", map[string]any{"pattern": "#(touch " + flag + ")", "match_case": true}, nil)
	// Nothing to await: give a job tmux might have started time to run.
	time.Sleep(300 * time.Millisecond)
	if _, err := os.Stat(flag); err == nil {
		t.Errorf("search_panes ran a #(...) job: %s exists", flag)
	}
}

func TestSearchPanesPaging(t *testing.T) {
	e := newEnv(t, Readonly)
	for range 12 {
		e.echoPane("main", "PAGE_MARKER")
	}
	var all, page1, page2 searchResult
	e.ok("search_panes", map[string]any{"pattern": "PAGE_MARKER", "limit": 100}, &all)
	ids := matchIDs(all)
	sorted := slices.Clone(ids)
	slices.SortFunc(sorted, func(a, b string) int { return paneOrder(paneID(a)) - paneOrder(paneID(b)) })
	if len(ids) != 12 || !slices.Equal(ids, sorted) || paneOrder(paneID(ids[0])) >= paneOrder(paneID(ids[11])) {
		t.Errorf("search_panes = %v, want 12 panes in numeric ID order", ids)
	}
	res1 := e.ok("search_panes", map[string]any{"pattern": "PAGE_MARKER", "limit": 1}, &page1)
	if got, want := text(res1), "11 more panes matched: offset 1."; !strings.HasSuffix(got, want) || len(res1.Content) != 2 {
		t.Errorf("search_panes(limit 1) text %q (%d blocks), want the JSON and a block %q", got, len(res1.Content), want)
	}
	res2 := e.ok("search_panes", map[string]any{"pattern": "PAGE_MARKER", "offset": 1, "limit": 100}, &page2)
	if len(res2.Content) != 1 {
		t.Errorf("search_panes(all of the rest) has %d text blocks, want 1: nothing was left out", len(res2.Content))
	}
	if len(page1.Matches) != 1 || !page1.Truncated || len(page1.TruncatedPanes) != 11 || page1.Total != 12 ||
		len(page2.Matches) != 11 || page2.Truncated || page2.Offset != 1 ||
		!slices.Equal(append(matchIDs(page1), matchIDs(page2)...), ids) {
		t.Errorf("pages = %+v and %+v, want 1 + 11 covering all matches", page1, page2)
	}
	p := e.window("for i in 1 2 3 4; do echo LINE_MARKER $i; done; exec sleep 1000")
	e.waitScreen(p, "LINE_MARKER 4", func(s string) bool { return strings.Contains(s, "LINE_MARKER 4") })
	var r searchResult
	res := e.ok("search_panes", map[string]any{"pattern": "LINE_MARKER", "max_matched_lines_per_pane": 3}, &r)
	if got := text(res); !strings.Contains(got, "earlier matching lines: raise max_matched_lines_per_pane") {
		t.Errorf("search_panes(3 lines per pane) text %q, want the hint about the lines cut", got)
	}
	if len(r.Matches) != 1 || !slices.Equal(r.Matches[0].MatchedLines, []string{"LINE_MARKER 2", "LINE_MARKER 3", "LINE_MARKER 4"}) || !r.Truncated {
		t.Errorf("search_panes(3 lines per pane) = %+v, want the last 3 lines and truncated", r)
	}
}

// TestSearchPanesWrapped finds a marker that wraps across rows: the
// confirming capture joins wrapped lines.
func TestSearchPanesWrapped(t *testing.T) {
	e := newEnv(t, Readonly)
	p := e.window("printf '%0115d'; printf 'WRAP'; printf 'PED_MARKER\\n'; exec sleep 1000")
	e.waitScreen(p, "the marker", func(s string) bool { return strings.Contains(s, "WRAPPED_MARKER") })
	var r searchResult
	e.ok("search_panes", map[string]any{"pattern": "WRAPPED_MARKER", "content_start": -10}, &r)
	if !slices.Equal(matchIDs(r), []string{p}) {
		t.Errorf("search_panes(wrapped marker) = %v, want %s", matchIDs(r), p)
	}
}

func TestFastPath(t *testing.T) {
	tests := []struct {
		pattern          string
		regex, matchCase bool
		want             bool
	}{
		{"192.168.1.1", false, false, true},
		{"plain_marker", false, false, true},
		{"plain_marker", true, false, true},
		{"err(or|no)", true, false, false},
		{".*", true, false, false},
		{"foo}", false, false, true},
		{"log #{err}", false, false, true},
		{"#(printf ok)", false, false, true},
		{"x}y", true, false, false},
		{" leading", false, false, false},
		{"trailing ", false, false, false},
		{"école", false, false, false},
		{"école", false, true, true},
		{"tab\there", false, false, false},
	}
	for _, tt := range tests {
		if got := fastPathOK(tt.pattern, tt.regex, tt.matchCase); got != tt.want {
			t.Errorf("fastPathOK(%q, regex %v, case %v) = %v, want %v", tt.pattern, tt.regex, tt.matchCase, got, tt.want)
		}
	}
	if got, want := filterEscape(`a#{b}*?[\c`), `a##{b#}\*\?\[\\c`; got != want {
		t.Errorf("filterEscape = %q, want %q", got, want)
	}
}

// countReads counts pane captures, from tmux or the cache.
func countReads(t *testing.T, e *env) func() int {
	var mu sync.Mutex
	n := 0
	stop := e.sup.Subscribe(func(ev supervisor.Event) {
		if ev.Type == supervisor.EventCacheHit || (ev.Type == supervisor.EventCommand && ev.Command == "capture-pane") {
			mu.Lock()
			n++
			mu.Unlock()
		}
	})
	t.Cleanup(stop)
	return func() int {
		mu.Lock()
		defer mu.Unlock()
		return n
	}
}
