package hosts_test

import (
	"testing"

	"github.com/tmux-mcp/tmux-mcp/internal/e2etest"
)

// TestMain removes the binary the end-to-end tests built (e2etest).
func TestMain(m *testing.M) { e2etest.Main(m) }
