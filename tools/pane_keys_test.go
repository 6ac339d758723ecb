package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestSendKeys(t *testing.T) {
	e := newEnv(t, Mutating)
	p := e.shell()
	var got sent
	res := e.ok("send_keys", map[string]any{"pane_id": p, "keys": "echo SENT_$((6*7))"}, &got)
	if want := "Keys sent to pane " + p; got.Result != want || text(res) != want || got.PaneID != p || got.ReadyTimedOut {
		t.Errorf("send_keys = %+v, text %q; want result and text %q, pane %s, ready", got, text(res), want, p)
	}
	e.waitScreen(p, "the command's output", func(s string) bool { return strings.Contains(s, "\nSENT_42") })

	// Key names unless literal; Enter unless enter is false; a space first
	// with suppress_history.
	sink, file := e.sink()
	e.ok("send_keys", map[string]any{"pane_id": sink, "keys": "C-a"}, nil)
	e.ok("send_keys", map[string]any{"pane_id": sink, "keys": "C-a", "literal": true}, nil)
	e.ok("send_keys", map[string]any{"pane_id": sink, "keys": "Tab", "enter": false}, nil)
	e.ok("send_keys", map[string]any{"pane_id": sink, "keys": "quiet", "suppress_history": true}, nil)
	waitFile(t, file, "\x01\nC-a\n\t quiet\n")

	bad := []struct {
		name string
		args map[string]any
		want []string
	}{
		{"no keys", map[string]any{"pane_id": p}, []string{"argument keys: required"}},
		{"empty keys without enter", map[string]any{"pane_id": p, "keys": "", "enter": false}, []string{"argument keys: must not be empty"}},
		{"bad pane id", map[string]any{"pane_id": "3", "keys": "x"}, []string{"argument pane_id: want a pane ID like %1"}},
		{"unknown pane", map[string]any{"pane_id": "%999999", "keys": "x"}, []string{"Pane not found: %999999", "[pane_not_found]", "list_panes"}},
		{"unknown session", map[string]any{"session_name": "nope", "keys": "x"}, []string{"Object not found: session_name=nope"}},
		{"unknown window", map[string]any{"window_id": "@99999", "keys": "x"}, []string{"Object not found: window_id=@99999"}},
		{"bad digest", map[string]any{"pane_id": p, "keys": "x", "if_sha256": "abc"}, []string{"argument if_sha256"}},
		{"unknown argument", map[string]any{"pane_id": p, "keys": "x", "pane": "%1"}, []string{"unknown argument(s): pane"}},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			e := *e
			e.t = t
			e.fails("send_keys", tt.args, tt.want...)
		})
	}
}

// TestSendKeysTargets checks the targeting without pane_id: the first pane
// of the window, of the session's first window, of the first session.
func TestSendKeysTargets(t *testing.T) {
	e := newEnv(t, Mutating)
	first := e.tmux("display-message", "-p", "-t", "main:0.0", "#{pane_id}")
	w := e.tmux("new-window", "-d", "-P", "-F", "#{window_id}", "-t", "main:")
	e.tmux("split-window", "-d", "-t", w)
	wFirst := e.tmux("display-message", "-p", "-t", w+".0", "#{pane_id}")
	tests := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{}, first},
		{map[string]any{"session_name": "main"}, first},
		{map[string]any{"window_id": w}, wFirst},
	}
	for _, tt := range tests {
		var got sent
		e.ok("send_keys", mergeArgs(tt.args, map[string]any{"keys": "", "enter": true}), &got)
		if got.PaneID != tt.want {
			t.Errorf("send_keys(%v) went to %s, want %s", tt.args, got.PaneID, tt.want)
		}
	}
}

func mergeArgs(a, b map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// specials are texts that tmux's parser, its format expansion or a shell
// could take for something else.
var specials = []string{
	"semi;colon ; and a trailing;",
	`quotes ' " and back` + "`ticks`",
	"formats #{pane_id} #(echo pwned) ## #[fg=red]",
	"percent %1 %% %Y %",
	"dollars $HOME ${X} $(id)",
	"non-ASCII é ü 日本語 🙂",
	"tab\tand back\\slash",
	"-dash first",
	"{braces} ~tilde",
}

// TestKeysAndTextArriveVerbatim sends every special text with send_keys
// (as keys and literally) and paste_text, and checks the bytes that reach
// the program in the pane.
func TestKeysAndTextArriveVerbatim(t *testing.T) {
	e := newEnv(t, Mutating)
	p, file := e.sink()
	var want strings.Builder
	for _, s := range specials {
		e.ok("send_keys", map[string]any{"pane_id": p, "keys": s}, nil)
		e.ok("send_keys", map[string]any{"pane_id": p, "keys": s, "literal": true}, nil)
		e.ok("paste_text", map[string]any{"pane_id": p, "text": s + "\n"}, nil)
		want.WriteString(s + "\n" + s + "\n" + s + "\n")
	}
	multi := "first line\nsecond; line\n"
	e.ok("send_keys", map[string]any{"pane_id": p, "keys": multi, "literal": true, "enter": false}, nil)
	e.ok("paste_text", map[string]any{"pane_id": p, "text": multi, "bracket": false}, nil)
	want.WriteString(multi + multi)
	waitFile(t, file, want.String())
}

// TestLongTextArrives sends text longer than one tmux command may carry.
func TestLongTextArrives(t *testing.T) {
	e := newEnv(t, Mutating)
	p, file := e.sink()
	line := strings.Repeat("0123456789;", 3000)[:3000]
	long := strings.Repeat(line+"\n", 12) // 36 KB, lines short enough for the tty
	e.ok("paste_text", map[string]any{"pane_id": p, "text": long}, nil)
	e.ok("send_keys", map[string]any{"pane_id": p, "keys": long, "literal": true, "enter": false}, nil)
	waitFile(t, file, long+long)
}

func TestStaleScreenGuard(t *testing.T) {
	e := newEnv(t, Mutating)
	p, file := e.sink()
	var c captureResult
	e.ok("capture_pane", map[string]any{"pane_id": p}, &c)
	e.ttyWrite(p, "the screen changed\r\n")
	e.waitScreen(p, "new output", func(s string) bool { return strings.Contains(s, "changed") })
	for tool, arg := range map[string]string{"send_keys": "keys", "paste_text": "text", "run_command": "command"} {
		args := map[string]any{"pane_id": p, "if_sha256": c.SHA256, arg: "STALE"}
		e.fails(tool, args, "changed since the capture with sha256 "+c.SHA256, "nothing was sent", "[stale_screen]")
	}
	var fresh captureResult
	e.ok("capture_pane", map[string]any{"pane_id": p}, &fresh)
	if fresh.SHA256 == c.SHA256 {
		t.Fatalf("capture after the change has the same sha256 %s", c.SHA256)
	}
	e.ok("send_keys", map[string]any{"pane_id": p, "keys": "FRESH", "if_sha256": fresh.SHA256}, nil)
	waitFile(t, file, "FRESH\n")
}

// TestConcurrentSendKeys sends ten distinct 200-character lines into one
// pane at once; each send is two tmux commands (text, then Enter), so
// without the pane lock lines would mix.
func TestConcurrentSendKeys(t *testing.T) {
	e := newEnv(t, Mutating)
	p, file := e.sink()
	var want []string
	for i := range 10 {
		want = append(want, strings.Repeat(string(rune('a'+i)), 200))
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(want))
	for _, line := range want {
		wg.Go(func() {
			res, err := e.callErr("send_keys", map[string]any{"pane_id": p, "keys": line, "literal": true})
			if err == nil && res.IsError {
				err = fmt.Errorf("error result %s", text(res))
			}
			if err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	tmuxWaitLines(t, file, len(want))
	b, _ := os.ReadFile(file)
	got := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("lines arrived mixed:\n%s", b)
	}
}

// tmuxWaitLines waits until file holds n lines.
func tmuxWaitLines(t *testing.T, file string, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		b, _ := os.ReadFile(file)
		if strings.Count(string(b), "\n") >= n {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	b, _ := os.ReadFile(file)
	t.Fatalf("file %s: got %q, want %d lines", file, b, n)
}

// TestReadiness sends keys right after split_window into a shell whose
// startup file sleeps 300 ms and then discards what was typed meanwhile,
// as zsh does: the keys must still arrive.
func TestReadiness(t *testing.T) {
	// Generous: what is tested is that the keys wait for the shell, not
	// how soon a loaded machine starts it.
	e := newEnv(t, Mutating, func(d *Deps) { d.ReadyTimeout = 15 * time.Second })
	rc := filepath.Join(t.TempDir(), "rc")
	err := os.WriteFile(rc, []byte("sleep 0.3\nwhile read -r -s -n 1 -t 0.05 _; do :; done\nPS1='$ '\n"), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	var pn PaneInfo
	e.ok("split_window", map[string]any{"session_name": "main", "shell": "env HISTFILE=/dev/null bash --noprofile --rcfile " + rc + " -i"}, &pn)
	var got sent
	e.ok("send_keys", map[string]any{"pane_id": pn.PaneID, "keys": "echo READY_$((40+2))"}, &got)
	if got.ReadyTimedOut {
		t.Errorf("send_keys = %+v, want the pane ready within the timeout", got)
	}
	e.waitScreen(pn.PaneID, "the command's output", func(s string) bool { return strings.Contains(s, "\nREADY_42") })
}

// TestReadinessTimeout: a pane that never prints gets its keys after the
// ready timeout, once, and the result says so.
func TestReadinessTimeout(t *testing.T) {
	e := newEnv(t, Mutating, func(d *Deps) { d.ReadyTimeout = 300 * time.Millisecond })
	file := filepath.Join(t.TempDir(), "sink")
	p := e.window("stty -echo; exec cat > " + file)
	var got sent
	start := time.Now()
	e.ok("send_keys", map[string]any{"pane_id": p, "keys": "one"}, &got)
	if !got.ReadyTimedOut || !strings.Contains(got.Result, "showed no output within 300ms; sent anyway") {
		t.Errorf("send_keys = %+v, want ready_timed_out and a message saying so", got)
	}
	if el := time.Since(start); el < 300*time.Millisecond {
		t.Errorf("send_keys returned after %v, want it to wait the 300ms ready timeout", el)
	}
	e.ok("send_keys", map[string]any{"pane_id": p, "keys": "two"}, &got)
	if got.ReadyTimedOut {
		t.Errorf("second send_keys = %+v, want no second wait", got)
	}
	waitFile(t, file, "one\ntwo\n")
}

type keysBatchResult struct {
	Results   []keysRow `json:"results"`
	Succeeded int       `json:"succeeded"`
	Failed    int       `json:"failed"`
	StoppedAt *int      `json:"stopped_at"`
}

func TestSendKeysBatch(t *testing.T) {
	e := newEnv(t, Mutating)
	p, file := e.sink()
	op := func(keys, pane string) map[string]any { return map[string]any{"keys": keys, "pane_id": pane} }
	var r keysBatchResult
	e.ok("send_keys_batch", map[string]any{"operations": []any{op("one", p), op("two", p)}}, &r)
	if r.Succeeded != 2 || r.Failed != 0 || r.StoppedAt != nil || len(r.Results) != 2 || *r.Results[1].PaneID != p {
		t.Errorf("batch = %+v, want 2 successes on %s", r, p)
	}
	waitFile(t, file, "one\ntwo\n")

	ops := []any{op("BEFORE", p), op("MISSING", "%999999"), op("AFTER", p)}
	e.ok("send_keys_batch", map[string]any{"operations": ops, "on_error": "continue"}, &r)
	if r.Succeeded != 2 || r.Failed != 1 || r.StoppedAt != nil || r.Results[1].PaneID != nil || r.Results[1].Success ||
		r.Results[1].Error == nil || !strings.Contains(*r.Results[1].Error, "Pane not found: %999999") ||
		!strings.Contains(*r.Results[1].Error, hintPanes) {
		t.Errorf("batch(continue) = %+v, want the middle row failed with Pane not found", r)
	}
	waitFile(t, file, "one\ntwo\nBEFORE\nAFTER\n")

	e.ok("send_keys_batch", map[string]any{"operations": ops}, &r)
	if r.Succeeded != 1 || r.Failed != 1 || r.StoppedAt == nil || *r.StoppedAt != 1 || len(r.Results) != 2 {
		t.Errorf("batch(stop) = %+v, want a stop at 1 after one success", r)
	}
	e.ok("send_keys", map[string]any{"pane_id": p, "keys": "FINAL"}, nil)
	waitFile(t, file, "one\ntwo\nBEFORE\nAFTER\nBEFORE\nFINAL\n")

	e.ok("send_keys_batch", map[string]any{"operations": []any{op("LATE", p)}, "timeout": 1e-9}, &r)
	if r.Failed != 1 || r.Results[0].Error == nil || !strings.Contains(*r.Results[0].Error, "batch execution exceeded timeout of 1e-09s") {
		t.Errorf("batch(timeout) = %+v, want the operation failed by the timeout", r)
	}

	e.fails("send_keys_batch", map[string]any{"operations": []any{}}, "operations must not be empty")
	e.fails("send_keys_batch", map[string]any{"operations": []any{map[string]any{"keys": "x", "pan_id": p}}},
		"operations[0]: unknown argument(s): pan_id")
	e.fails("send_keys_batch", map[string]any{"operations": []any{"x"}}, "argument operations: want an array of objects; item 0 is of type string")
	e.fails("send_keys_batch", map[string]any{"operations": []any{map[string]any{"pane_id": p}}}, "operations[0]: argument keys: required")
	e.fails("send_keys_batch", map[string]any{"operations": []any{op("x", p)}, "on_error": "retry"}, "argument on_error: want one of stop, continue")
}

func TestPasteText(t *testing.T) {
	e := newEnv(t, Mutating)
	p := e.shell()
	var got sent
	res := e.ok("paste_text", map[string]any{"pane_id": p, "text": "echo PASTED_$((2+3))\n", "bracket": false}, &got)
	if want := "Text pasted to pane " + p; got.Result != want || text(res) != want {
		t.Errorf("paste_text = %+v, want %q", got, want)
	}
	e.waitScreen(p, "the pasted command's output and a prompt", func(s string) bool {
		return strings.Contains(s, "\nPASTED_5") && strings.HasSuffix(s, "$")
	})
	// At its prompt bash asks for bracketed paste: a pasted newline does
	// not run the line.
	e.ok("paste_text", map[string]any{"pane_id": p, "text": "echo HELD_$((3+4))\n"}, nil)
	e.waitScreen(p, "the pasted line", func(s string) bool { return strings.Contains(s, "echo HELD_$((3+4))") })
	if s := e.screen(p); strings.Contains(s, "\nHELD_7") {
		t.Errorf("screen %q: a bracketed paste ran its line", s)
	}
	e.ok("send_keys", map[string]any{"pane_id": p, "keys": ""}, nil)
	e.waitScreen(p, "the line run by Enter", func(s string) bool { return strings.Contains(s, "\nHELD_7") })
	if bufs, _ := e.tm.Tmux("list-buffers", "-F", "#{buffer_name}"); strings.Contains(bufs, "tmux_mcp_") {
		t.Errorf("buffers left behind: %q", bufs)
	}
	e.fails("paste_text", map[string]any{"pane_id": p}, "argument text: required")
	e.fails("paste_text", map[string]any{"pane_id": p, "text": ""}, "argument text: must not be empty")
	e.fails("paste_text", map[string]any{"pane_id": "%999999", "text": "x"}, "Pane not found: %999999")
}

// TestKeysReachTheProgramInCopyMode types into a pane a person has put in
// copy mode: the keys reach the program, not the mode's key table (whose
// "/" and "?" open a search prompt on tmux-mcp's own client, which no one
// answers and which held up every later command on the connection).
func TestKeysReachTheProgramInCopyMode(t *testing.T) {
	e := newEnv(t, Mutating)
	p, file := e.sink()
	var want strings.Builder
	for _, tt := range []struct {
		keys    string
		literal bool
	}{
		{" /search ?back :goto g q", false},
		{" /search ?back :goto g q", true},
		{"C-a", false},
	} {
		e.tmux("copy-mode", "-t", p)
		if got := e.tmux("display-message", "-p", "-t", p, "#{pane_in_mode}"); got != "1" {
			t.Fatalf("pane_in_mode after copy-mode = %q, want 1", got)
		}
		e.ok("send_keys", map[string]any{"pane_id": p, "keys": tt.keys, "literal": tt.literal}, nil)
		if got := e.tmux("display-message", "-p", "-t", p, "#{pane_in_mode}"); got != "0" {
			t.Errorf("pane_in_mode after send_keys %q = %q, want 0", tt.keys, got)
		}
		if tt.keys == "C-a" {
			want.WriteString("\x01\n")
		} else {
			want.WriteString(tt.keys + "\n")
		}
	}
	waitFile(t, file, want.String())
}
