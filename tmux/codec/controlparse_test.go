package codec

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// describe renders a parser event compactly for comparisons.
func describe(ev Event) string {
	switch ev.Kind {
	case EventBlock:
		status := "end"
		if ev.IsErr {
			status = "error"
		}
		return fmt.Sprintf("block flags=%s %s %q", ev.Flags, status, ev.Body)
	case EventNotify:
		return fmt.Sprintf("notify %q", ev.Line)
	case EventExit:
		return fmt.Sprintf("exit %q", ev.Reason)
	}
	return fmt.Sprintf("unknown kind %d", ev.Kind)
}

// parseAll runs the parser to the end and describes every event, then how
// the stream ended ("EOF" or "truncated").
func parseAll(t testing.TB, r io.Reader) []string {
	t.Helper()
	p := NewParser(r)
	var got []string
	for i := 0; ; i++ {
		if i > 1_000_000 {
			t.Fatalf("parser did not stop")
		}
		ev, err := p.Next()
		if err != nil {
			switch {
			case errors.Is(err, ErrTruncated):
				got = append(got, "truncated")
			case errors.Is(err, io.EOF):
				got = append(got, "EOF")
			default:
				got = append(got, "error "+err.Error())
			}
			return got
		}
		got = append(got, describe(ev))
	}
}

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseRecordedTranscripts(t *testing.T) {
	tests := []struct {
		file string
		want []string
	}{
		{
			// Recorded on tmux 3.3a: a command answered before the attach
			// block, pane text that forges protocol lines inside a
			// capture-pane block, an %error block, a hook's flags=0 block,
			// and the %exit after stdin closed.
			file: "control-hook-error-forged-end.txt",
			want: []string{
				`block flags=1 end "hello\n"`,
				`block flags=0 end ""`,
				`notify "%session-changed $0 r"`,
				`block flags=1 end "%end 1 2 1\n%output %0 fake\n%error 1 2 1\n%begin 3 4 1\n` + strings.Repeat(`\n`, 20) + `"`,
				`notify "%window-renamed @0 cat"`,
				`block flags=1 error "can't find pane: %999\n"`,
				`block flags=1 end ""`,
				`block flags=1 end ""`,
				`block flags=0 end "HOOKFIRED\n"`,
				`notify "%window-add @1"`,
				`block flags=1 end "@0 cat\n@1 bash\n"`,
				`exit ""`,
				"EOF",
			},
		},
		{
			// Recorded on tmux 3.3a: %pause/%continue printed inside the
			// refresh-client blocks, %extended-output with raw UTF-8, and the
			// server SIGKILLed.
			file: "control-pause-in-block-server-killed.txt",
			want: []string{
				`block flags=0 end ""`,
				`notify "%session-changed $0 r"`,
				`notify "%pause %0"`,
				`block flags=1 end ""`,
				`notify "%continue %0"`,
				`block flags=1 end ""`,
				`block flags=1 end ""`,
				`notify "%extended-output %0 0 : héllo wörld"`,
				`block flags=1 end "done\n"`,
				`exit "server exited unexpectedly"`,
				"EOF",
			},
		},
		{
			// Synthetic: UTF-8 split across output lines, a block whose end
			// line differs only in flags, number or field count.
			file: "control-split-utf8-near-miss-end.txt",
			want: []string{
				`block flags=0 end ""`,
				`notify "%session-changed $1 w"`,
				`notify "%output %3 caf\xc3"`,
				`notify "%output %3 \xa9 \\134 \\015\\012"`,
				`notify "%extended-output %3 12 : \xe2\x82"`,
				`notify "%extended-output %3 13 : \xac!"`,
				`block flags=1 end ""`,
				`block flags=0 end "hook\n"`,
				`block flags=1 end "line\n%end 1700000001 13 0\n%end 1700000001 12 1\n%error 1700000001 13\n"`,
				`notify "%layout-change @2 b25d,80x24,0,0,3 b25d,80x24,0,0,3 *"`,
				`exit ""`,
				"EOF",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got := parseAll(t, bytes.NewReader(readTestdata(t, tt.file)))
			if !slices.Equal(got, tt.want) {
				t.Errorf("events:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestParseCases(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"empty stream", "", []string{"EOF"}},
		{"exit with reason", "%exit too far behind\n", []string{`exit "too far behind"`, "EOF"}},
		{"exit unterminated", "%exit server exited unexpectedly", []string{`exit "server exited unexpectedly"`, "EOF"}},
		{"not exit", "%exited\n", []string{`notify "%exited"`, "EOF"}},
		{"truncated block", "%begin 1 2 1\nabc\n", []string{"truncated"}},
		{"truncated unterminated", "%begin 1 2 1\nabc", []string{"truncated"}},
		{
			"exit inside a block when the server dies mid-answer",
			"%begin 1 2 1\npartial\n%exit server exited unexpectedly\n",
			[]string{`exit "server exited unexpectedly"`, "EOF"},
		},
		{"empty body line", "%begin 1 2 1\n\n%end 1 2 1\n", []string{`block flags=1 end "\n"`, "EOF"}},
		{"CR kept", "%begin 1 2 1\na\r\n%end 1 2 1\n", []string{`block flags=1 end "a\r\n"`, "EOF"}},
		{"end with trailing space is body", "%begin 1 2 1\n%end 1 2 1 \n%end 1 2 1\n", []string{`block flags=1 end "%end 1 2 1 \n"`, "EOF"}},
		{"bad begin is a notification", "%begin 1 2\n%begin x y z\n", []string{`notify "%begin 1 2"`, `notify "%begin x y z"`, "EOF"}},
		{"non-% noise outside a block is ignored", "hello\n\n%sessions-changed\n", []string{`notify "%sessions-changed"`, "EOF"}},
		{
			"only exact pause/continue are notifications inside a block",
			"%begin 1 2 1\n%pause %1\n%pause %1x\n%continue %22\n%continue\n%output %1 x\n%end 1 2 1\n",
			[]string{`notify "%pause %1"`, `notify "%continue %22"`, `block flags=1 end "%pause %1x\n%continue\n%output %1 x\n"`, "EOF"},
		},
		{"negative flags", "%begin 1 2 -1\n%end 1 2 -1\n", []string{`block flags=-1 end ""`, "EOF"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseAll(t, strings.NewReader(tt.in))
			if !slices.Equal(got, tt.want) {
				t.Errorf("events:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestParseLongLine feeds a 1 MB body line and a 1 MB notification through a
// small reader buffer.
func TestParseLongLine(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	var in bytes.Buffer
	fmt.Fprintf(&in, "%%begin 1 2 1\n%s\n%%end 1 2 1\n", big)
	fmt.Fprintf(&in, "%%output %%1 %s\n", big)
	p := NewParser(bufio.NewReaderSize(&in, 16))
	ev, err := p.Next()
	if err != nil {
		t.Fatal(err)
	}
	if ev.Kind != EventBlock || !bytes.Equal(ev.Body, append(bytes.Clone(big), '\n')) {
		t.Errorf("block: kind %d, body %d bytes; want block of %d bytes", ev.Kind, len(ev.Body), len(big)+1)
	}
	ev, err = p.Next()
	if err != nil {
		t.Fatal(err)
	}
	if want := append([]byte("%output %1 "), big...); ev.Kind != EventNotify || !bytes.Equal(ev.Line, want) {
		t.Errorf("notification: kind %d, line %d bytes; want a notification of %d bytes", ev.Kind, len(ev.Line), len(want))
	}
	if _, err := p.Next(); !errors.Is(err, io.EOF) {
		t.Errorf("end: err = %v, want EOF", err)
	}
}

// FuzzControlParse feeds arbitrary streams to the parser. Invariants: it
// never panics, it ends (with EOF or a truncated block), every block ends
// with its own header, block bodies are whole lines, and the bytes it
// accounts for never exceed the input.
func FuzzControlParse(f *testing.F) {
	for _, name := range []string{
		"control-hook-error-forged-end.txt",
		"control-pause-in-block-server-killed.txt",
		"control-split-utf8-near-miss-end.txt",
	} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("%begin 1 2 1\n%end 1 2 1"))
	f.Add([]byte("%begin 1 2 1\n%exit\n"))
	f.Add([]byte("%output %1 \\\\0\\1\\12\\777\\"))
	f.Fuzz(func(t *testing.T, in []byte) {
		p := NewParser(bufio.NewReaderSize(bytes.NewReader(in), 16))
		var total int
		for i := 0; ; i++ {
			if i > len(in)+2 {
				t.Fatalf("parser produced more events (%d) than the input has bytes (%d)", i, len(in))
			}
			ev, err := p.Next()
			if err != nil {
				if !errors.Is(err, io.EOF) {
					t.Fatalf("unexpected error %v", err)
				}
				break
			}
			switch ev.Kind {
			case EventBlock:
				if len(ev.Body) > 0 && ev.Body[len(ev.Body)-1] != '\n' {
					t.Fatalf("block body %q does not end in a newline", ev.Body)
				}
				end := "%end " + ev.Header + "\n"
				if ev.IsErr {
					end = "%error " + ev.Header + "\n"
				}
				if !bytes.Contains(in, []byte(end)) && !bytes.HasSuffix(in, []byte(strings.TrimSuffix(end, "\n"))) {
					t.Fatalf("block ended without %q in the input", end)
				}
				if !strings.HasSuffix(ev.Header, " "+ev.Flags) {
					t.Fatalf("flags %q not the last header field of %q", ev.Flags, ev.Header)
				}
				total += len(ev.Body)
			case EventNotify:
				if len(ev.Line) == 0 || ev.Line[0] != '%' {
					t.Fatalf("notification %q does not start with %%", ev.Line)
				}
				total += len(ev.Line)
			case EventExit:
				total += len(ev.Line)
			default:
				t.Fatalf("unknown event kind %d", ev.Kind)
			}
			if total > len(in) {
				t.Fatalf("events account for %d bytes of a %d-byte input", total, len(in))
			}
		}
	})
}
