package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// TestJournalShowQuotesHostileText: a directory whose name holds escape
// sequences (a title sequence and a screen clear: a repository's file
// names are anyone's) is the current path of a pane. `tmux-mcp journal
// show`, run as the built binary, prints it quoted, and neither it nor
// `journal ls` and `journal events` write a control byte to the terminal.
// Before, show printed the directory raw.
func TestJournalShowQuotesHostileText(t *testing.T) {
	bin := buildBinary(t)
	tm := tmuxtest.New(t)
	evil := filepath.Join(t.TempDir(), "d\x1b]2;pwned\x07\x1b[2J")
	if err := os.Mkdir(evil, 0o700); err != nil {
		t.Fatal(err)
	}
	tm.MustTmux("new-session", "-d", "-s", "main", "-c", evil)
	// Wait for the pane's shell: its directory is then evil (tmux 3.4
	// and 3.5a print it escaped to their own client, so it is not
	// compared here; journal show must print it below).
	tm.PanePath("=main:")
	path := filepath.Join(t.TempDir(), "journal.db")
	snapshotInto(t, path, supervisor.Config{DefaultSocket: tmux.Socket{Path: tm.Socket}, TmuxConfig: "/dev/null", Observe: true})

	for _, args := range [][]string{{"journal", "show"}, {"journal", "ls"}, {"journal", "events"}} {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(tmuxtest.Env(), "TMUX_MCP_JOURNAL="+path, "TMUX_MCP_SOCKET_PATH="+tm.Socket)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		for i, b := range out {
			if b < 0x20 && b != '\n' || b == 0x7f {
				t.Errorf("%v: control byte %#x at %d of the output:\n%q", args, b, i, out)
				break
			}
		}
		if args[1] == "show" {
			if want := strconv.Quote(evil); !strings.Contains(string(out), want) {
				t.Errorf("journal show does not print %s:\n%s", want, out)
			}
		}
	}
}
