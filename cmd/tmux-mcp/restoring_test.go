package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// TestFirstCallOnNewServerIsNotRestoring drives the built binary with a
// fresh journal and no tmux server: the first calls start one, and with
// nothing to restore no result says that the server was restarted or that
// its sessions are being restored.
func TestFirstCallOnNewServerIsNotRestoring(t *testing.T) {
	bin := buildBinary(t)
	tm := tmuxtest.New(t)
	cmd := exec.Command(bin, "serve")
	cmd.Env = binaryEnv(tm.Socket)
	r := startWire(t, cmd)
	r.initialize()
	for _, tool := range []string{"list_sessions", "server_health", "list_sessions"} {
		_, res := r.call(tool, nil)
		if res.IsError {
			t.Fatalf("%s: %s", tool, res.text())
		}
		if _, ok := res.Meta["restoring"]; ok || strings.Contains(res.text(), "restor") {
			t.Errorf("%s on a brand-new server: _meta %v, text %.300q; want no restoring note", tool, res.Meta, res.text())
		}
	}
}
