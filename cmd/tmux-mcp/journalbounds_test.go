package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// TestJournalBoundsHostileSizes is issue 29's unbounded journal, on the
// built binary: a window made with a 256 KiB start directory and a
// 256 KiB name, a pane titled with 256 KiB by its program, and a session
// renamed six times to 256 KiB names (the issue used 1 MiB and twelve
// renames; smaller is as telling and quicker), each of them copied into
// every snapshot. The journal snapshots the server after the changes and
// stays small: names and titles are cut to 1 KiB, the directory is left
// out. Before the bounds each snapshot held every one of them whole, and
// the file grew past 1 MiB.
func TestJournalBoundsHostileSizes(t *testing.T) {
	bin := buildBinary(t)
	tm := tmuxtest.New(t)
	tm.Start("main")
	path := filepath.Join(t.TempDir(), "journal.db")
	c, _, stderr := startStdio(t, bin, binaryEnv(tm.Socket, "TMUX_MCP_JOURNAL="+path))
	t.Cleanup(func() { c.Close() })

	const big = 256 << 10
	callTool(t, c, "create_window", map[string]any{"session_name": "main",
		"window_name": strings.Repeat("w", big), "start_directory": "/" + strings.Repeat("d", big)})
	pane := tm.MustTmux("display-message", "-p", "-t", "=main:", "#{pane_id}")
	// A program in the pane sets its title (OSC 2) to 256 KiB.
	tm.MustTmux("send-keys", "-t", pane, "printf '\\033]2;%s\\033\\\\' \"$(head -c 262144 /dev/zero | tr '\\0' T)\"", "Enter")
	tmuxtest.WaitFor(t, 10*time.Second, "the long title", func() bool {
		return len(tm.MustTmux("display-message", "-p", "-t", pane, "#{pane_title}")) > 1024
	})
	name := "main"
	for i := 0; i < 6; i++ {
		next := strings.Repeat(string(rune('a'+i)), big)
		callTool(t, c, "rename_session", map[string]any{"session_name": name, "new_name": next})
		name = next
	}
	// The last rename's snapshot: the session's name in journal show.
	var shown string
	tmuxtest.WaitFor(t, 20*time.Second, "a snapshot after the last rename", func() bool {
		cmd := exec.Command(bin, "journal", "show")
		cmd.Env = append(tmuxtest.Env(), "TMUX_MCP_JOURNAL="+path, "TMUX_MCP_SOCKET_PATH="+tm.Socket)
		out, err := cmd.Output()
		shown = string(out)
		return err == nil && strings.Contains(shown, `"ffff`)
	})
	for _, c := range "fwTd" {
		if strings.Contains(shown, strings.Repeat(string(c), 1025)) {
			t.Errorf("journal show holds a field of more than 1 KiB of %c", c)
		}
	}
	if !strings.Contains(shown, `"`+strings.Repeat("f", 1024)+`"`) {
		t.Errorf("journal show does not hold the session's name cut to 1 KiB")
	}
	// The snapshots list through the binary too.
	var snaps struct {
		Result []json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(structured(t, callTool(t, c, "list_snapshots", nil)), &snaps); err != nil {
		t.Fatal(err)
	}
	c.Close()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	// 1 MiB is far above what the capped snapshots take, and below one
	// uncapped snapshot of this server.
	if fi.Size() > 1<<20 {
		t.Errorf("journal.db is %d bytes after %d snapshots, want under 1 MiB", fi.Size(), len(snaps.Result))
	}
	t.Logf("journal.db: %d bytes, %d snapshots", fi.Size(), len(snaps.Result))
	if t.Failed() {
		t.Logf("stderr:\n%.4000s", stderr)
	}
}
