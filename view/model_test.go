package view

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/jobrecord"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// TestListed: the page gets a job's record with only what it shows (the
// page's jobs table and pane badges), and how long it ran by the
// server's clock; nothing else of the record (output, a task's result,
// error and owner, the end's nonce, files, processes) reaches a browser.
func TestListed(t *testing.T) {
	t0 := time.Date(2026, 11, 28, 10, 28, 0, 0, time.UTC)
	status := 3
	full := jobrecord.Record{ID: "j1", Socket: tmux.Socket{Path: "/tmp/s"}, Pane: "%3", SessionID: "$1", SessionName: "main",
		Nonce: "secret-nonce", State: jobrecord.Exited, ExitStatus: &status, Reason: "task completed: the tool reported an error",
		Started: t0, Ended: t0.Add(90*time.Second + 900*time.Millisecond), ServerPID: 10, PanePID: 11,
		Anchor: jobrecord.Anchor{HistorySize: 5, HistoryLimit: 2000, Width: 80, Height: 24, CursorY: 7, Lines: 2},
		Before: []int{12}, File: "/run/job.sh", Tail: []string{"pane text"}, TruncatedLines: 4, HistoryOverflowed: true, Proc: 13,
		Kind: jobrecord.KindCall, Call: &jobrecord.Call{Tool: "run_command", Status: jobrecord.Completed, Message: "a message",
			Result: json.RawMessage(`{"output":"pane text"}`), Error: &jobrecord.RPCError{Code: 1, Message: "m"},
			TTL: time.Hour, PollInterval: time.Second, Lost: true, Owner: "owner-key"}}
	tests := []struct {
		name string
		rec  jobrecord.Record
		now  time.Time
		want string
	}{
		{"an ended task's call", full, t0.Add(time.Hour),
			`{"id":"j1","socket":{"Name":"","Path":"/tmp/s"},"pane":"%3","session_name":"main","nonce":"","state":"exited",` +
				`"exit_status":3,"started":"2026-11-28T10:28:00Z","server_pid":0,"pane_pid":0,` +
				`"anchor":{"history_size":0,"history_limit":0,"width":0,"height":0,"cursor_y":0},"proc":0,` +
				`"kind":"call","call":{"tool":"run_command","status":"completed"},"elapsed":90}`},
		{"a running command", jobrecord.Record{ID: "j2", Socket: tmux.Socket{Name: "work"}, Pane: "%4", State: jobrecord.Running,
			Started: t0, Tail: []string{"pane text"}, Nonce: "n"}, t0.Add(2500 * time.Millisecond),
			`{"id":"j2","socket":{"Name":"work","Path":""},"pane":"%4","nonce":"","state":"running","started":"2026-11-28T10:28:00Z",` +
				`"server_pid":0,"pane_pid":0,"anchor":{"history_size":0,"history_limit":0,"width":0,"height":0,"cursor_y":0},"proc":0,"elapsed":2}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(Listed(tt.rec, tt.now))
			if err != nil {
				t.Fatal(err)
			}
			var got, want any
			json.Unmarshal(b, &got)                //nolint:errcheck // b is JSON
			json.Unmarshal([]byte(tt.want), &want) //nolint:errcheck // a literal
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Listed = %s\nwant     %s", b, tt.want)
			}
		})
	}
}
