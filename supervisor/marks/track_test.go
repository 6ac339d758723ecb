package marks

import (
	"testing"
	"time"
)

func TestTrackerCommands(t *testing.T) {
	base := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return base.Add(time.Duration(s) * time.Second) }
	tr := NewTracker(2)
	if _, ok := tr.State("%1"); ok {
		t.Fatal("State of a pane never fed: ok")
	}
	steps := []struct {
		out  string
		want State
	}{
		{"bash-5.2$ ", State{}},
		{"\x1b]133;A\x07$ \x1b]133;B\x07", State{LastKind: CommandStart, Marked: true, AtPrompt: true, Prompts: 1}},
		{"true\r\n\x1b]133;C\x07", State{LastKind: OutputStart, Marked: true, Running: true, Prompts: 1, Last: Command{Seq: 1, Start: at(2), Status: -1}}},
		{"\x1b]133;D;0\x07", State{LastKind: CommandEnd, Marked: true, Prompts: 1, Ended: 1, Last: Command{Seq: 1, Start: at(2), End: at(3), Status: 0}}},
		{"\x1b]133;A\x07$ \x1b]133;B\x07\x1b]133;D\x07", State{LastKind: CommandEnd, Marked: true, Prompts: 2, Ended: 1,
			Last: Command{Seq: 1, Start: at(2), End: at(3), Status: 0}}},
		{"\x1b]133;A\x07$ \x1b]133;B\x07false\r\n\x1b]133;C\x07", State{LastKind: OutputStart, Marked: true, Running: true, Prompts: 3, Ended: 1,
			Last: Command{Seq: 2, Start: at(5), Status: -1}}},
		// A prompt with no D: the command ended, status unknown.
		{"^C\r\n\x1b]133;A\x07", State{LastKind: PromptStart, Marked: true, AtPrompt: true, Prompts: 4, Ended: 2,
			Last: Command{Seq: 2, Start: at(5), End: at(6), Status: -1}}},
		{"\x1b]133;C\x07\x1b]133;D;1\x07", State{LastKind: CommandEnd, Marked: true, Prompts: 4, Ended: 3,
			Last: Command{Seq: 3, Start: at(7), End: at(7), Status: 1}}},
	}
	for i, s := range steps {
		tr.Feed("%1", 1, []byte(s.out), at(i))
		got, _ := tr.State("%1")
		got.Bytes, got.Ends, got.EndStatus = 0, 0, 0 // TestTrackerLastEnd
		if got != s.want {
			t.Errorf("step %d (%q): state %+v, want %+v", i, s.out, got, s.want)
		}
	}
	got := tr.Commands("%1")
	want := []Command{{Seq: 2, Start: at(5), End: at(6), Status: -1}, {Seq: 3, Start: at(7), End: at(7), Status: 1}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("Commands = %+v, want the last two: %+v", got, want)
	}
}

func TestTrackerOneSource(t *testing.T) {
	now := time.Now()
	tr := NewTracker(0)
	tr.Feed("%1", 1, []byte("\x1b]133;A\x07"), now)
	// The same output through a second connection (a linked window).
	if tr.Feed("%1", 2, []byte("\x1b]133;A\x07"), now) {
		t.Error("a second source's chunk was read")
	}
	if s, _ := tr.State("%1"); s.Prompts != 1 {
		t.Errorf("Prompts = %d, want 1", s.Prompts)
	}
	tr.Release(1)
	tr.Feed("%1", 2, []byte("\x1b]133;C\x07"), now)
	if s, _ := tr.State("%1"); !s.Running || s.Unsure {
		t.Errorf("after the first source's release, the second's C: %+v, want running and sure", s)
	}
	tr.Release(2)
	tr.Feed("%1", 3, []byte("x"), now)
	if s, _ := tr.State("%1"); !s.Unsure {
		t.Errorf("a new source after a release: %+v, want unsure", s)
	}
}

func TestTrackerGap(t *testing.T) {
	now := time.Now()
	tr := NewTracker(0)
	tr.Feed("%1", 1, []byte("\x1b]133;A\x07\x1b]133;C\x07\x1b]13"), now)
	tr.Gap("%1")
	// The rest of a mark cut by the gap is not a mark.
	tr.Feed("%1", 1, []byte("3;D;0\x07"), now)
	if s, _ := tr.State("%1"); !s.Unsure || !s.Running || s.Ended != 0 {
		t.Errorf("after a gap: %+v, want unsure, still running, nothing ended", s)
	}
	tr.Feed("%1", 1, []byte("\x1b]133;A\x07"), now)
	if s, _ := tr.State("%1"); s.Unsure || !s.AtPrompt {
		t.Errorf("a prompt after the gap: %+v, want sure, at the prompt", s)
	}
	tr.Forget("%1")
	if _, ok := tr.State("%1"); ok {
		t.Error("a forgotten pane has a state")
	}
}

func TestTrackerLastEnd(t *testing.T) {
	now := time.Now()
	tr := NewTracker(0)
	// A command prints an end and a prompt of its own, more output, and
	// ends: the shell's end is the last.
	tr.Feed("%1", 1, []byte("\x1b]133;A\x07$ \x1b]133;B\x07\x1b]133;C\x07\x1b]133;D;0\x07\x1b]133;A\x07$ \x1b]133;B\x07real\r\n"), now)
	tr.Feed("%1", 1, []byte("\x1b]133;D;3\x07\x1b]133;A\x07$ \x1b]133;B\x07"), now)
	tail, st := tr.Tail("%1")
	if st.Ends != 2 || st.EndStatus != 3 || !st.AtPrompt {
		t.Errorf("state %+v, want 2 ends, the last with status 3, at the prompt", st)
	}
	if rows, endX, cur, ok := tail.Reckon(80); !ok || rows != 0 || endX != 0 || cur != 2 {
		t.Errorf("the tail from the last end: %d rows, end at %d, cursor at %d, %v; want 0, 0, 2", rows, endX, cur, ok)
	}
}
