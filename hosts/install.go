package hosts

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/shellquote"
)

// install copies this binary into the host user's cache directory
// (~/.cache/tmux-mcp/bin/tmux-mcp), when the host's OS and CPU are this
// binary's. On the host the directories are checked as a start checks
// them (cache.go) before anything is written, and the copy is checked
// against this binary's SHA-256 before it replaces anything.
func (l *Link) install() error {
	sum, err := l.o.self.sha256()
	if err != nil {
		return fmt.Errorf("this binary: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := l.runSSH(ctx, "uname -sm", nil)
	if err != nil {
		return fmt.Errorf("uname: %w", err)
	}
	f := strings.Fields(out)
	if len(f) != 2 || !platformMatches(f[0], f[1], runtime.GOOS, runtime.GOARCH) {
		return fmt.Errorf("the host is %q, this binary %s/%s: install a tmux-mcp built for the host there", strings.TrimSpace(out),
			runtime.GOOS, runtime.GOARCH)
	}
	self := l.o.self.path
	if self == "" {
		if self, err = os.Executable(); err != nil {
			return fmt.Errorf("this binary: %w", err)
		}
	}
	bin, err := os.Open(self)
	if err != nil {
		return fmt.Errorf("this binary: %w", err)
	}
	defer bin.Close()
	if _, err := l.runSSH(ctx, "sh -c "+shellquote.Quote(installScript)+" install "+shellquote.Quote(sum), bin); err != nil {
		if r := refusal(err); r != nil {
			return r
		}
		return fmt.Errorf("copy: %w", err)
	}
	l.o.Log.Info("tmux-mcp installed on host", "host", l.t.Name, "sha256", sum)
	return nil
}

// runSSH runs one command on the host and returns its output.
func (l *Link) runSSH(ctx context.Context, remote string, stdin io.Reader) (string, error) {
	cmd := exec.CommandContext(ctx, l.o.SSH[0], l.sshArgs(remote)...)
	cmd.Stdin = stdin
	var stdout bytes.Buffer
	stderr := &tail{max: 4096}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	if err := cmd.Run(); err != nil {
		return "", exitError(err, stderr.String())
	}
	return stdout.String(), nil
}

// platformMatches reports whether uname's system and machine are GOOS and
// GOARCH.
func platformMatches(system, machine, goos, goarch string) bool {
	oses := map[string]string{"linux": "Linux", "darwin": "Darwin", "freebsd": "FreeBSD", "openbsd": "OpenBSD"}
	arches := map[string][]string{"amd64": {"x86_64", "amd64"}, "arm64": {"aarch64", "arm64"}, "386": {"i386", "i686"},
		"arm": {"armv7l", "armv6l"}, "riscv64": {"riscv64"}}
	return oses[goos] == system && slices.Contains(arches[goarch], machine)
}
