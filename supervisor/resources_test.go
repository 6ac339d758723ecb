package supervisor

import (
	"errors"
	"fmt"
	"math"

	"testing"

	"github.com/tmux-mcp/tmux-mcp/proc"
)

func TestEvaluateResources(t *testing.T) {
	tests := []struct {
		name      string
		r         proc.Resources
		wantWarn  []string
		wantErr   string
		wantRatio float64 // of the first warning
	}{
		{"idle", proc.Resources{FDs: 12, FDLimit: 1024, PTYs: 13, PTYMax: 4096}, nil, "", 0},
		{"limits unknown", proc.Resources{FDs: 12, PTYs: 13}, nil, "", 0},
		{"unlimited fds", proc.Resources{FDs: 1 << 20, FDLimit: math.MaxUint64}, nil, "", 0},
		{"fd warning", proc.Resources{FDs: 45, FDLimit: 64, PTYMax: 4096}, []string{"fds"}, "", 45.0 / 64},
		{"fd warning at the threshold", proc.Resources{FDs: 70, FDLimit: 100}, []string{"fds"}, "", 0.7},
		{"fd refusal", proc.Resources{FDs: 58, FDLimit: 64, PTYs: 13, PTYMax: 4096}, []string{"fds"},
			"refusing to create panes: tmux server has 58 of 64 file descriptors open (90%); close panes or raise the limit", 58.0 / 64},
		{"pty refusal", proc.Resources{FDs: 10, FDLimit: 1024, PTYs: 3700, PTYMax: 4096}, []string{"ptys"},
			"refusing to create panes: 3700 of 4096 pseudo-terminals are in use on this system (90%); close panes or raise kernel.pty.max", 3700.0 / 4096},
		{"both: fds reported first", proc.Resources{FDs: 64, FDLimit: 64, PTYs: 4096, PTYMax: 4096}, []string{"fds", "ptys"},
			"refusing to create panes: tmux server has 64 of 64 file descriptors open (100%); close panes or raise the limit", 1},
		{"system file table only warns", proc.Resources{FilesAllocated: 99, FilesMax: 100}, []string{"files"}, "", 0.99},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			warns, err := evaluateResources(tt.r, 0.7, 0.9)
			var got []string
			for _, w := range warns {
				got = append(got, w.Resource)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.wantWarn) {
				t.Errorf("warnings = %v, want %v", got, tt.wantWarn)
			}
			if len(warns) > 0 && warns[0].Ratio != tt.wantRatio {
				t.Errorf("first warning ratio = %v, want %v", warns[0].Ratio, tt.wantRatio)
			}
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
				if !errors.Is(err, ErrResourceExhausted) {
					t.Errorf("errors.Is(%v, ErrResourceExhausted) = false", err)
				}
			}
			if gotErr != tt.wantErr {
				t.Errorf("refusal = %q, want %q", gotErr, tt.wantErr)
			}
		})
	}
}

func TestCreatesPane(t *testing.T) {
	tests := []struct {
		args []string
		want bool
	}{
		{[]string{"new-session", "-d"}, true},
		{[]string{"new", "-d", "-s", "x"}, true},
		{[]string{"new-window"}, true},
		{[]string{"neww", "-t", "x"}, true},
		{[]string{"split-window", "-h"}, true},
		{[]string{"splitw"}, true},
		{[]string{"split"}, true}, // unambiguous prefix
		{[]string{"respawn-pane", "-k"}, true},
		{[]string{"respawnp"}, true},
		{[]string{"respawn-window"}, true},
		{[]string{"respawnw"}, true},
		{[]string{"list-sessions", ";", "new-window"}, true},
		{[]string{"send-keys", "-t", "%1", "echo;", "neww"}, true}, // tmux splits on a trailing ";"
		{[]string{"list-panes"}, false},
		{[]string{"capture-pane", "-p"}, false},
		{[]string{"kill-pane", "-t", "new-window"}, false}, // an argument, not a command
		{[]string{"send-keys", "-t", "%1", `echo \;`, "neww"}, false},
		{[]string{"select-window"}, false},
		{[]string{"resize-pane"}, false},
		{nil, false},
	}
	for _, tt := range tests {
		if got := createsPane(tt.args); got != tt.want {
			t.Errorf("createsPane(%q) = %v, want %v", tt.args, got, tt.want)
		}
	}
}
