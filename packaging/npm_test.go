package packaging

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// nodeCPU is Node's name for a GOARCH.
var nodeCPU = map[string]string{"amd64": "x64", "arm64": "arm64"}

// npmEnv is the environment for npm and npx: no registry (a closed port,
// offline), a cache and user config of the test's own.
func npmEnv(t *testing.T, extra ...string) []string {
	t.Helper()
	dir := t.TempDir()
	return append(os.Environ(),
		"npm_config_registry=http://127.0.0.1:9/",
		"npm_config_offline=true",
		"npm_config_cache="+filepath.Join(dir, "cache"),
		"npm_config_userconfig="+filepath.Join(dir, "npmrc"),
		"npm_config_update_notifier=false",
		"npm_config_audit=false",
		"npm_config_fund=false",
	)
}

// installLauncher installs the launcher and this platform's package from
// dist/npm's tarballs into a fresh prefix, with no registry, and returns
// the prefix and the version.
func installLauncher(t *testing.T) (prefix, version string) {
	t.Helper()
	m, _ := readDist(t)
	npmDir := filepath.Join(distDir, "npm")
	launcher := requireFile(t, filepath.Join(npmDir, "tmux-mcp-"+m.Version+".tgz"), "npm-pack")
	platform := requireFile(t, filepath.Join(npmDir, fmt.Sprintf("tmux-mcp-%s-%s-%s.tgz", runtime.GOOS, nodeCPU[runtime.GOARCH], m.Version)), "npm-pack")
	if _, err := exec.LookPath("npm"); err != nil {
		t.Fatalf("npm: %v", err)
	}
	prefix = t.TempDir()
	abs := func(p string) string { a, _ := filepath.Abs(p); return a }
	cmd := exec.Command("npm", "install", "--prefix", prefix, abs(platform), abs(launcher))
	cmd.Env = npmEnv(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm install (offline, from the tarballs): %v\n%s", err, out)
	}
	return prefix, m.Version
}

// TestNPMLauncher installs the npm packages offline and drives tmux-mcp
// through the installed launcher: arguments, environment and exit status
// pass through, npx of it serves MCP over stdin/stdout, and signals reach
// the server.
func TestNPMLauncher(t *testing.T) {
	prefix, version := installLauncher(t)
	launcher := filepath.Join(prefix, "node_modules", ".bin", "tmux-mcp")
	tmuxBin := tmuxtest.Binary(t)

	t.Run("arguments, environment and exit status", func(t *testing.T) {
		tests := []struct {
			name       string
			args, env  []string
			wantStatus int
			wantOut    string
		}{
			{"version", []string{"version"}, []string{"TMUX_MCP_TMUX_BIN=" + tmuxBin}, 0, "tmux-mcp " + version + " (commit "},
			{"unknown command", []string{"no-such-command"}, nil, 2, `tmux-mcp: unknown command "no-such-command"`},
			{"environment", []string{"version"}, []string{"TMUX_MCP_TMUX_BIN=/nonexistent/tmux"}, 1, "tmux: not found (/nonexistent/tmux)"},
			{"flag", []string{"version", "--tmux-bin", "/nonexistent/flag/tmux"}, nil, 1, "tmux: not found (/nonexistent/flag/tmux)"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				cmd := exec.Command(launcher, tt.args...)
				cmd.Env = append(tmuxtest.Env(), tt.env...)
				out, err := cmd.CombinedOutput()
				status := 0
				if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
					status = ee.ExitCode()
				} else if err != nil {
					t.Fatal(err)
				}
				if status != tt.wantStatus || !strings.Contains(string(out), tt.wantOut) {
					t.Errorf("tmux-mcp %v: status %d, output %q; want status %d, output containing %q", tt.args, status, out, tt.wantStatus, tt.wantOut)
				}
			})
		}
	})

	t.Run("npx serves MCP", func(t *testing.T) {
		tm := tmuxtest.New(t)
		tm.Start("main")
		got := serveSession(t, prefix, "npx", []string{"tmux-mcp", "serve"}, append(npmEnv(t), serverEnv(tm)...))
		if got != version {
			t.Errorf("initialize serverInfo.version = %q, want %q", got, version)
		}
	})

	t.Run("signals", func(t *testing.T) {
		tests := []struct {
			sig        syscall.Signal
			wantStatus string // what the launcher's own parent sees
			wantLog    string // in stderr: the server saw the signal
		}{
			{syscall.SIGTERM, "exit status 0", "signal received, shutting down"},
			{syscall.SIGINT, "exit status 0", "signal received, shutting down"},
			// serve does not catch SIGHUP: the server dies of it, and so
			// must the launcher.
			{syscall.SIGHUP, "signal: hangup", ""},
		}
		for _, tt := range tests {
			t.Run(tt.sig.String(), func(t *testing.T) {
				tm := tmuxtest.New(t)
				tm.Start("main")
				status, stderr := signalServe(t, launcher, serverEnv(tm), tt.sig)
				if status != tt.wantStatus || !strings.Contains(stderr, tt.wantLog) {
					t.Errorf("launcher after %v: %s, stderr %q; want %s, stderr containing %q", tt.sig, status, stderr, tt.wantStatus, tt.wantLog)
				}
			})
		}
	})
}

// signalServe starts `launcher serve`, initializes a session by hand,
// sends sig to the launcher (only to it, not its process group), and
// returns how the launcher ended and the server's stderr. stdin stays
// open: only the forwarded signal can end the server.
func signalServe(t *testing.T, launcher string, env []string, sig syscall.Signal) (string, string) {
	t.Helper()
	cmd := exec.Command(launcher, "serve")
	cmd.Env = env
	// A group of its own, so that a server the launcher failed to stop
	// can be killed with it; and Wait does not wait for such a server to
	// close stderr.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 5 * time.Second
	killAll := func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"signal-test","version":"0"}}}`+"\n")
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.Contains(line, `"serverInfo"`) {
		killAll()
		cmd.Wait()
		t.Fatalf("initialize through the launcher: %q, %v\nstderr:\n%s", line, err, stderr)
	}
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err == nil {
			return "exit status 0", stderr.String()
		}
		return err.Error(), stderr.String()
	case <-time.After(30 * time.Second):
		killAll()
		<-done
		t.Fatalf("launcher still running 30s after %v: the signal did not reach the server\nstderr:\n%s", sig, stderr)
		return "", ""
	}
}
