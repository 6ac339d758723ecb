package agent

import "testing"

func TestDetect(t *testing.T) {
	tests := []struct {
		name  string
		procs [][]string
		want  Name
	}{
		{"claude native", [][]string{{"-bash"}, {"/home/u/.local/bin/claude"}}, "claude"},
		{"claude under node", [][]string{{"bash"}, {"node", "/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js"}}, "claude"},
		{"claude by bin link", [][]string{{"node", "--no-warnings", "/home/u/.npm-global/bin/claude", "-p"}}, "claude"},
		{"codex wrapper", [][]string{{"node", "/x/node_modules/@openai/codex/bin/codex.js"}, {"/x/node_modules/@openai/codex-linux-x64/vendor/codex/codex"}}, "codex"},
		{"gemini", [][]string{{"zsh"}, {"node", "/opt/node/bin/gemini"}}, "gemini"},
		{"aider under python", [][]string{{"python3.12", "/home/u/.venv/bin/aider"}}, "aider"},
		{"opencode", [][]string{{"/usr/local/bin/opencode"}}, "opencode"},
		{"cursor-agent", [][]string{{"cursor-agent", "--model", "x"}}, "cursor-agent"},
		{"nearest the pane wins", [][]string{{"claude"}, {"bash", "-c", "codex"}, {"codex"}}, "claude"},
		{"a shell", [][]string{{"bash", "--norc"}, {"vim", "claude.md"}}, ""},
		{"an argument is not the program", [][]string{{"grep", "claude"}, {"node", "server.js", "codex"}}, ""},
		{"a path elsewhere", [][]string{{"cat", "/x/@anthropic-ai/claude-code/cli.js"}}, ""},
		{"no processes", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var procs []Process
			for i, a := range tt.procs {
				procs = append(procs, Process{PID: 100 + i, Args: a})
			}
			got, _, ok := Detect(procs)
			if got != tt.want || ok != (tt.want != "") {
				t.Errorf("Detect(%q) = %q, %v; want %q", tt.procs, got, ok, tt.want)
			}
		})
	}
}
