package main

import (
	"os"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/tools"
)

// generatedDoc is a part of the documentation generated from the code: the
// text between its markers in file.
type generatedDoc struct {
	file, name, want string
}

// generatedDocs are the generated parts of the README and the manuals;
// the README's first steps and install paragraph follow its release state
// (readmestart_test.go).
func generatedDocs(t *testing.T) []generatedDoc {
	published := readmePublished(t)
	return []generatedDoc{
		{"../../docs/tools.md", "TOOLS", toolsMarkdown(tools.Catalog(tools.Deps{}))},
		{"../../README.md", "SETTINGS", settingsMarkdown()},
		{"../../README.md", "FIRST STEPS", firstStepsMarkdown(published)},
		{"../../README.md", "INSTALL", installMarkdown(published)},
	}
}

// TestReadme checks that the generated sections of the README and the
// manuals match the code. UPDATE_README=1 rewrites them.
func TestReadme(t *testing.T) {
	for _, g := range generatedDocs(t) {
		b, err := os.ReadFile(g.file)
		if err != nil {
			t.Fatal(err)
		}
		doc := string(b)
		start := "<!-- START AUTOMATED " + g.name + " -->\n"
		end := "<!-- END AUTOMATED " + g.name + " -->"
		i, j := strings.Index(doc, start), strings.Index(doc, end)
		if i < 0 || j < i {
			t.Errorf("%s: markers %q ... %q missing", g.file, strings.TrimSpace(start), end)
			continue
		}
		got := doc[i+len(start) : j]
		if got == g.want {
			continue
		}
		if os.Getenv("UPDATE_README") != "1" {
			t.Errorf("%s section %s is out of date; run UPDATE_README=1 go test ./cmd/tmux-mcp -run TestReadme\ngot:\n%s\nwant:\n%s", g.file, g.name, got, g.want)
			continue
		}
		doc = doc[:i+len(start)] + g.want + doc[j:]
		if err := os.WriteFile(g.file, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
