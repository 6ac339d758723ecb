package main

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/tools"
)

// The README's "Adding tmux-mcp to an agent" gives, per client, the lines
// that set tmux-mcp up; TestReadmeClientsDriveTmux runs them with the real
// CLIs. They are read from the README here, so that the README and the
// test cannot drift apart.

// clientDoc is what the README says for one client.
type clientDoc struct {
	// launcher, local and settings are the `mcp add` lines (words): the
	// npm launcher's, the local binary's and the one "with settings".
	launcher, local, settings []string
	// headless is the line that runs the client without a terminal
	// (claude -p, codex exec, gemini -p).
	headless []string
	// toml is Codex's config.toml table, by hand.
	toml string
	// allow is Claude Code's settings.json that allows tmux-mcp's tools;
	// settingsJSON is Gemini CLI's settings.json, by hand.
	allow, settingsJSON string
	// optIn are Codex's lines that turn protocol 2026-07-28 on.
	optIn [][]string
	// trustFolder is Gemini's trustedFolders.json, /path/to/project for
	// the folder.
	trustFolder string
	// openWorld are the tools Codex's part names as those it asks about
	// (tmux-mcp's open-world tools).
	openWorld []string
}

// Each client's part of the section begins with its name in bold, alone
// on its line.
var clientHeads = map[string]string{"claude": "**Claude Code**", "codex": "**Codex CLI**", "gemini": "**Gemini CLI**"}

// readmeClients reads the section, each client's lines, and checks that
// the lines of a client agree: the local binary's and the launcher's are
// the "with settings" line without its setting, with `npx -y tmux-mcp`
// or `tmux-mcp` for the command.
func readmeClients(t *testing.T) map[string]clientDoc {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Adding tmux-mcp to an agent\n")
	if !ok {
		t.Fatal(`README.md: no section "## Adding tmux-mcp to an agent"`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	docs := map[string]clientDoc{}
	for name, head := range clientHeads {
		part := clientPart(section, head)
		if part == "" {
			t.Fatalf("README.md: no %s in the section", head)
		}
		var d clientDoc
		blocks := fencedBlocks(part)
		for i, blk := range blocks {
			switch {
			case blk.lang == "toml" && d.toml == "":
				d.toml = blk.text
			case blk.lang == "json" && name == "claude" && d.allow == "":
				d.allow = blk.text
			case blk.lang == "json" && name == "gemini" && d.settingsJSON == "":
				d.settingsJSON = blk.text
			case blk.lang == "sh" && i == 0:
				for _, l := range strings.Split(blk.text, "\n") {
					words, comment := shellWords(l)
					switch {
					case strings.HasPrefix(comment, "with settings: "):
						d.settings, _ = shellWords(strings.TrimPrefix(comment, "with settings: "))
					case strings.Contains(comment, "npm launcher"):
						d.launcher = words
					case strings.Contains(comment, "local binary"):
						d.local = words
					case len(words) > 1 && words[0] == name && slices.Contains([]string{"-p", "exec"}, words[1]):
						d.headless = words
					}
				}
			case blk.lang == "sh":
				for _, l := range strings.Split(blk.text, "\n") {
					if words, _ := shellWords(l); len(words) > 0 {
						d.optIn = append(d.optIn, words)
					}
				}
			}
		}
		if m := regexp.MustCompile("`(\\{[^`]*TRUST_FOLDER[^`]*\\})`").FindStringSubmatch(part); m != nil {
			d.trustFolder = m[1]
		}
		d.openWorld = openWorldNamed(part)
		checkClientDoc(t, name, d)
		docs[name] = d
	}
	return docs
}

// checkClientDoc checks that a client's lines are all there and agree.
func checkClientDoc(t *testing.T, name string, d clientDoc) {
	t.Helper()
	if d.launcher == nil || d.local == nil || d.settings == nil || d.headless == nil {
		t.Fatalf("README.md, %s: want the lines commented npm launcher, local binary, \"with settings:\" and a %s headless line; got %q", clientHeads[name], name, d)
	}
	want := withoutSetting(d.settings)
	if !slices.Equal(d.launcher, want) {
		t.Errorf("README.md, %s: the npm launcher's line %q is not the \"with settings\" line without its setting, %q", clientHeads[name], d.launcher, want)
	}
	if local := localBinary(want); !slices.Equal(d.local, local) {
		t.Errorf("README.md, %s: the local binary's line %q, want %q", clientHeads[name], d.local, local)
	}
	switch name {
	case "claude":
		var allow struct{ Permissions struct{ Allow []string } }
		if err := json.Unmarshal([]byte(d.allow), &allow); err != nil || !slices.Contains(allow.Permissions.Allow, "mcp__tmux-mcp") {
			t.Errorf("README.md, %s: want settings.json's JSON that allows mcp__tmux-mcp; got %q (%v)", clientHeads[name], d.allow, err)
		}
	case "codex":
		if d.toml == "" || d.optIn == nil || d.openWorld == nil {
			t.Errorf("README.md, %s: want the config.toml table, the lines of protocol 2026-07-28 and the tools marked open-world", clientHeads[name])
		}
	case "gemini":
		if d.trustFolder == "" {
			t.Errorf("README.md, %s: want trustedFolders.json's JSON (TRUST_FOLDER) in backquotes", clientHeads[name])
		}
		// By hand: the launcher's command and arguments, trusted.
		var settings struct {
			MCPServers map[string]struct {
				Command string
				Args    []string
				Trust   bool
			} `json:"mcpServers"`
		}
		err := json.Unmarshal([]byte(d.settingsJSON), &settings)
		srv, ok := settings.MCPServers["tmux-mcp"]
		if at := slices.Index(d.launcher, "npx"); err != nil || !ok || at < 0 || !srv.Trust ||
			!slices.Equal(append([]string{srv.Command}, srv.Args...), d.launcher[at:]) {
			t.Errorf("README.md, %s: settings.json by hand, %q (%v), is not the launcher's line %q with \"trust\": true", clientHeads[name], d.settingsJSON, err, d.launcher)
		}
	}
}

// openWorldMarker begins the sentence of Codex's part that names, in
// parentheses after it, the tools tmux-mcp marks open-world.
const openWorldMarker = "the tools tmux-mcp marks open-world"

// openWorldNamed are the tool names in backquotes in the parentheses
// after openWorldMarker.
func openWorldNamed(part string) []string {
	_, after, ok := strings.Cut(strings.Join(strings.Fields(part), " "), openWorldMarker)
	if !ok {
		return nil
	}
	_, list, ok := strings.Cut(after, "(")
	if !ok {
		return nil
	}
	list, _, _ = strings.Cut(list, ")")
	var names []string
	for _, m := range regexp.MustCompile("`([a-z_]+)`").FindAllStringSubmatch(list, -1) {
		names = append(names, m[1])
	}
	return names
}

// withoutSetting is an `mcp add` line without its TMUX_MCP_* setting and
// the flag before it.
func withoutSetting(words []string) []string {
	i := slices.IndexFunc(words, func(w string) bool { return strings.HasPrefix(w, "TMUX_MCP_") })
	if i < 1 {
		return words
	}
	return slices.Concat(words[:i-1], words[i+1:])
}

// localBinary is an `mcp add` line with the local binary for the launcher.
func localBinary(words []string) []string {
	i := slices.Index(words, "npx")
	if i < 0 || i+2 >= len(words) || words[i+1] != "-y" || words[i+2] != "tmux-mcp" {
		return words
	}
	return slices.Concat(words[:i], []string{"tmux-mcp"}, words[i+3:])
}

// withVars is an `mcp add` line with vars after its setting, each after
// the line's own flag for it (-e, --env).
func withVars(words []string, vars []string) []string {
	i := slices.IndexFunc(words, func(w string) bool { return strings.HasPrefix(w, "TMUX_MCP_") || strings.HasPrefix(w, "CODEX_MCP_") })
	if i < 1 {
		return words
	}
	var add []string
	for _, v := range vars {
		add = append(add, words[i-1], v)
	}
	return slices.Concat(words[:i+1], add, words[i+1:])
}

// clientPart is the text after head, up to the next line in bold.
func clientPart(section, head string) string {
	_, part, ok := strings.Cut(section, "\n"+head+"\n")
	if !ok {
		return ""
	}
	if i := strings.Index(part, "\n**"); i >= 0 {
		part = part[:i]
	}
	return part
}

// fencedBlock is a fenced code block: its language and text.
type fencedBlock struct{ lang, text string }

// fencedBlocks are the fenced code blocks of markdown, in order.
func fencedBlocks(markdown string) []fencedBlock {
	var out []fencedBlock
	for {
		i := strings.Index(markdown, "```")
		if i < 0 {
			return out
		}
		rest := markdown[i+3:]
		lang, body, ok := strings.Cut(rest, "\n")
		if !ok {
			return out
		}
		text, after, ok := strings.Cut(body, "```")
		if !ok {
			return out
		}
		out = append(out, fencedBlock{lang: strings.TrimSpace(lang), text: strings.TrimRight(text, "\n ")})
		markdown = after
	}
}

// shellWords splits a line of sh the way the README writes them: words
// between blanks, '...' and "..." quoted (no escapes), and the comment
// after an unquoted # (trimmed).
func shellWords(line string) (words []string, comment string) {
	var w strings.Builder
	inWord := false
	var quote rune
	for i, r := range line {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				w.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case r == '#' && !inWord:
			return words, strings.TrimSpace(line[i+1:])
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, ""
}

// TestReadmeClientLines reads each client's lines from the README: all
// there, the launcher's, the local binary's and the "with settings" ones
// in agreement (TestReadmeClientsDriveTmux runs one form of each).
func TestReadmeClientLines(t *testing.T) {
	docs := readmeClients(t)
	for name, d := range docs {
		t.Logf("%s: %q", name, d)
	}
	// The tools Codex asks about by default are the open-world ones.
	var openWorld []string
	for _, e := range tools.Catalog(tools.Deps{}) {
		if h := e.Tool.Annotations.OpenWorldHint; h != nil && *h {
			openWorld = append(openWorld, e.Tool.Name)
		}
	}
	slices.Sort(openWorld)
	if got := slices.Sorted(slices.Values(docs["codex"].openWorld)); !slices.Equal(got, openWorld) {
		t.Errorf("README.md, %s: names the tools marked open-world %q, want %q", clientHeads["codex"], got, openWorld)
	}
	tests := []struct {
		line string
		want []string
	}{
		{`claude -p "a b" --allowedTools mcp__tmux-mcp   # headless`, []string{"claude", "-p", "a b", "--allowedTools", "mcp__tmux-mcp"}},
		{`codex exec -c 'k="v"' x`, []string{"codex", "exec", "-c", `k="v"`, "x"}},
	}
	for _, tt := range tests {
		if got, _ := shellWords(tt.line); !slices.Equal(got, tt.want) {
			t.Errorf("shellWords(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
}
