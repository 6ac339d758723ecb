package marks

import (
	"slices"
	"testing"
)

func TestScannerFeed(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []Mark
	}{
		{"prompt, command, output, end with BEL", "\x1b]133;A\x07$ \x1b]133;B\x07ls\r\n\x1b]133;C\x07a b\r\n\x1b]133;D;0\x07",
			[]Mark{{PromptStart, -1}, {CommandStart, -1}, {OutputStart, -1}, {CommandEnd, 0}}},
		{"ST terminators", "\x1b]133;C\x1b\\out\x1b]133;D;7\x1b\\", []Mark{{OutputStart, -1}, {CommandEnd, 7}}},
		{"D without status", "\x1b]133;D\x07", []Mark{{CommandEnd, -1}}},
		{"D with empty status", "\x1b]133;D;\x07", []Mark{{CommandEnd, -1}}},
		{"D with parameters after the status", "\x1b]133;D;130;aid=42\x07", []Mark{{CommandEnd, 130}}},
		{"D with a parameter and no status", "\x1b]133;D;aid=42\x07", []Mark{{CommandEnd, -1}}},
		{"status past 255", "\x1b]133;D;99999999999999999999\x07", []Mark{{CommandEnd, 255}}},
		{"A with parameters", "\x1b]133;A;cl=m;aid=7\x07", []Mark{{PromptStart, -1}}},
		{"kitty's N and the prompt's parts", "\x1b]133;N\x07\x1b]133;P;k=i\x07\x1b]133;I\x07",
			[]Mark{{PromptStart, -1}, {CommandStart, -1}, {CommandStart, -1}}},
		{"not a mark: other letters", "\x1b]133;E;ls\x07\x1b]133;AB\x07\x1b]133;\x07", nil},
		{"not a mark: other OSCs", "\x1b]0;133;A\x07\x1b]1337;A\x07\x1b]13;A\x07", nil},
		{"text that looks like one", "]133;A\x07 133;D;0", nil},
		{"CAN cancels", "\x1b]133;A\x18\x1b]133;B\x07", []Mark{{CommandStart, -1}}},
		{"ESC that is not ST ends the OSC", "\x1b]133;A\x1b[0m\x1b]133;C\x07", []Mark{{OutputStart, -1}}},
		{"OSC inside a skipped OSC's ESC", "\x1b]8;;http://x\x1b]133;D;3\x07", []Mark{{CommandEnd, 3}}},
		{"ESC ESC ]", "\x1b\x1b]133;A\x07", []Mark{{PromptStart, -1}}},
		{"a long OSC 133 is skipped", "\x1b]133;A;" + string(make([]byte, 300)) + "\x07\x1b]133;B\x07", []Mark{{CommandStart, -1}}},
		{"a long OSC 52 costs nothing", "\x1b]52;c;" + string(slices.Repeat([]byte("QUFB"), 10000)) + "\x07\x1b]133;C\x07",
			[]Mark{{OutputStart, -1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s Scanner
			got := s.Feed([]byte(tt.in), nil)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Feed(%q) = %v, want %v", tt.in, got, tt.want)
			}
			step := max(1, len(tt.in)/512) // every cut of the short ones
			for cut := 0; cut <= len(tt.in); cut += step {
				var s Scanner
				got := s.Feed([]byte(tt.in[cut:]), s.Feed([]byte(tt.in[:cut]), nil))
				if !slices.Equal(got, tt.want) {
					t.Fatalf("cut at %d: Feed = %v, want %v", cut, got, tt.want)
				}
			}
		})
	}
}

func TestScannerBuffersOnlyMarks(t *testing.T) {
	var s Scanner
	s.Feed(append([]byte("\x1b]52;c;"), slices.Repeat([]byte("QUFB"), 10000)...), nil)
	if got := cap(s.buf); got > maxPayload*2 {
		t.Errorf("after a 40 KB OSC 52 the scanner holds %d bytes, want at most %d", got, maxPayload*2)
	}
}

// FuzzScanner checks that any chunking of a stream finds the marks the
// whole stream holds.
func FuzzScanner(f *testing.F) {
	f.Add([]byte("\x1b]133;A\x07$ \x1b]133;C\x1b\\x\x1b]133;D;1\x07"), uint16(5))
	f.Add([]byte("\x1b]133;D;300;aid=1\x1b\x1b]133;B\x07"), uint16(9))
	f.Fuzz(func(t *testing.T, in []byte, cut uint16) {
		var whole Scanner
		want := whole.Feed(in, nil)
		c := int(cut) % (len(in) + 1)
		var s Scanner
		got := s.Feed(in[c:], s.Feed(in[:c], nil))
		if !slices.Equal(got, want) {
			t.Fatalf("cut at %d: %v, whole: %v", c, got, want)
		}
		for _, m := range got {
			if m.Status < -1 || m.Status > 255 {
				t.Fatalf("status %d out of range", m.Status)
			}
		}
	})
}

func TestTailReckon(t *testing.T) {
	tests := []struct {
		name            string
		out             string
		width           int
		rows, endX, cur int
	}{
		{"output ending in a newline, then a prompt", "x\r\nok\r\n\x1b]133;D;0\x07\x1b]133;A\x07\x1b[1;32m$\x1b[0m \x1b]133;B\x07", 80, 0, 0, 2},
		{"output with no newline: the prompt follows it", "partial\x1b]133;D;0\x07\x1b]133;A\x07$ \x1b]133;B\x07", 80, 0, 7, 9},
		{"a two-line prompt", "\x1b]133;D;1\x07\x1b]133;A\x07user@host ~\r\n$ \x1b]133;B\x07", 80, 1, 0, 2},
		{"a last line that wrapped", "0123456789abc\x1b]133;D;0\x07\x1b]133;A\x07$ \x1b]133;B\x07", 10, 0, 3, 5},
		{"a line that filled the row: the prompt wraps", "0123456789\x1b]133;D;0\x07$ ", 10, 1, 10, 2},
		{"zsh's mark after output with no newline", "abc\x1b]133;D;0\x07%" + string(slices.Repeat([]byte(" "), 9)) + "\r \r\r\x1b[K\x1b]133;A\x07%\x1b]133;B\x07", 10, 1, 3, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s Scanner
			s.Feed([]byte(tt.out), nil)
			rows, endX, cur, ok := s.tail.Reckon(tt.width)
			if !ok || rows != tt.rows || endX != tt.endX || cur != tt.cur {
				t.Errorf("Reckon(%d) = %d rows, end at %d, cursor at %d, %v; want %d, %d, %d", tt.width, rows, endX, cur, ok, tt.rows, tt.endX, tt.cur)
			}
		})
	}
	var s Scanner
	s.Feed([]byte("no end yet"), nil)
	if _, _, _, ok := s.tail.Reckon(80); ok {
		t.Error("a tail with no D mark reckons")
	}
	s.Feed([]byte("\x1b]133;D;0\x07"+string(slices.Repeat([]byte("y\r\n"), 100))), nil)
	if _, _, _, ok := s.tail.Reckon(80); ok {
		t.Error("a tail past its bound reckons")
	}
}
