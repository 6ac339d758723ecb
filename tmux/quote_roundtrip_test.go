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

	"github.com/tmux-mcp/tmux-mcp/tmux/codec"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// The quoting of package codec, round-tripped through a real server: tmux
// must receive exactly the bytes, and each line must run exactly one
// command.

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
	if codec.ValidArg(arg) != nil {
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
			t.Fatalf("set-buffer %q (line %s): got %q, %v; want no output", arg, codec.Quote([]string{"x", arg}), out, err)
		}
	}
	out, err := r.run(t, "display-message", "-p", "sentinel")
	if err != nil || string(out) != "sentinel\n" {
		t.Fatalf("after %q (line %s): sentinel got %q, %v: the line ran more or fewer than one command",
			arg, codec.Quote([]string{"x", arg}), out, err)
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
		got = codec.UnescapeBuffer(esc)
	}
	if string(got) != arg {
		t.Fatalf("round trip through tmux (line %s):\n got %q\nwant %q", codec.Quote([]string{"x", arg}), got, arg)
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
	out, err := r.run(t, "list-windows", "-t", "=q", "-F", codec.RecordFormat("window_name"))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := codec.ParseRecords(out, 1)
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
