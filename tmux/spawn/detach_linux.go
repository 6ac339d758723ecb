package spawn

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
)

// userScopeArgv returns the systemd-run command line that runs a command
// in a transient scope of the user's systemd manager, or nil where that is
// not needed or cannot be had: this process is not in a login session's
// scope (logind ends only those), no user manager runs (no
// $XDG_RUNTIME_DIR/systemd/private), systemd-run is missing, or a first
// try of it (once per process) failed. env is the started server's.
func userScopeArgv(env []string) []string {
	path := userScope(env)
	if path == "" {
		return nil
	}
	return []string{path, "--user", "--scope", "--quiet", "--collect", "--description=tmux server started by tmux-mcp", "--"}
}

// userScope is systemd-run's path when a scope of the user manager is to
// be had, else "", found out once.
var userScope = func() func(env []string) string {
	var once sync.Once
	var path string
	return func(env []string) string {
		once.Do(func() { path = probeUserScope(env) })
		return path
	}
}()

func probeUserScope(env []string) string {
	cg, err := os.ReadFile("/proc/self/cgroup")
	if err != nil || !inSessionScope(string(cg)) {
		return ""
	}
	run := envValue(env, "XDG_RUNTIME_DIR")
	if run == "" {
		return ""
	}
	if _, err := os.Stat(filepath.Join(run, "systemd", "private")); err != nil {
		return ""
	}
	path, err := exec.LookPath("systemd-run")
	if err != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "--user", "--scope", "--quiet", "--collect", "--", "true")
	cmd.Env = env
	if cmd.Run() != nil {
		return ""
	}
	return path
}

// sessionScope is a login session's scope unit, as logind names it.
var sessionScope = regexp.MustCompile(`^session-[^/]+\.scope$`)

// inSessionScope reports whether /proc/self/cgroup's content puts this
// process in a login session's scope (cgroup v2's "0::PATH", or v1's
// name=systemd hierarchy).
func inSessionScope(cgroup string) bool {
	for _, line := range strings.Split(cgroup, "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 || f[1] != "" && f[1] != "name=systemd" {
			continue
		}
		if sessionScope.MatchString(filepath.Base(f[2])) {
			return true
		}
	}
	return false
}

// envValue returns NAME's value in env (KEY=VALUE entries), the last one.
func envValue(env []string, name string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == name {
			v = val
		}
	}
	return v
}
