package main

import (
	"os"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/tools"
)

// readmeSections are the generated parts of the README, by marker name.
func readmeSections() map[string]string {
	return map[string]string{
		"TOOLS":    tools.Markdown(tools.Catalog(tools.Deps{})),
		"SETTINGS": settingsMarkdown(),
	}
}

// TestReadme checks that the README's generated sections match the code.
// UPDATE_README=1 rewrites them.
func TestReadme(t *testing.T) {
	const path = "../../README.md"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	for name, want := range readmeSections() {
		start := "<!-- START AUTOMATED " + name + " -->\n"
		end := "<!-- END AUTOMATED " + name + " -->"
		i, j := strings.Index(readme, start), strings.Index(readme, end)
		if i < 0 || j < i {
			t.Errorf("README.md: markers %q ... %q missing", strings.TrimSpace(start), end)
			continue
		}
		got := readme[i+len(start) : j]
		if got == want {
			continue
		}
		if os.Getenv("UPDATE_README") == "1" {
			readme = readme[:i+len(start)] + want + readme[j:]
			continue
		}
		t.Errorf("README.md section %s is out of date; run UPDATE_README=1 go test ./cmd/tmux-mcp -run TestReadme\ngot:\n%s\nwant:\n%s", name, got, want)
	}
	if os.Getenv("UPDATE_README") == "1" {
		if err := os.WriteFile(path, []byte(readme), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
