package guard

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// TestViaSync: keys typed into a pane reach it directly; a synchronized
// sibling is named with the window that carries them.
func TestViaSync(t *testing.T) {
	target := tmux.Pane{ID: "%1", WindowID: "@1"}
	if got := ViaSync(target, target); got != "" {
		t.Errorf("ViaSync(target, target) = %q, want empty", got)
	}
	want := "keys typed into pane %1 reach pane %2 too (window @1 has synchronize-panes on): "
	if got := ViaSync(target, tmux.Pane{ID: "%2", WindowID: "@1"}); got != want {
		t.Errorf("ViaSync = %q, want %q", got, want)
	}
}

// TestAttendedBy: a terminal client that shows the pane and sent a key
// within attendedWithin is a person at work; a control client, another
// pane or an old key is not.
func TestAttendedBy(t *testing.T) {
	now := time.Now()
	for _, tt := range []struct {
		name    string
		clients []supervisor.AttachedClient
		refused bool
	}{
		{"nobody", nil, false},
		{"a control client", []supervisor.AttachedClient{{Pane: "%1", Activity: now, Control: true}}, false},
		{"another pane", []supervisor.AttachedClient{{TTY: "/dev/pts/3", Pane: "%2", Activity: now}}, false},
		{"an old key", []supervisor.AttachedClient{{TTY: "/dev/pts/3", Pane: "%1", Activity: now.Add(-attendedWithin - time.Second)}}, false},
		{"a recent key", []supervisor.AttachedClient{{TTY: "/dev/pts/3", Pane: "%1", Activity: now}}, true},
	} {
		err := attendedBy(tt.clients, "%1", "via: ")
		var ge *Error
		if got := errors.As(err, &ge); got != tt.refused {
			t.Errorf("%s: attendedBy = %v, want refused %v", tt.name, err, tt.refused)
			continue
		}
		if tt.refused && (ge.Class != "attended_pane" || !strings.HasPrefix(ge.Msg, "via: a person is working in pane %1: terminal /dev/pts/3") ||
			!strings.HasSuffix(ge.Msg, "typing into it needs allow_attended: true")) {
			t.Errorf("%s: refusal %+v", tt.name, ge)
		}
	}
}
