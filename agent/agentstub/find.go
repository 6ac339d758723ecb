package agentstub

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// CLIsEnv names a file holding scripts/agent-clis' output, to use instead
// of running the script.
const CLIsEnv = "TMUX_MCP_AGENT_CLIS"

// RequireEnv, set to 1, makes a missing CLI fail the test instead of
// skipping it; so does CI set to anything (.ci/run sets it, and installs
// npm, which scripts/agent-clis installs the CLIs with). Set to 0, it
// skips every test that drives an agent CLI: make ci sets it on every
// release of the matrix (scripts/citest/matrix.go; -full does not).
const RequireEnv = "CI_AGENTS"

// CLI returns the executable of the CLI name (Claude, Codex or Gemini):
// from the file $TMUX_MCP_AGENT_CLIS, else from running scripts/agent-clis
// (which installs the CLIs with npm on first use). When it cannot, the
// test is skipped, or fails under CI_AGENTS=1.
func CLI(t testing.TB, name string) string {
	t.Helper()
	if os.Getenv(RequireEnv) == "0" {
		t.Skipf("agentstub: agent CLI %s not driven on this tmux (%s=0: make ci drives the agent CLIs in its race suite, on the PATH tmux; make matrix on every tmux)", name, RequireEnv)
	}
	clis, err := findCLIs(context.Background())
	if err == nil {
		if exe, ok := clis[name]; ok {
			return exe
		}
		err = fmt.Errorf("scripts/agent-clis printed no %s", name)
	}
	msg := fmt.Sprintf("agentstub: agent CLI %s unavailable (needs npm and its registry once; see scripts/agent-clis): %v", name, err)
	if os.Getenv(RequireEnv) == "1" || os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// findCLIs reads the output of scripts/agent-clis: name, then path.
func findCLIs(ctx context.Context) (map[string]string, error) {
	var out []byte
	if f := os.Getenv(CLIsEnv); f != "" {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", CLIsEnv, err)
		}
		out = b
	} else {
		script, err := scriptPath()
		if err != nil {
			return nil, err
		}
		ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, script)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err = cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("%s: %w: %s", script, err, strings.TrimSpace(stderr.String()))
		}
	}
	clis := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		name, path, ok := strings.Cut(strings.TrimSpace(sc.Text()), " ")
		if !ok {
			continue
		}
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		clis[name] = path
	}
	return clis, nil
}

// scriptPath is scripts/agent-clis of this module, found from this file.
func scriptPath() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", fmt.Errorf("agentstub: cannot find the module root")
	}
	p := filepath.Join(filepath.Dir(file), "..", "..", "scripts", "agent-clis")
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("agentstub: %w", err)
	}
	return p, nil
}
