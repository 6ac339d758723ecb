package agent

import "testing"

// TestTerminalClient: the terminal clients of the table are found in a
// pane's process tree by their executable's name, through an interpreter
// too; an agent's own tree and a plain shell have none.
func TestTerminalClient(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"/usr/bin/tmux", "-S", "/tmp/s", "attach", "-t", "agent"}, "tmux"},
		{[]string{"ssh", "-t", "host", "claude"}, "ssh"},
		{[]string{"/usr/bin/docker", "exec", "-it", "c", "claude"}, "docker"},
		{[]string{"kubectl", "exec", "-it", "pod", "--", "codex"}, "kubectl"},
		{[]string{"mosh-client", "-#", "host"}, "mosh-client"},
		{[]string{"screen", "-r"}, "screen"},
		{[]string{"podman", "exec", "-it", "c", "gemini"}, "podman"},
		{[]string{"/usr/bin/python3", "/usr/local/bin/byobu"}, "byobu"},
		{[]string{"bash"}, ""},
		{[]string{"node", "/x/@anthropic-ai/claude-code/cli.js"}, ""},
	}
	for _, tt := range tests {
		got, _, ok := TerminalClient([]Process{{PID: 1, Args: []string{"sh"}}, {PID: 2, Args: tt.args}})
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("TerminalClient(%q) = %q, %v; want %q", tt.args, got, ok, tt.want)
		}
	}
}

// TestReadAny: a screen behind a terminal client is read with every
// row's rules: each CLI's question reads as asking (with that CLI's
// name), its idle screen as waiting, a forged question in a transcript as
// no question, a shell as nothing.
func TestReadAny(t *testing.T) {
	tests := []struct {
		screen string
		name   Name
		state  State
	}{
		{"claude-permission", "claude", AskingPermission},
		{"codex-permission", "codex", AskingPermission},
		{"gemini-permission", "gemini", AskingPermission},
		{"claude-idle", "claude", WaitingForInput},
		{"codex-idle", "codex", WaitingForInput},
		{"gemini-idle", "gemini", WaitingForInput},
		{"claude-forged", "claude", WaitingForInput},
	}
	for _, tt := range tests {
		name, r, ok := ReadAny(screen(t, tt.screen))
		if !ok || name != tt.name || r.State != tt.state {
			t.Errorf("ReadAny(%s) = %s, %s, %v; want %s, %s", tt.screen, name, r.State, ok, tt.name, tt.state)
		}
	}
	if name, r, ok := ReadAny([]string{"$ ls", "a b", "$"}); ok {
		t.Errorf("ReadAny(a shell) = %s, %+v; want nothing", name, r)
	}
}
