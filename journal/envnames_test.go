package journal

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// TestEnvNamesOnly checks what the journal file holds of a created pane's
// environment: the value in plain text by default, only the name with
// Options.EnvNamesOnly.
func TestEnvNamesOnly(t *testing.T) {
	tests := []struct {
		namesOnly bool
		wantValue bool
	}{
		{false, true},
		{true, false},
	}
	for _, tt := range tests {
		path := filepath.Join(t.TempDir(), "journal.db")
		j, _ := mustOpen(t, path, &Options{EnvNamesOnly: tt.namesOnly})
		j.RecordCreated(tmux.Socket{Name: "x"}, "%1", nil, "/", []string{"TMCP_SECRET_NAME=s3cret-value"}, false)
		flush(t, j)
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(raw, []byte("TMCP_SECRET_NAME")) {
			t.Errorf("EnvNamesOnly=%v: the name is not in the journal", tt.namesOnly)
		}
		if got := bytes.Contains(raw, []byte("s3cret-value")); got != tt.wantValue {
			t.Errorf("EnvNamesOnly=%v: value in the journal = %v, want %v", tt.namesOnly, got, tt.wantValue)
		}
	}
}
