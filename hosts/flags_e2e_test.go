package hosts_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/e2etest"
)

// TestHostFlagRefusals: through the built binary, a --host whose user
// name could run something in a shell ($(...), backticks, a newline, a
// semicolon) is refused as the host is checked, and a refused --host
// that holds a password never shows it: not in the flag package's echo
// of the value, not in the reason, not when it comes from the
// environment, a hosts file or a stray argument (issue 42).
func TestHostFlagRefusals(t *testing.T) {
	bin := e2etest.Binary(t)
	dir := t.TempDir()
	file := func(content string) string {
		p := filepath.Join(dir, "hosts"+strconv.Itoa(len(content)))
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name string
		args []string
		env  []string
		want string // in stderr
	}{
		{name: "user $(...)", args: []string{"--host", "b=ssh://$(touch)@h"}, want: "is not a user name"},
		{name: "user with a newline", args: []string{"--host", "b=ssh://me%0Atouch@h"}, want: "is not a user name"},
		{name: "user with backticks", args: []string{"--host", "b=ssh://`id`@h"}, want: "invalid userinfo"},
		{name: "user with a semicolon", args: []string{"--host", "b=ssh://me;id@h"}, want: "is not a user name"},
		{name: "user from the environment", env: []string{"TMUX_MCP_HOSTS=b=ssh://$(id)@h"}, want: "is not a user name"},
		{name: "password", args: []string{"--host", "b=ssh://me:hunter2@h"}, want: "no password"},
		{name: "password with a comma", args: []string{"--host", "b=ssh://me:hun,ter2@h"}, want: "no password"},
		{name: "password and a bad port", args: []string{"--host", "b=ssh://me:hunter2@h:x"}, want: "invalid port"},
		{name: "password without a name", args: []string{"--host", "ssh://me:hunter2@h"}, want: "want NAME=ssh://"},
		{name: "password in the environment", env: []string{"TMUX_MCP_HOSTS=a=ssh://h b=ssh://me:hunter2@h"}, want: "no password"},
		{name: "password in a hosts file", args: []string{"--hosts-file", file("a=ssh://h\nb=ssh://me:hunter2@h\n")}, want: "no password"},
		{name: "password as a stray argument", args: []string{"--host", "a=ssh://h", "b=ssh://me:hunter2@h"}, want: "unexpected arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(bin, append([]string{"serve"}, tt.args...)...)
			cmd.Env = append(e2etest.Env(filepath.Join(dir, "no.sock"), "TMUX_MCP_SSH=false"), tt.env...)
			cmd.Dir = dir
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			cmd.Stdin = strings.NewReader("") // a serve that started ends at once
			done := make(chan error, 1)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			go func() { done <- cmd.Wait() }()
			var err error
			select {
			case err = <-done:
			case <-time.After(30 * time.Second):
				_ = cmd.Process.Kill()
				<-done
				t.Fatalf("tmux-mcp still runs with %v: it took the host", tt.args)
			}
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() == 0 {
				t.Errorf("exit %v, want a refusal; stderr:\n%s", err, stderr.String())
			}
			got := stderr.String()
			if !strings.Contains(got, tt.want) {
				t.Errorf("stderr lacks %q:\n%s", tt.want, got)
			}
			for _, secret := range []string{"hunter2", "hun", "ter2"} {
				if strings.Contains(got, secret) {
					t.Errorf("stderr repeats the password (%q):\n%s", secret, got)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
				t.Errorf("the user name ran a command")
			}
		})
	}
}
