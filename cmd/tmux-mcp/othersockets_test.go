package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/internal/e2etest"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// attackerUID is the other local user of TestOtherUsersSockets.
const attackerUID = e2etest.OtherUID

// TestOtherUsersSockets is issue 29's first attack, on the built binary:
// another local user (uid 4001) runs a fake tmux server that records
// every environment variable a client sends it and tells every client to
// run a program, on a socket of its own in a shared sticky directory
// (named in extra_socket_paths), and on one in the victim's socket
// directory, which the attacker created mode 0777 in TMUX_TMPDIR before
// the victim's first tmux. tmux-mcp runs as root with a canary API key
// and HTTP token in its environment, at the readonly tier, and calls
// list_servers and list_sessions on the attacker's -L name. Both sockets
// are listed as refused with the reason, the test's own server as alive;
// the fake servers see no connection at all (so no environment), and the
// program they name never runs. It needs root (to run the fake server as
// another uid) and skips otherwise; CI runs as root.
func TestOtherUsersSockets(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root: the fake tmux server runs as another uid (CI runs as root)")
	}
	bin := buildBinary(t)
	tm := tmuxtest.New(t)
	tm.Start("main")

	// base is root's, 0755: the attacker can read and run what is in it
	// but write nothing there, so a file that appears in it was written
	// by root, the victim.
	base, err := os.MkdirTemp("", "ous")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	e2etest.Chmod(t, base, 0o755)
	fake := filepath.Join(base, "fake")
	e2etest.CopyExecutable(t, fake)
	// The attacker's own directory: the program it wants run, and the
	// fake servers' TMPDIR.
	home := filepath.Join(base, "a")
	mkdirOwned(t, home, 0o755, attackerUID)
	pwned := filepath.Join(base, "pwned")
	run := filepath.Join(home, "run")
	if err := os.WriteFile(run, []byte("#!/bin/sh\nid -u >>"+pwned+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	mustChown(t, run, attackerUID)

	// A shared sticky directory, as /tmp: the attacker's socket in it.
	shared := filepath.Join(base, "shared")
	mkdirOwned(t, shared, 0o1777, 0)
	evil := filepath.Join(shared, "evil")
	// TMUX_TMPDIR, world-writable and sticky, in which the attacker made
	// the victim's socket directory before the victim did.
	tmpdir := filepath.Join(base, "tmp")
	mkdirOwned(t, tmpdir, 0o1777, 0)
	sockDir := filepath.Join(tmpdir, "tmux-0")
	mkdirOwned(t, sockDir, 0o777, attackerUID)
	planted := filepath.Join(sockDir, "default")

	servers := map[string]*fakeServer{
		evil:    startFakeServer(t, fake, attackerUID, evil, "shell", run),
		planted: startFakeServer(t, fake, attackerUID, planted, "exec", run),
	}

	const canary = "canary-29-api-key"
	const token = "canary-29-http-token"
	c, _, stderr := startStdio(t, bin, binaryEnv(tm.Socket, "TMUX_MCP_SAFETY=readonly", "TMUX_TMPDIR="+tmpdir,
		"ANTHROPIC_API_KEY="+canary, "TMUX_MCP_HTTP_TOKEN="+token))
	t.Cleanup(func() { c.Close() })

	res := callTool(t, c, "list_servers", map[string]any{"extra_socket_paths": []any{evil, tm.Socket}})
	var got struct {
		Result []struct {
			IsAlive    bool    `json:"is_alive"`
			SocketPath string  `json:"socket_path"`
			Refused    *string `json:"refused"`
		} `json:"result"`
	}
	if err := json.Unmarshal(structured(t, res), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		evil:      "it belongs to uid 4001",
		planted:   "it belongs to uid 4001", // its directory does too; the socket is checked first
		tm.Socket: "",
	}
	for _, s := range got.Result {
		w, ok := want[s.SocketPath]
		if !ok {
			t.Errorf("list_servers listed %s, which the test did not make", s.SocketPath)
			continue
		}
		delete(want, s.SocketPath)
		refused := "<nil>"
		if s.Refused != nil {
			refused = *s.Refused
		}
		switch {
		case w == "" && (s.Refused != nil || !s.IsAlive):
			t.Errorf("%s (the test's own server): alive %v, refused %q; want alive, not refused", s.SocketPath, s.IsAlive, refused)
		case w != "" && (s.Refused == nil || !strings.Contains(*s.Refused, w) || s.IsAlive):
			t.Errorf("%s (the attacker's): alive %v, refused %q; want refused because %q", s.SocketPath, s.IsAlive, refused, w)
		}
	}
	for path := range want {
		t.Errorf("list_servers left out %s", path)
	}
	// The attacker's socket directory is where -L names go: a call naming
	// one is refused too.
	toolFails(t, c, "list_sessions", map[string]any{"socket_name": "default"},
		"refusing to connect to "+planted, "belongs to uid 4001")

	for path, f := range servers {
		for _, l := range f.stop() {
			switch {
			case strings.Contains(l, canary) || strings.Contains(l, token):
				t.Errorf("the fake server on %s received a secret: %s", path, l)
			case l == "connect":
				t.Errorf("tmux-mcp connected to the fake server on %s", path)
			}
		}
	}
	if b, err := os.ReadFile(pwned); err == nil {
		t.Errorf("the attacker's program ran as uid %s", strings.TrimSpace(string(b)))
	}
	if t.Failed() {
		t.Logf("tmux-mcp stderr:\n%s", stderr)
	}
}

// mkdirOwned makes dir with exactly mode (umask aside) and owner uid.
func mkdirOwned(t *testing.T, dir string, mode os.FileMode, uid int) {
	t.Helper()
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	mustChown(t, dir, uid)
	e2etest.Chmod(t, dir, mode)
}

func mustChown(t *testing.T, path string, uid int) {
	t.Helper()
	if err := os.Chown(path, uid, uid); err != nil {
		t.Fatal(err)
	}
}
