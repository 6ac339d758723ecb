package e2etest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// Package is the binary's package, for go build.
const Package = "github.com/tmux-mcp/tmux-mcp/cmd/tmux-mcp"

// built is the binary the tests of one process share: linking it (gRPC
// and protobuf included) costs seconds.
var built struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

// Main runs the tests of m, removes the binary Binary built, and exits
// with the tests' status: a package's TestMain ends with it.
func Main(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// Binary builds tmux-mcp once per test process, into a temporary
// directory that Main removes, and returns its path. With -short it
// skips the test.
func Binary(tb testing.TB) string {
	tb.Helper()
	if testing.Short() {
		tb.Skip("builds the binary")
	}
	built.once.Do(func() {
		// A test runner that built the binary already (scripts/citest,
		// which runs each package in many processes) names it.
		if bin := os.Getenv("TMUX_MCP_TEST_BIN"); bin != "" {
			built.bin = bin
			return
		}
		if built.dir, built.err = os.MkdirTemp("", "tmux-mcp-test"); built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "tmux-mcp")
		if out, err := exec.Command("go", "build", "-o", built.bin, Package).CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build: %w\n%s", err, out)
		}
	})
	if built.err != nil {
		tb.Fatal(built.err)
	}
	return built.bin
}

// Env is the environment for the binary: the test's isolated server, a
// journal beside its socket (never the user's), nothing from the
// caller's tmux, and no OpenTelemetry settings but those in extra.
func Env(socket string, extra ...string) []string {
	env := slices.DeleteFunc(tmuxtest.Env(), func(kv string) bool { return strings.HasPrefix(kv, "OTEL_") })
	return append(env, append([]string{
		"TMUX_MCP_SOCKET_PATH=" + socket,
		"TMUX_MCP_TMUX_CONFIG=/dev/null",
		"TMUX_MCP_JOURNAL=" + filepath.Join(filepath.Dir(socket), "journal.db"),
	}, extra...)...)
}

// Buffer is a goroutine-safe bytes.Buffer for a child's stderr.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
