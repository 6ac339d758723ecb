package tools

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

type bufferRefResult struct {
	BufferName  string `json:"buffer_name"`
	LogicalName string `json:"logical_name"`
}

type bufferContent struct {
	BufferName            string `json:"buffer_name"`
	Content               string `json:"content"`
	ContentTruncated      bool   `json:"content_truncated"`
	ContentTruncatedLines int    `json:"content_truncated_lines"`
}

func (e *env) loadBuffer(content, logical string) string {
	e.t.Helper()
	var ref bufferRefResult
	e.ok("load_buffer", map[string]any{"content": content, "logical_name": logical}, &ref)
	return ref.BufferName
}

func TestBufferRoundTrip(t *testing.T) {
	e := newEnv(t, Mutating)
	var a, b bufferRefResult
	e.ok("load_buffer", map[string]any{"content": "x", "logical_name": "clipboard"}, &a)
	e.ok("load_buffer", map[string]any{"content": "y", "logical_name": "clipboard"}, &b)
	shape := regexp.MustCompile(`^tmux_mcp_[0-9a-f]{32}_clipboard$`)
	if a.BufferName == b.BufferName || !shape.MatchString(a.BufferName) || !shape.MatchString(b.BufferName) || a.LogicalName != "clipboard" {
		t.Errorf("load_buffer twice = %+v, %+v; want two distinct tmux_mcp_<32 hex>_clipboard names", a, b)
	}
	var def bufferRefResult
	e.ok("load_buffer", map[string]any{"content": "z"}, &def)
	if def.LogicalName != "buf" || !strings.HasSuffix(def.BufferName, "_buf") {
		t.Errorf("load_buffer without a logical name = %+v, want buf", def)
	}

	// Bytes that quoting, formats, shells and show-buffer's escaping
	// would each change, and more than an exec argument may hold.
	for _, content := range []string{
		"line1\nline2\nline3",
		"tab\there; $HOME #{pane_id} #(echo x) ~ \\ \"q\" 'q' é 🙂 \x01\x7f\r\n\n",
		strings.Repeat("0123456789abcdef", 16<<10),
	} {
		name := e.loadBuffer(content, "")
		var got bufferContent
		e.ok("show_buffer", map[string]any{"buffer_name": name, "max_lines": 0}, &got)
		if got.Content != content || got.ContentTruncated || got.BufferName != name {
			t.Errorf("show_buffer(%d bytes) = %d bytes %q..., truncated %v; want the content back", len(content), len(got.Content),
				got.Content[:min(len(got.Content), 40)], got.ContentTruncated)
		}
	}

	name := e.loadBuffer("payload", "")
	var m messageResult
	e.ok("delete_buffer", map[string]any{"buffer_name": name}, &m)
	if m.Result != "Buffer '"+name+"' deleted" {
		t.Errorf("delete_buffer = %q", m.Result)
	}
	e.fails("show_buffer", map[string]any{"buffer_name": name}, "show-buffer failed for '"+name+"'", "no buffer")
	e.fails("delete_buffer", map[string]any{"buffer_name": name}, "delete-buffer failed for '"+name+"'")

	for _, bad := range []string{"has space", "with/slash", strings.Repeat("x", 65), "semi;colon"} {
		e.fails("load_buffer", map[string]any{"content": "x", "logical_name": bad}, "Invalid logical buffer name")
	}
	e.ok("load_buffer", map[string]any{"content": "x", "logical_name": strings.Repeat("x", 64)}, nil)
	e.fails("load_buffer", nil, "argument content: required")
}

func TestShowBufferMaxLines(t *testing.T) {
	e := newEnv(t, Mutating)
	var lines []string
	for i := 0; i < 20; i++ {
		lines = append(lines, fmt.Sprintf("line-%d", i))
	}
	name := e.loadBuffer(strings.Join(lines, "\n")+"\n", "")
	var got bufferContent
	e.ok("show_buffer", map[string]any{"buffer_name": name, "max_lines": 5}, &got)
	if !got.ContentTruncated || got.ContentTruncatedLines != 15 || got.Content != strings.Join(lines[15:], "\n") {
		t.Errorf("show_buffer(max 5) = %+v, want line-15..line-19 and 15 dropped", got)
	}
	e.ok("show_buffer", map[string]any{"buffer_name": name}, &got)
	if got.ContentTruncated || got.Content != strings.Join(lines, "\n")+"\n" {
		t.Errorf("show_buffer(default 500) = %+v, want all of it", got)
	}
	e.fails("show_buffer", map[string]any{"buffer_name": name, "max_lines": -1}, "argument max_lines: out of range")
}

func TestPasteBuffer(t *testing.T) {
	e := newEnv(t, Mutating)
	pane := e.split(e.firstPane(), "cat")
	name := e.loadBuffer("pasted by tmux-mcp", "p")
	var m messageResult
	e.ok("paste_buffer", map[string]any{"buffer_name": name, "pane_id": pane}, &m)
	if m.Result != "Buffer '"+name+"' pasted to pane "+pane {
		t.Errorf("paste_buffer = %q", m.Result)
	}
	tmuxtest.WaitFor(t, 5*time.Second, "the paste in the pane", func() bool {
		out, _ := e.tm.Tmux("capture-pane", "-p", "-t", pane)
		return strings.Contains(out, "pasted by tmux-mcp")
	})
	// The buffer is kept.
	e.ok("show_buffer", map[string]any{"buffer_name": name}, nil)
	e.fails("paste_buffer", map[string]any{"buffer_name": name, "pane_id": "%999"}, "Pane not found")
	e.fails("paste_buffer", map[string]any{"buffer_name": "clipboard"}, "Invalid buffer name: 'clipboard'")
}

// TestBuffersNeverTouchOthers checks that the buffer tools refuse the
// user's buffers and another tmux-mcp process's, that those survive
// everything, and that closing the server deletes only its own buffers.
func TestBuffersNeverTouchOthers(t *testing.T) {
	e := newEnv(t, Mutating)
	e.tmux("set-buffer", "-b", "userbuf", "user secret")
	e.tmux("set-buffer", "unnamed secret") // buffer0, the "clipboard"
	other := newEnvOn(t, e, Mutating, Caller{})
	theirs := other.loadBuffer("their text", "x")
	mine := e.loadBuffer("my text", "x")
	// Two processes (two Servers) draw different namespaces.
	if theirs[:25] == mine[:25] {
		t.Fatalf("two servers share the buffer namespace %s", mine[:25])
	}
	pane := e.firstPane()
	for _, name := range []string{"userbuf", "buffer0", theirs, "tmux_mcp_" + strings.Repeat("0", 32) + "_x"} {
		args := map[string]any{"buffer_name": name}
		e.fails("show_buffer", args, "Invalid buffer name: '"+name+"'")
		e.fails("delete_buffer", args, "Invalid buffer name")
		e.fails("paste_buffer", map[string]any{"buffer_name": name, "pane_id": pane}, "Invalid buffer name")
	}
	for name, want := range map[string]string{"userbuf": "user secret", "buffer0": "unnamed secret", theirs: "their text"} {
		if got := e.tmux("show-buffer", "-b", name); got != want {
			t.Errorf("buffer %s = %q, want %q", name, got, want)
		}
	}
	// Loading never reuses a name: the user's buffers keep their content.
	for i := 0; i < 5; i++ {
		e.loadBuffer("more", "userbuf")
	}
	if got := e.tmux("show-buffer", "-b", "userbuf"); got != "user secret" {
		t.Errorf("userbuf = %q after load_buffer(logical userbuf), want it untouched", got)
	}

	e.srv.Close()
	names := e.tmux("list-buffers", "-F", "#{buffer_name}")
	for _, want := range []string{"userbuf", "buffer0", theirs} {
		if !strings.Contains(names, want) {
			t.Errorf("after Close: buffers %q, want %s kept", names, want)
		}
	}
	if strings.Contains(names, mine[:25]) {
		t.Errorf("after Close: buffers %q still hold this server's %s*", names, mine[:25])
	}
}

// TestDeleteBufferLeavesOthers: tmux deletes the most recent buffer when
// delete-buffer -b names one that does not exist. delete_buffer of a
// missing name, and a capture of a missing pane (which goes through a
// named buffer on tmux before 3.6), must leave a person's buffers alone.
func TestDeleteBufferLeavesOthers(t *testing.T) {
	e := newEnv(t, Mutating)
	e.tmux("set-buffer", "-b", "mine", "a person's copy")
	name := e.loadBuffer("payload", "")
	e.ok("delete_buffer", map[string]any{"buffer_name": name}, nil)
	e.fails("delete_buffer", map[string]any{"buffer_name": name}, "delete-buffer failed for '"+name+"'")
	e.fails("capture_pane", map[string]any{"pane_id": "%999999"}, "Pane not found")
	if got := e.tmux("show-buffer", "-b", "mine"); got != "a person's copy" {
		t.Errorf("buffer mine = %q, want it untouched", got)
	}
}
