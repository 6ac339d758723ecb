package tmux

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor/tmux/tmuxtest"
)

func TestQuoteForms(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"display-message", "-p", "hello"}, "display-message -p hello"},
		{[]string{"set-buffer", "-b", "x", "--", ""}, "set-buffer -b x -- ''"},
		{[]string{"send-keys", "-t", "%1", "-l", "a b"}, "send-keys -t '%1' -l 'a b'"},
		{[]string{"x", "#{pane_id}"}, "x '#{pane_id}'"},
		{[]string{"x", "a;b"}, "x 'a;b'"},
		{[]string{"x", "{"}, "x '{'"},
		{[]string{"x", "=main"}, "x '=main'"},
		{[]string{"x", "~"}, "x '~'"},
		{[]string{"x", "~\n"}, `x "\~\012"`},
		{[]string{"x", "$HOME"}, `x '$HOME'`},
		{[]string{"x", "it's $HOME"}, `x "it's \$HOME"`},
		{[]string{"x", `a\b"c`}, `x 'a\b"c'`},
		{[]string{"x", "a'b\\c\"d"}, `x "a'b\\c\"d"`},
		{[]string{"x", "a\nb"}, `x "a\012b"`},
		{[]string{"x", "\r\t\x1b\x7f"}, `x "\015\011\033\177"`},
		{[]string{"x", "\xff\xfe"}, `x "\377\376"`},
		{[]string{"x", "é€"}, "x 'é€'"},
		{[]string{"x", "é\n"}, "x \"é\\012\""},
		{[]string{"x", "\u0085"}, `x "\302\205"`},
		{[]string{"x", "-t"}, "x -t"},
		{[]string{"x", "a/b.c:d,e+f@g_h-1"}, "x a/b.c:d,e+f@g_h-1"},
	}
	for _, tt := range tests {
		if got := Quote(tt.args); got != tt.want {
			t.Errorf("Quote(%q) = %s, want %s", tt.args, got, tt.want)
		}
	}
}

func TestQuoteNeverWritesRawControlBytes(t *testing.T) {
	var all []byte
	for b := range 256 {
		all = append(all, byte(b))
	}
	q := Quote([]string{"set-buffer", string(all)})
	for i := 0; i < len(q); i++ {
		if c := q[i]; c < 0x20 || c == 0x7f || c == 0xff {
			t.Fatalf("Quote wrote raw byte %#x at %d: %q", c, i, q)
		}
	}
}

func TestValidArg(t *testing.T) {
	tests := []struct {
		arg string
		ok  bool
	}{
		{"", true},
		{"abc", true},
		{"\xff", true},
		{"a\x00", false},
		{"\x00", false},
	}
	for _, tt := range tests {
		if err := ValidArg(tt.arg); (err == nil) != tt.ok {
			t.Errorf("ValidArg(%q) = %v, want ok=%v", tt.arg, err, tt.ok)
		}
	}
	for _, name := range []string{"display-message", "send-keys", "ls"} {
		if err := validCommandName(name); err != nil {
			t.Errorf("validCommandName(%q) = %v, want nil", name, err)
		}
	}
	for _, name := range []string{"", "FOO=bar", "#x", "%if", "a b", "'x'", "X"} {
		if err := validCommandName(name); err == nil {
			t.Errorf("validCommandName(%q) = nil, want an error", name)
		}
	}
}

// quoteRig is a control connection to a private server for round trips.
type quoteRig struct {
	c    *Control
	caps Capabilities
}

func newQuoteRig(t testing.TB) *quoteRig {
	t.Helper()
	s := tmuxtest.New(t)
	s.Start("q")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := DialControl(ctx, ControlOptions{
		Exec: testExec(s), Target: "=q", Flags: "no-output,ignore-size", MaxInFlight: 4,
	})
	if err != nil {
		t.Fatalf("DialControl: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	out, err := c.Run(ctx, "display-message", "-p", "#{version}")
	if err != nil {
		t.Fatalf("version: %v", err)
	}
	v, err := ParseVersion(string(out))
	if err != nil {
		t.Fatal(err)
	}
	return &quoteRig{c: c, caps: v.Capabilities()}
}

func (r *quoteRig) run(t testing.TB, args ...string) ([]byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return r.c.Run(ctx, args...)
}

// roundTrip sends arg as the data of set-buffer and checks that tmux stored
// exactly those bytes and ran exactly one command: the sentinel sent next
// must get the very next block.
func (r *quoteRig) roundTrip(t testing.TB, arg string) {
	t.Helper()
	if ValidArg(arg) != nil {
		if _, err := r.run(t, "set-buffer", "-b", "fz", "--", arg); err == nil || errors.Is(err, ErrConnectionLost) {
			t.Fatalf("Run with a NUL byte: err = %v, want a validation error", err)
		}
		return
	}
	if arg == "" {
		// set-buffer ignores empty data; display-message prints it.
		out, err := r.run(t, "display-message", "-p", "--", arg)
		if err != nil || string(out) != "\n" {
			t.Fatalf("display-message '': got %q, %v; want %q", out, err, "\n")
		}
	} else {
		out, err := r.run(t, "set-buffer", "-b", "fz", "--", arg)
		if err != nil || len(out) != 0 {
			t.Fatalf("set-buffer %q (line %s): got %q, %v; want no output", arg, Quote([]string{"x", arg}), out, err)
		}
	}
	out, err := r.run(t, "display-message", "-p", "sentinel")
	if err != nil || string(out) != "sentinel\n" {
		t.Fatalf("after %q (line %s): sentinel got %q, %v: the line ran more or fewer than one command",
			arg, Quote([]string{"x", arg}), out, err)
	}
	if arg == "" {
		return
	}
	out, err = r.run(t, "show-buffer", "-b", "fz")
	if err != nil {
		t.Fatalf("show-buffer: %v", err)
	}
	esc, ok := bytes.CutSuffix(out, []byte("\n"))
	if !ok {
		t.Fatalf("show-buffer output %q does not end in a newline", out)
	}
	got := esc
	if r.caps.ShowBufferEscaped {
		got = UnescapeBuffer(esc)
	}
	if string(got) != arg {
		t.Fatalf("round trip through tmux (line %s):\n got %q\nwant %q", Quote([]string{"x", arg}), got, arg)
	}
}

// seedArgs reads the FuzzQuote seed corpus.
func seedArgs(t testing.TB) map[string]string {
	t.Helper()
	dir := filepath.Join("testdata", "fuzz", "FuzzQuote")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	seeds := make(map[string]string)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		s, err := parseCorpusString(b)
		if err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		seeds[e.Name()] = s
	}
	return seeds
}

// parseCorpusString decodes a one-string "go test fuzz v1" file.
func parseCorpusString(b []byte) (string, error) {
	body, ok := bytes.CutPrefix(b, []byte("go test fuzz v1\n"))
	if !ok {
		return "", errors.New("not a go fuzz corpus file")
	}
	lit, ok := bytes.CutPrefix(bytes.TrimSpace(body), []byte("string("))
	if !ok {
		return "", errors.New("not a string entry")
	}
	lit, ok = bytes.CutSuffix(lit, []byte(")"))
	if !ok {
		return "", errors.New("unterminated string entry")
	}
	return strconv.Unquote(string(lit))
}

func TestQuoteRoundTripSeeds(t *testing.T) {
	r := newQuoteRig(t)
	for name, arg := range seedArgs(t) {
		t.Run(name, func(t *testing.T) { r.roundTrip(t, arg) })
	}
	// Several hazardous arguments in one command line, each in its place.
	// (new-window expands formats in -n, so no #{} in the name.)
	all := []string{"new-window", "-d", "-n", "a;b ~ $HOME 'q\" } {", "-t", "=q:", "--", "exec cat # ;x"}
	if _, err := r.run(t, all...); err != nil {
		t.Fatalf("new-window: %v", err)
	}
	out, err := r.run(t, "list-windows", "-t", "=q", "-F", RecordFormat("window_name"))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := ParseRecords(out, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 {
		t.Fatalf("list-windows shows %d windows, want 2: %q", len(recs), out)
	}
	if got, want := recs[1][0], "a;b ~ $HOME 'q\" } {"; got != want {
		t.Errorf("list-windows: second window %q, want the new window named as sent (%q)", got, want)
	}
}

// FuzzQuote round-trips arbitrary arguments through a real tmux server:
// tmux must receive exactly the bytes, and the line must run exactly one
// command.
func FuzzQuote(f *testing.F) {
	// The seed corpus is testdata/fuzz/FuzzQuote.
	r := newQuoteRig(f)
	f.Fuzz(func(t *testing.T, arg string) {
		r.roundTrip(t, arg)
	})
}
