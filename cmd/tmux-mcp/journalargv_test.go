package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// TestJournalCommandNamesOnly: a pane runs a command typed at its shell
// and another window was started with a command, both holding a secret
// argument. The built binary journals the server: by default the journal
// file holds both command lines (the full argv of the foreground process
// and the start command); with --journal-command-names-only
// (TMUX_MCP_JOURNAL_COMMAND_NAMES_ONLY) no byte of the file holds either
// secret, while the snapshot still names the foreground program.
func TestJournalCommandNamesOnly(t *testing.T) {
	bin := buildBinary(t)
	for _, namesOnly := range []bool{false, true} {
		t.Run(map[bool]string{false: "default", true: "names only"}[namesOnly], func(t *testing.T) {
			tm := tmuxtest.New(t)
			tm.Start("main")
			const typed, started = "canary-29-typed-password", "canary-29-start-password"
			shell := tm.MustTmux("display-message", "-p", "-t", "=main:", "#{pane_id}")
			tm.MustTmux("send-keys", "-t", shell, "sh -c 'sleep 300' --password="+typed, "Enter")
			tm.MustTmux("new-window", "-d", "-t", "=main:", "sh -c 'sleep 300' --password="+started)
			tmuxtest.WaitFor(t, 10*time.Second, "the typed command in the foreground", func() bool {
				return tm.MustTmux("display-message", "-p", "-t", shell, "#{pane_current_command}") == "sh" &&
					strings.Contains(foregroundArgs(t, tm, shell), typed)
			})

			path := filepath.Join(t.TempDir(), "journal.db")
			extra := []string{"TMUX_MCP_JOURNAL=" + path}
			if namesOnly {
				extra = append(extra, "TMUX_MCP_JOURNAL_COMMAND_NAMES_ONLY=true")
			}
			c, _, _ := startStdio(t, bin, binaryEnv(tm.Socket, extra...))
			t.Cleanup(func() { c.Close() })
			// A structural change: the journal snapshots the tree soon
			// after it, the two commands included.
			callTool(t, c, "create_window", map[string]any{"session_name": "main", "window_name": "trigger"})
			tmuxtest.WaitFor(t, 10*time.Second, "a snapshot with the new window", func() bool {
				cmd := exec.Command(bin, "journal", "show")
				cmd.Env = append(tmuxtest.Env(), "TMUX_MCP_JOURNAL="+path, "TMUX_MCP_SOCKET_PATH="+tm.Socket)
				out, err := cmd.Output()
				return err == nil && bytes.Contains(out, []byte(`"trigger"`))
			})
			c.Close() // the journal is written and let go
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, secret := range []string{typed, started} {
				if got := bytes.Contains(b, []byte(secret)); got == namesOnly {
					t.Errorf("journal file holds %s: %v, want %v", secret, got, !namesOnly)
				}
			}
		})
	}
}

// foregroundArgs returns the command line of the process in the
// foreground of pane's terminal, as ps shows it.
func foregroundArgs(t *testing.T, tm *tmuxtest.Server, pane string) string {
	t.Helper()
	tty := strings.TrimPrefix(tm.MustTmux("display-message", "-p", "-t", pane, "#{pane_tty}"), "/dev/")
	out, _ := exec.Command("ps", "-t", tty, "-o", "stat=,args=").Output()
	for _, l := range strings.Split(string(out), "\n") {
		if stat, args, ok := strings.Cut(strings.TrimSpace(l), " "); ok && strings.Contains(stat, "+") {
			return args
		}
	}
	return ""
}
