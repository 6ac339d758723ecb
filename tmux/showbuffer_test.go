package tmux

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/tmux/codec"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// showBufferCase is one recorded show-buffer round trip: the buffer's bytes
// and what Run("show-buffer") returned over control mode on tmux 3.3a.
type showBufferCase struct {
	data, out []byte
}

// readShowBufferRecording reads testdata/show-buffer-3.3a.txt: every byte
// value alone and followed by "0", "x" and "\", plus UTF-8 and multi-line
// buffers.
func readShowBufferRecording(t *testing.T) []showBufferCase {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "show-buffer-3.3a.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []showBufferCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		in, out, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("bad recording line %q", line)
		}
		data, err1 := hex.DecodeString(in)
		want, err2 := hex.DecodeString(out)
		if err1 != nil || err2 != nil {
			t.Fatalf("bad recording line %q", line)
		}
		cases = append(cases, showBufferCase{data, want})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 1024 {
		t.Fatalf("recording has %d cases, want at least 1024", len(cases))
	}
	return cases
}

func TestUnescapeBufferRecorded(t *testing.T) {
	for _, c := range readShowBufferRecording(t) {
		esc := bytes.TrimSuffix(c.out, []byte("\n"))
		if got := codec.UnescapeBuffer(esc); !bytes.Equal(got, c.data) {
			t.Errorf("UnescapeBuffer(%q) = %q, want %q", esc, got, c.data)
		}
	}
}

// TestShowBufferEscapingMatchesRecording checks the recording against the
// installed tmux, so a different version's escaping shows up here.
func TestShowBufferEscapingMatchesRecording(t *testing.T) {
	s := tmuxtest.New(t)
	s.Start("main")
	if v := s.MustTmux("display-message", "-p", "#{version}"); v != "3.3a" {
		t.Skipf("recording is from tmux 3.3a, server is %s", v)
	}
	c := dialTest(t, s, ControlOptions{Target: "=main", Flags: "no-output"})
	file := filepath.Join(s.Dir, "buf")
	for i, tc := range readShowBufferRecording(t) {
		if err := os.WriteFile(file, tc.data, 0o600); err != nil {
			t.Fatal(err)
		}
		runTest(t, c, "load-buffer", "-b", "rec", "--", file)
		got := runTest(t, c, "show-buffer", "-b", "rec")
		if got != string(tc.out) {
			t.Errorf("case %d: show-buffer of %q = %q, recorded %q", i, tc.data, got, tc.out)
		}
	}
}
