package view_test

import (
	"os"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/internal/e2etest"
)

func TestMain(m *testing.M) {
	if view := os.Getenv(otherWebEnv); view != "" {
		// This process is another user's web server (attack_e2e_test.go).
		os.Exit(runOtherWeb(view))
	}
	e2etest.Main(m)
}
