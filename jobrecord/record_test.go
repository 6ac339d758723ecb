package jobrecord

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// previousRelease are records as the journal of the release before this
// type stored them (journal.Job and journal.JobCall, marshalled by that
// code): a background command that exited, and a task's call that was
// lost with its server.
var previousRelease = []string{
	`{"id":"j0123456789","socket":{"Name":"","Path":"/tmp/tmux-1000/default"},"pane":"%3","session_id":"$1","session_name":"main","nonce":"n0a1b2c3d","state":"exited","exit_status":3,"started":"2026-11-28T10:28:00.123456789+01:00","ended":"2026-11-28T10:29:30.123456789+01:00","server_pid":4242,"pane_pid":4300,"anchor":{"history_size":120,"history_limit":2000,"width":80,"height":24,"cursor_y":7,"lines":2},"before":[4301],"file":"/run/user/1000/tmux-mcp/jobs/j0123456789.sh","tail":["done"],"truncated_lines":4,"history_overflowed":true,"proc":5000}`,
	`{"id":"j0123456789abcdef0123456789abcdef","socket":{"Name":"work","Path":""},"pane":"","nonce":"","state":"lost","reason":"the tmux server died (killed)","started":"2026-11-28T10:28:00.123456789+01:00","ended":"2026-11-28T10:28:01.123456789+01:00","server_pid":4242,"pane_pid":0,"anchor":{"history_size":0,"history_limit":0,"width":0,"height":0,"cursor_y":0},"proc":5000,"kind":"call","call":{"tool":"run_command","status":"failed","message":"the tmux server died during the call (no_server): no server","result":{"content":[]},"error":{"code":-32603,"data":{"class":"no_server"},"message":"the tmux server died during the call (no_server): no server"},"ttl":3600000000000,"poll_interval":1000000000,"owner":"o1a2b3"}}`,
}

// TestRecordReadsThePreviousRelease: a record the journal of the release
// before wrote reads back whole, field by field.
func TestRecordReadsThePreviousRelease(t *testing.T) {
	t0 := time.Date(2026, 11, 28, 10, 28, 0, 123456789, time.FixedZone("", 3600))
	status := 3
	want := []Record{
		{ID: "j0123456789", Socket: tmux.Socket{Path: "/tmp/tmux-1000/default"}, Pane: "%3", SessionID: "$1", SessionName: "main",
			Nonce: "n0a1b2c3d", State: Exited, ExitStatus: &status, Started: t0, Ended: t0.Add(90 * time.Second),
			ServerPID: 4242, PanePID: 4300, Anchor: Anchor{HistorySize: 120, HistoryLimit: 2000, Width: 80, Height: 24, CursorY: 7, Lines: 2},
			Before: []int{4301}, File: "/run/user/1000/tmux-mcp/jobs/j0123456789.sh", Tail: []string{"done"}, TruncatedLines: 4,
			HistoryOverflowed: true, Proc: 5000},
		{ID: "j0123456789abcdef0123456789abcdef", Socket: tmux.Socket{Name: "work"}, State: Lost, Reason: "the tmux server died (killed)",
			Started: t0, Ended: t0.Add(time.Second), ServerPID: 4242, Proc: 5000, Kind: KindCall,
			Call: &Call{Tool: "run_command", Status: Failed, Message: "the tmux server died during the call (no_server): no server",
				Result: json.RawMessage(`{"content":[]}`),
				Error: &RPCError{Code: -32603, Message: "the tmux server died during the call (no_server): no server",
					Data: map[string]any{"class": "no_server"}},
				TTL: time.Hour, PollInterval: time.Second, Owner: "o1a2b3"}},
	}
	for i, line := range previousRelease {
		var got Record
		if err := json.Unmarshal([]byte(line), &got); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		if !got.Started.Equal(want[i].Started) || !got.Ended.Equal(want[i].Ended) {
			t.Errorf("record %d: started %v, ended %v; want %v, %v", i, got.Started, got.Ended, want[i].Started, want[i].Ended)
		}
		got.Started, got.Ended = want[i].Started, want[i].Ended // same instants; the zone's name is not kept
		if !reflect.DeepEqual(got, want[i]) {
			t.Errorf("record %d read back as\n%+v\nwant\n%+v", i, got, want[i])
		}
	}
}

// TestRecordKeepsItsSchema: written again, a record of the release before
// says the same (every name and value, in JSON), so the release before
// reads what this one writes.
func TestRecordKeepsItsSchema(t *testing.T) {
	for i, line := range previousRelease {
		var rec Record
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		var got, want any
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(line), &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("record %d written again:\n%s\nwant the same as\n%s", i, b, line)
		}
	}
}

// TestCallKeepsLost: a call that was lost says so once written and read
// again (the journal of the release before dropped it).
func TestCallKeepsLost(t *testing.T) {
	b, err := json.Marshal(Record{ID: "j1", State: Lost, Kind: KindCall, Call: &Call{Tool: "wait_for_text", Status: Failed, Lost: true}})
	if err != nil {
		t.Fatal(err)
	}
	var got Record
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Call == nil || !got.Call.Lost {
		t.Errorf("%s read back as %+v, want its call lost", b, got.Call)
	}
}
