package agentstub

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Lookalike returns a copy of sleep named name in a directory of the
// test's: run as `<path> 600`, it is a process that agent detection takes
// for the CLI name (by its executable's name) and that does nothing, for
// tests of what tmux-mcp does with an agent's pane without a real CLI.
func Lookalike(t testing.TB, name string) string {
	t.Helper()
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep binary")
	}
	data, err := os.ReadFile(sleep)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// Execed reports whether process pid (a pane's pane_pid) runs exe. Until
// it has exec'd, the pane's process is tmux's fork, which
// pane_current_command may already name after the program, while agent
// detection reads the command line (Linux: /proc).
func Execed(pid, exe string) bool {
	argv, _ := os.ReadFile("/proc/" + strings.TrimSpace(pid) + "/cmdline")
	return strings.HasPrefix(string(argv), exe+"\x00")
}
