package main

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
)

// The README's first screen depends on one thing: whether a release has
// been published. Before, `npx -y tmux-mcp` and `go install ...@latest`
// answer 404, so the first screen leads with what works from a clone;
// after, with those one-liners. The state is the one line
//
//	<!-- release: unpublished -->
//
// in the README (published after the first release); the sections that
// depend on it (FIRST STEPS, INSTALL) are generated from it, and
// UPDATE_README=1 go test ./cmd/tmux-mcp -run TestReadme rewrites them.

// releaseLine is the README's release state.
var releaseLine = regexp.MustCompile(`(?m)^<!-- release: (unpublished|published) `)

// readmePublished reads the README's release state.
func readmePublished(t *testing.T) bool {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := releaseLine.FindSubmatch(b)
	if m == nil {
		t.Fatalf("README.md: no line %q", "<!-- release: unpublished ... -->")
	}
	return string(m[1]) == "published"
}

// Names the first screen uses, checked against the repository's own.
const (
	repoURL    = "https://github.com/tmux-mcp/tmux-mcp"
	modulePath = "github.com/tmux-mcp/tmux-mcp"
	npmName    = "tmux-mcp"
)

// firstStepsMarkdown is the README's first steps: from a clone before
// the first release, from the one-liners after.
func firstStepsMarkdown(published bool) string {
	if !published {
		return `**From a clone, until the first release.** tmux-mcp has not been released
yet: ` + "`npx -y " + npmName + "`" + ` and ` + "`go install`" + ` come with the first release
([RELEASING.md](RELEASING.md)) and answer "not found" until then. With git,
Go 1.26, make and tmux 3.2a or later (Linux or macOS):

` + "```sh" + `
git clone ` + repoURL + ` && cd tmux-mcp
make build && claude mcp add -s user tmux-mcp -- "$PWD/bin/tmux-mcp"   # the MCP server, for Claude Code
make ci                                                                 # the tests, as CI runs them
` + "```" + `

` + "`claude mcp list`" + ` then shows ` + "`tmux-mcp: ... ✔ Connected`" + `, and the agent drives tmux
on a server of its own ([watch it](#watching-the-agent)). Codex CLI, Gemini
CLI and Cursor take the same absolute path ([Adding tmux-mcp to an
agent](#adding-tmux-mcp-to-an-agent)); [Quick start](#quick-start) says what
` + "`make ci`" + ` needs beyond the build.
`
	}
	return `**Install.** With Node.js 18+ there is nothing to install: MCP clients run
` + "`npx -y " + npmName + "`" + `. Or put the binary on your ` + "`PATH`" + `: ` + "`go install " + modulePath + "/cmd/tmux-mcp@latest`" + `
(Go 1.26), or a [release archive](#install). It needs tmux 3.2a or later
(Linux or macOS):

` + "```sh" + `
claude mcp add -s user tmux-mcp -- npx -y ` + npmName + `   # Claude Code
codex mcp add tmux-mcp -- npx -y ` + npmName + `            # Codex CLI
gemini mcp add -s user tmux-mcp npx -y ` + npmName + `      # Gemini CLI
` + "```" + `

` + "`claude mcp list`" + ` then shows ` + "`tmux-mcp: ... ✔ Connected`" + `, and the agent drives tmux
on a server of its own ([watch it](#watching-the-agent); other clients and
settings: [Adding tmux-mcp to an agent](#adding-tmux-mcp-to-an-agent)). To
work on tmux-mcp: ` + "`git clone " + repoURL + "`" + `, then ` + "`make ci`" + `
([Quick start](#quick-start)).
`
}

// installMarkdown is the Install section's first paragraph.
func installMarkdown(published bool) string {
	s := "tmux-mcp is one static binary for Linux and macOS (amd64, arm64) and needs\n" +
		"tmux 3.2a or later beside it. Every channel below is built and tested here by\n" +
		"`make release-check`"
	if !published {
		return s + "; none is published until the first release\n" +
			"([RELEASING.md](RELEASING.md)): until then, build it from a clone ([above](#tmux-mcp)).\n"
	}
	return s + " and published with each release ([RELEASING.md](RELEASING.md)).\n"
}

// TestReadmeFirstScreen checks both states of the README's first screen,
// whichever the README is in now: before the first release it leads with
// a clone, the build, an agent given the binary and make ci, and says the
// one-liners come with the first release, naming no one-liner before
// that; after, it leads with npx and go install. The names it uses are
// the repository's: the module path, the npm package, the Makefile's
// targets and binary.
func TestReadmeFirstScreen(t *testing.T) {
	gomod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(gomod), "module "+modulePath+"\n") {
		t.Errorf("go.mod is not module %s: fix the README's go install line", modulePath)
	}
	var pkg struct {
		Name string `json:"name"`
	}
	b, err := os.ReadFile("../../packaging/npm/tmux-mcp/package.json")
	if err == nil {
		err = json.Unmarshal(b, &pkg)
	}
	if err != nil || pkg.Name != npmName {
		t.Errorf("the npm launcher is %q (%v), want %q: fix the README's npx lines", pkg.Name, err, npmName)
	}
	makefile, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\nbuild:", "\nci:", "\nBIN       ?= bin/tmux-mcp\n"} {
		if !strings.Contains(string(makefile), want) {
			t.Errorf("the Makefile has no %q, which the first steps use", strings.TrimSpace(want))
		}
	}

	// inOrder reports whether every string of want is in s, in order.
	inOrder := func(s string, want ...string) bool {
		for _, w := range want {
			i := strings.Index(s, w)
			if i < 0 {
				return false
			}
			s = s[i+len(w):]
		}
		return true
	}
	tests := []struct {
		published bool
		order     []string // in this order
		lead      string   // the first command
		not       []string // nowhere
	}{
		{false, []string{"until the first release", "`npx -y tmux-mcp`", "come with the first release", "git clone " + repoURL + " && cd tmux-mcp",
			`make build && claude mcp add -s user tmux-mcp -- "$PWD/bin/tmux-mcp"`, "make ci", "✔ Connected"},
			"git clone", []string{"@latest", "-- npx", "tmux-mcp npx"}},
		{true, []string{"`npx -y tmux-mcp`", "`go install " + modulePath + "/cmd/tmux-mcp@latest`",
			"claude mcp add -s user tmux-mcp -- npx -y tmux-mcp", "codex mcp add tmux-mcp -- npx -y tmux-mcp",
			"gemini mcp add -s user tmux-mcp npx -y tmux-mcp", "✔ Connected", "git clone " + repoURL, "make ci"},
			"claude mcp add -s user tmux-mcp -- npx -y", []string{"until the first release", "not been released"}},
	}
	for _, tt := range tests {
		got := firstStepsMarkdown(tt.published) + installMarkdown(tt.published)
		if !inOrder(got, tt.order...) {
			t.Errorf("published=%t: the first screen does not say, in order, %q:\n%s", tt.published, tt.order, got)
		}
		// The first command shown is the lead.
		if _, block, ok := strings.Cut(got, "```sh\n"); !ok || !strings.HasPrefix(block, tt.lead) {
			t.Errorf("published=%t: the first command block does not begin with %q:\n%s", tt.published, tt.lead, got)
		}
		for _, n := range tt.not {
			if strings.Contains(got, n) {
				t.Errorf("published=%t: the first screen says %q:\n%s", tt.published, n, got)
			}
		}
	}
}

// TestReadmeFirstScreenLeads checks that in the README as it is the first
// steps come right after the opening paragraph: before any other section,
// where a newcomer reads first.
func TestReadmeFirstScreenLeads(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	steps := strings.Index(doc, "<!-- START AUTOMATED FIRST STEPS -->")
	if steps < 0 {
		t.Fatal("README.md: no FIRST STEPS section")
	}
	if i := strings.Index(doc, "\n## "); i < steps {
		t.Errorf("README.md: a section (%q) comes before the first steps", strings.SplitN(doc[i+1:], "\n", 2)[0])
	}
	if lines := strings.Count(doc[:steps], "\n"); lines > 15 {
		t.Errorf("README.md: the first steps begin on line %d, want them on the first screen (line 15 at most)", lines+1)
	}
}
