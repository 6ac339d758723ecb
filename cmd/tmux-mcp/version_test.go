package main

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// buildStamped builds tmux-mcp with a release stamp, the way
// .goreleaser.yaml links it (without its -trimpath, which would compile
// every dependency anew in a cold build cache), into a directory of the
// test's own.
func buildStamped(tb testing.TB, s buildStamp) string {
	tb.Helper()
	if testing.Short() {
		tb.Skip("builds the binary")
	}
	bin := filepath.Join(tb.TempDir(), "tmux-mcp")
	ldflags := fmt.Sprintf("-X main.releaseVersion=%s -X main.releaseCommit=%s -X main.releaseDate=%s", s.Version, s.Commit, s.Date)
	if out, err := exec.Command("go", "build", "-ldflags", ldflags, "-o", bin, ".").CombinedOutput(); err != nil {
		tb.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestVersionStamp links a release stamp into the binary and checks that
// `tmux-mcp version` prints it and that initialize reports its version.
// Neither needs a tmux server (the socket names none), so the test runs
// once, not on each tmux of the matrix: each run links the binary anew.
func TestVersionStamp(t *testing.T) {
	want := buildStamp{Version: "9.8.7-rc.1", Commit: "0123456789abcdef0123456789abcdef01234567", Date: "2026-11-25T12:34:56Z"}
	bin := buildStamped(t, want)
	socket := filepath.Join(t.TempDir(), "s")

	cmd := exec.Command(bin, "version")
	cmd.Env = binaryEnv(socket)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("tmux-mcp version: %v\n%s", err, out)
	}
	first, _, _ := strings.Cut(string(out), "\n")
	if got, wantLine := first, "tmux-mcp 9.8.7-rc.1 (commit 0123456789abcdef0123456789abcdef01234567, built 2026-11-25T12:34:56Z)"; got != wantLine {
		t.Errorf("tmux-mcp version first line = %q, want %q", got, wantLine)
	}

	c, err := client.NewStdioMCPClient(bin, binaryEnv(socket), "serve")
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "version-test", Version: "0"}
	res, err := c.Initialize(ctx, init)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if got := res.ServerInfo; got.Name != "tmux-mcp" || got.Version != want.Version {
		t.Errorf("initialize serverInfo = %+v, want name tmux-mcp, version %s", got, want.Version)
	}
}

// TestStampUnstamped checks what a build without a release stamp (go
// build, go install, go test) says about itself.
func TestStampUnstamped(t *testing.T) {
	got := stamp()
	if got.Version == "" || got.Commit == "" || got.Date == "" {
		t.Errorf("stamp() = %+v, want every field set", got)
	}
	if !strings.HasPrefix(got.Version, "dev") && !strings.HasPrefix(got.Version, "v") {
		t.Errorf("stamp().Version = %q, want dev... or a module version", got.Version)
	}
	if version() != got.Version {
		t.Errorf("version() = %q, want stamp().Version %q", version(), got.Version)
	}
}
