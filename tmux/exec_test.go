package tmux_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// TestExecPipeHeldAfterExit: a tmux server keeps a copy of its client's
// stdout until it has handled the client's exit, which on a busy machine
// comes late. A stand-in for the tmux binary that prints, leaves a child
// holding its stdout and exits shows what the exec transport must make of
// that: the client's own exit status decides, and its output is whole.
func TestExecPipeHeldAfterExit(t *testing.T) {
	tests := []struct {
		name    string
		exit    string
		wantErr bool
	}{
		{"client exited 0", "0", false},
		{"client exited 1", "1", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bin := filepath.Join(t.TempDir(), "tmux")
			script := "#!/bin/sh\necho out; sleep 3 & exit " + tt.exit + "\n"
			if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			e := &tmux.Exec{Binary: bin, Socket: tmux.Socket{Path: filepath.Join(t.TempDir(), "s")}}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			out, err := e.Run(ctx, "list-sessions")
			if gotErr := err != nil; gotErr != tt.wantErr {
				t.Fatalf("Run() error = %v, want error: %v", err, tt.wantErr)
			}
			if string(out) != "out\n" {
				t.Errorf("output = %q, want %q", out, "out\n")
			}
			if tt.wantErr && errors.Is(err, tmux.ErrTimeout) {
				t.Errorf("error = %v, want the client's failure, not a timeout", err)
			}
		})
	}
}
