package mcpserver

import (
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// checkSocketName stands in for the tool layer's socket_name check.
func checkSocketName(name string) (tmux.Socket, error) { return tmux.Socket{Name: name}, nil }

// TestRecoverPromptWithJournal: once the journal's tools are served, the
// prompt sends the agent to them instead of saying what it cannot see.
func TestRecoverPromptWithJournal(t *testing.T) {
	var render func(map[string]string) (string, error)
	for _, p := range prompts(true, checkSocketName) {
		if p.prompt.Name == "recover_after_crash" {
			render = p.render
		}
	}
	for args, want := range map[string][]string{
		"":     {"journal_events()", "restore_sessions()", "old one", "restore_sessions(dry_run=true) returns ids", "resolved_ids", "names ITS object"},
		"work": {`journal_events(socket_name="work")`, `restore_sessions(socket_name="work")`, `restore_sessions(socket_name="work", dry_run=true)`},
	} {
		got, err := render(map[string]string{"socket_name": args})
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("recover_after_crash(%q) with a journal does not contain %q:\n%s", args, w, got)
			}
		}
		if strings.Contains(got, "keeps no journal") {
			t.Errorf("recover_after_crash with a journal says there is none:\n%s", got)
		}
	}
}
