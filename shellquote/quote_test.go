package shellquote

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestQuote(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", "''"},
		{"serve", "serve"},
		{"--safety", "--safety"},
		{"/tmp/tmux-0/default", "/tmp/tmux-0/default"},
		{"a=b", "a=b"},
		{"user@host:1,2+3%", "user@host:1,2+3%"},
		{"/tmp/my dir/s", "'/tmp/my dir/s'"},
		{"it's", `'it'\''s'`},
		{"'", `\'`},
		{`a\b`, `'a\b'`},
		{`a\\b'\`, `'a'\\'\b'\'\\`},
		{`\n`, `'\n'`},
		{`a\`, `'a'\\`},
		{`\\`, `\\\\`},
		{"=ls", "'=ls'"},
		{"%self", "'%self'"},
		{"~", "'~'"},
		{"#x", "'#x'"},
		{"$HOME", "'$HOME'"},
		{"a\nb", "'a\nb'"},
		{"ü", "'ü'"},
	} {
		if got := Quote(tt.in); got != tt.want {
			t.Errorf("Quote(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestJoin(t *testing.T) {
	got := Join([]string{"vim", "it's here", "-c", "", "a=b"})
	if want := `vim 'it'\''s here' -c '' a=b`; got != want {
		t.Errorf("Join = %s, want %s", got, want)
	}
	if got := Join(nil); got != "" {
		t.Errorf("Join(nil) = %q, want \"\"", got)
	}
}

// TestParsersRefuse: the test's own parsers fail on what a shell would
// not take literally, so FuzzQuote's round trip means something.
func TestParsersRefuse(t *testing.T) {
	for _, line := range []string{"$HOME", "a*", "{a,b}", "=ls", "%self", "~", "#x", "'open", `"x"`, "a\nb", "!!", "ü", "a;b"} {
		if got, err := posixWords(line); err == nil {
			t.Errorf("posixWords(%q) = %q, want an error", line, got)
		}
		if got, err := fishWords(line); err == nil {
			t.Errorf("fishWords(%q) = %q, want an error", line, got)
		}
	}
	// What sh reads and fish does not: a backslash before a quote inside
	// single quotes.
	if got, err := posixWords(`'a\'`); err != nil || !slices.Equal(got, []string{`a\`}) {
		t.Errorf(`posixWords('a\') = %q, %v; want [a\]`, got, err)
	}
	if got, err := fishWords(`'a\'`); err == nil {
		t.Errorf(`fishWords('a\') = %q, want an error`, got)
	}
}

// FuzzQuote: every string comes back as one word, exactly, from Quote
// through sh's and fish's rules (parse_test.go) and through the real sh
// (one sh for the run, reading commands on its standard input); Join's
// arguments come back in order. The seed corpus is testdata/fuzz/FuzzQuote.
func FuzzQuote(f *testing.F) {
	sh := startEcho(f)
	f.Fuzz(func(t *testing.T, s string) {
		q := Quote(s)
		for name, parse := range map[string]func(string) ([]string, error){"sh": posixWords, "fish": fishWords} {
			if got, err := parse(q); err != nil || !slices.Equal(got, []string{s}) {
				t.Fatalf("%s reads Quote(%q) = %s as %q (%v)", name, s, q, got, err)
			}
			argv := []string{s, "x", s}
			if got, err := parse(Join(argv)); err != nil || !slices.Equal(got, argv) {
				t.Fatalf("%s reads Join(%q) = %s as %q (%v)", name, argv, Join(argv), got, err)
			}
		}
		if strings.IndexByte(s, 0) >= 0 {
			return // no process takes it
		}
		if got, err := sh.echo(q); err != nil || got != s {
			t.Fatalf("sh: printf '%%s\\0' %s = %q (%v), want %q", q, got, err, s)
		}
	})
}

// echoShell is a running sh that reads commands on its standard input.
type echoShell struct {
	in     io.Writer
	out    *bufio.Reader
	stderr *bytes.Buffer
}

// startEcho starts sh for the test; it ends with the test.
func startEcho(tb testing.TB) *echoShell {
	tb.Helper()
	path, err := exec.LookPath("sh")
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(path)
	in, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	e := &echoShell{in: in, out: bufio.NewReader(out), stderr: &bytes.Buffer{}}
	cmd.Stderr = e.stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		in.Close()
		cmd.Wait() //nolint:errcheck // its output was checked
	})
	return e
}

// echo has sh print the word q and returns what it printed. An answer
// that does not come within a minute is an error: sh is still reading the
// word (a quote left open), and would read the next command into it.
func (e *echoShell) echo(q string) (string, error) {
	if _, err := io.WriteString(e.in, "printf '%s\\0' "+q+"\n"); err != nil {
		return "", fmt.Errorf("%w (sh: %s)", err, e.stderr)
	}
	type answer struct {
		b   []byte
		err error
	}
	ch := make(chan answer, 1)
	go func() {
		b, err := e.out.ReadBytes(0)
		ch <- answer{b, err}
	}()
	select {
	case a := <-ch:
		if a.err != nil {
			return "", fmt.Errorf("%w (sh: %s)", a.err, e.stderr)
		}
		return string(a.b[:len(a.b)-1]), nil
	case <-time.After(time.Minute):
		return "", errors.New("no answer: sh is still reading the word")
	}
}

// TestQuoteUnderShells: each shell tmux-mcp's command lines meet prints
// back every word of the seed corpus exactly (tcsh: but those with "!" or
// a newline, which the package comment leaves out).
func TestQuoteUnderShells(t *testing.T) {
	var words []string
	for _, s := range seeds(t) {
		if strings.IndexByte(s, 0) < 0 {
			words = append(words, s)
		}
	}
	home := t.TempDir()
	for _, sh := range []struct {
		name string
		args []string
		skip string // bytes the shell cannot be given
	}{
		{"sh", nil, ""},
		{"dash", nil, ""},
		{"bash", []string{"--norc", "--noprofile"}, ""},
		{"zsh", []string{"-f"}, ""},
		{"fish", []string{"--no-config"}, ""},
		{"tcsh", []string{"-f"}, "!\n"},
	} {
		t.Run(sh.name, func(t *testing.T) {
			path := requireShell(t, sh.name)
			var want []string
			for _, w := range words {
				if !strings.ContainsAny(w, sh.skip) || sh.skip == "" {
					want = append(want, w)
				}
			}
			const sep = "|SEP|"
			cmd := exec.Command(path, append(sh.args, "-c", "printf '%s"+sep+"' "+Join(want))...)
			cmd.Env = []string{"HOME=" + home, "XDG_CONFIG_HOME=" + home, "XDG_DATA_HOME=" + home, "PATH=" + os.Getenv("PATH")}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%v: %s", err, stderr.String())
			}
			got := strings.Split(strings.TrimSuffix(string(out), sep), sep)
			if len(got) != len(want) {
				t.Fatalf("%d words back, want %d: %q", len(got), len(want), got)
			}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("%s gives %q for %s, want %q", sh.name, got[i], Quote(want[i]), want[i])
				}
			}
		})
	}
}

// requireShell returns the path of the shell, skipping the test without
// it, except in CI, which installs it (.ci/run); sh is everywhere.
func requireShell(t *testing.T, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	switch {
	case err == nil:
		return path
	case name == "sh" || os.Getenv("CI") != "":
		t.Fatalf("%s is not installed; CI installs it (.ci/run)", name)
	}
	t.Skipf("%s is not installed", name)
	return ""
}

// seeds reads the FuzzQuote seed corpus.
func seeds(t *testing.T) []string {
	t.Helper()
	dir := filepath.Join("testdata", "fuzz", "FuzzQuote")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		s, err := corpusString(b)
		if err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		t.Fatal("no seeds")
	}
	return out
}

// corpusString decodes a one-string "go test fuzz v1" file.
func corpusString(b []byte) (string, error) {
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
