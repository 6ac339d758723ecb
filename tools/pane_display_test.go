package tools

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestDisplayMessage(t *testing.T) {
	e := newEnv(t, Readonly)
	pane := e.firstPane()
	var m messageResult
	e.ok("display_message", map[string]any{"format_string": "#{pane_width}x#{pane_height}"}, &m)
	if !regexp.MustCompile(`^\d+x\d+$`).MatchString(m.Result) {
		t.Errorf("display_message(size) = %q, want NxM", m.Result)
	}
	e.ok("display_message", map[string]any{"format_string": "-F #{window_zoomed_flag}", "pane_id": pane}, &m)
	if m.Result != "-F 0" {
		t.Errorf("display_message(-F ...) = %q, want \"-F 0\"", m.Result)
	}

	// A format job, and a value that E: or T: expands as a format (jobs
	// included), are refused before anything reaches tmux.
	flag := filepath.Join(e.tm.Dir, "tool-job")
	e.tmux("set-option", "-g", "@job", "#(touch "+flag+")")
	for _, f := range []string{"#(touch " + flag + ")", "x#{E:@job}", "#{T:@job}", "#{l;E:@job}", "#{E;l:@job}"} {
		want := refuseExpanding
		if strings.Contains(f, "#(") {
			want = refuseJobs
		}
		e.fails("display_message", map[string]any{"format_string": f}, want, "[refused]")
	}
	if _, err := os.Stat(flag); err == nil {
		t.Errorf("a refused display_message ran a job: %s exists", flag)
	}
	e.fails("display_message", nil, "argument format_string: required")
	e.fails("display_message", map[string]any{"format_string": "x", "pane_id": "%999"}, "Pane not found")
}
