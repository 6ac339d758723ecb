package tmux

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/tmux/codec"
)

func TestParseNotification(t *testing.T) {
	tests := []struct {
		line string
		want Notification
	}{
		{`%output %3 hi\015\012\134x\033[0m é`, Notification{Type: NotifyOutput, Pane: "%3", Data: []byte("hi\r\n\\x\x1b[0m é")}},
		{`%output %3 `, Notification{Type: NotifyOutput, Pane: "%3", Data: []byte{}}},
		{`%extended-output %0 12 : a : b\012`, Notification{Type: NotifyExtendedOutput, Pane: "%0", Args: []string{"12"}, Data: []byte("a : b\n")}},
		{`%extended-output %0 12 99 : `, Notification{Type: NotifyExtendedOutput, Pane: "%0", Args: []string{"12", "99"}, Data: []byte{}}},
		{`%extended-output %0 12 :`, Notification{Type: NotifyExtendedOutput, Pane: "%0", Args: []string{"12"}, Data: []byte{}}},
		{`%pause %4`, Notification{Type: NotifyPause, Pane: "%4"}},
		{`%continue %4`, Notification{Type: NotifyContinue, Pane: "%4"}},
		{`%pane-mode-changed %1`, Notification{Type: NotifyPaneModeChanged, Pane: "%1"}},
		{`%window-add @2`, Notification{Type: NotifyWindowAdd, Window: "@2"}},
		{`%window-close @2`, Notification{Type: NotifyWindowClose, Window: "@2"}},
		{`%window-renamed @2 my name`, Notification{Type: NotifyWindowRenamed, Window: "@2", Name: "my name"}},
		{`%unlinked-window-add @5`, Notification{Type: NotifyUnlinkedWindowAdd, Window: "@5"}},
		{`%unlinked-window-close @5`, Notification{Type: NotifyUnlinkedWindowClose, Window: "@5"}},
		{`%unlinked-window-renamed @5 bash`, Notification{Type: NotifyUnlinkedWindowRename, Window: "@5", Name: "bash"}},
		{`%window-pane-changed @1 %7`, Notification{Type: NotifyWindowPaneChanged, Window: "@1", Pane: "%7"}},
		{
			`%layout-change @0 abbd,150x40,0,0,0 abbd,150x40,0,0,0 *`,
			Notification{Type: NotifyLayoutChange, Window: "@0", Args: []string{"abbd,150x40,0,0,0", "abbd,150x40,0,0,0", "*"}},
		},
		{`%session-changed $0 main`, Notification{Type: NotifySessionChanged, Session: "$0", Name: "main"}},
		{`%session-renamed $1 new name`, Notification{Type: NotifySessionRenamed, Session: "$1", Name: "new name"}},
		{`%client-session-changed /dev/pts/3 $2 work`, Notification{Type: NotifyClientSessionChanged, Session: "$2", Name: "work", Args: []string{"/dev/pts/3"}}},
		{`%sessions-changed`, Notification{Type: NotifySessionsChanged}},
		{`%session-window-changed $1 @4`, Notification{Type: NotifySessionWindowChanged, Session: "$1", Window: "@4"}},
		{`%client-detached client-123`, Notification{Type: NotifyClientDetached, Name: "client-123", Args: []string{"client-123"}}},
		{
			`%subscription-changed cmd $0 @0 0 %0 : bash 0`,
			Notification{Type: NotifySubscriptionChanged, Name: "cmd", Session: "$0", Window: "@0", Pane: "%0", Args: []string{"$0", "@0", "0", "%0"}, Data: []byte("bash 0")},
		},
		{
			`%subscription-changed s $1 - - - : `,
			Notification{Type: NotifySubscriptionChanged, Name: "s", Session: "$1", Args: []string{"$1", "-", "-", "-"}, Data: []byte{}},
		},
		{`%exit`, Notification{Type: NotifyExit}},
		{`%exit server exited unexpectedly`, Notification{Type: NotifyExit, Args: []string{"server exited unexpectedly"}}},
		{`%message hello there`, Notification{Type: NotifyOther, Args: []string{"message", "hello", "there"}}},
		{`not a notification`, Notification{Type: NotifyOther}},
		{``, Notification{Type: NotifyOther}},
	}
	for _, tt := range tests {
		tt.want.Raw = tt.line
		got := ParseNotification([]byte(tt.line))
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseNotification(%q):\n got %+v\nwant %+v", tt.line, got, tt.want)
		}
	}
}

// TestOutputSplitUTF8Reassembles reads a recorded control stream (package
// codec's testdata) whose %output lines split UTF-8 characters: the data
// of the pane's notifications joins up again.
func TestOutputSplitUTF8Reassembles(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("codec", "testdata", "control-split-utf8-near-miss-end.txt"))
	if err != nil {
		t.Fatal(err)
	}
	p := codec.NewParser(bytes.NewReader(b))
	var data []byte
	for {
		ev, err := p.Next()
		if err != nil {
			break
		}
		if ev.Kind != codec.EventNotify {
			continue
		}
		n := ParseNotification(ev.Line)
		if n.Type == NotifyOutput || n.Type == NotifyExtendedOutput {
			if n.Pane != "%3" {
				t.Errorf("pane = %q, want %%3", n.Pane)
			}
			data = append(data, n.Data...)
		}
	}
	if want := "café \\ \r\n€!"; string(data) != want {
		t.Errorf("output = %q, want %q", data, want)
	}
}

// FuzzParseNotification feeds arbitrary lines to ParseNotification: it
// never panics, keeps the line, names a type, and never makes more data
// than the line holds.
func FuzzParseNotification(f *testing.F) {
	f.Add([]byte("%output %1 \\\\0\\1\\12\\777\\"))
	f.Add([]byte("%extended-output %0 12 : a : b\\012"))
	f.Add([]byte("%layout-change @0 abbd,150x40,0,0,0 *"))
	f.Add([]byte("%subscription-changed cmd $0 @0 0 %0 : bash 0"))
	f.Add([]byte("%exit"))
	f.Fuzz(func(t *testing.T, line []byte) {
		n := ParseNotification(line)
		if n.Raw != string(line) || n.Type == "" {
			t.Fatalf("ParseNotification(%q) = %+v", line, n)
		}
		if len(n.Data) > len(line) {
			t.Fatalf("data longer than the line")
		}
	})
}
