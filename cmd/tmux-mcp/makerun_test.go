package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// TestMakeRunStdoutIsMCPOnly starts the server as a client configured with
// `make run` does, and reads the first bytes of its stdout: they must be
// the answer to initialize, not make's own lines (the recipe echoed, a
// build command, "Entering directory"). The repository's Makefile runs in
// a copy whose bin/tmux-mcp is the binary the tests built, with GO=true
// standing in for the build (go build writes nothing to stdout).
func TestMakeRunStdoutIsMCPOnly(t *testing.T) {
	bin := buildBinary(t)
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	makefile, err := os.ReadFile(filepath.Join("..", "..", "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "Makefile"), makefile, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(bin, filepath.Join(dir, "bin", "tmux-mcp")); err != nil {
		t.Fatal(err)
	}
	tm := tmuxtest.New(t)
	// A client starts make at the top level: nothing of the test's own
	// make (make test, make ci) in its environment.
	env := slices.DeleteFunc(binaryEnv(tm.Socket), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.Contains([]string{"MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES"}, name)
	})
	for _, tt := range []struct {
		name string
		args []string
		cwd  string
	}{
		{"make run", []string{"run", "GO=true"}, dir},
		{"make -s -C dir run", []string{"-s", "-C", dir, "run", "GO=true"}, t.TempDir()},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command("make", tt.args...)
			cmd.Dir, cmd.Env = tt.cwd, env
			r := startWire(t, cmd)
			r.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
			first := r.line()
			if m := r.frame(first); m["id"] != float64(1) || m["result"] == nil {
				t.Errorf("first line on stdout = %.200q, want the initialize response", first)
			}
		})
	}
}
