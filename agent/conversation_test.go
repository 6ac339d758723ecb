package agent

import (
	"slices"
	"strings"
	"testing"
)

const (
	idA = "8495c1c5-995d-446d-809c-62c83285613f"
	idB = "01a23e96-39c5-7262-a55b-0e6c2fa5a1e5"
)

func TestClaudeConversation(t *testing.T) {
	file := func(pid, id, cwd, start string) []byte {
		return []byte(`{"pid":` + pid + `,"sessionId":"` + id + `","cwd":"` + cwd + `","procStart":"` + start + `","status":"idle"}`)
	}
	tests := []struct {
		name    string
		b       []byte
		wantID  string
		wantDir string
		wantErr string
	}{
		{"this process", file("4242", idA, "/home/u/proj", "2985007"), idA, "/home/u/proj", ""},
		{"another process", file("4243", idA, "/home/u/proj", "2985007"), "", "", "names process 4243"},
		{"an earlier process with this PID", file("4242", idA, "/home/u/proj", "1000"), "", "", "started at \"1000\""},
		{"an ID that is not a UUID", file("4242", "x; rm -rf ~", "/home/u/proj", "2985007"), "", "", "not a UUID"},
		{"a relative directory", file("4242", idA, "proj", "2985007"), "", "", "not a clean absolute path"},
		{"an unclean directory", file("4242", idA, "/home/u/../proj", "2985007"), "", "", "not a clean absolute path"},
		{"not JSON", []byte("{"), "", "", "claude session file"},
	}
	for _, tt := range tests {
		id, dir, err := claudeConversation(tt.b, 4242, 2985007)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: err = %v, want one saying %q", tt.name, err, tt.wantErr)
			}
			continue
		}
		if err != nil || id != tt.wantID || dir != tt.wantDir {
			t.Errorf("%s: got %q, %q, %v; want %q, %q", tt.name, id, dir, err, tt.wantID, tt.wantDir)
		}
	}
}

func TestCodexConversation(t *testing.T) {
	rollout := func(id string) string {
		return "/home/u/.codex/sessions/2026/12/04/rollout-2026-12-04T01-03-36-" + id + ".jsonl"
	}
	lock := func(id string) string { return "/home/u/.codex/thread-writer-locks/" + id + ".lock" }
	tests := []struct {
		name    string
		open    []string
		want    string
		wantErr string
	}{
		{"one rollout", []string{"/home/u/.codex/state_5.sqlite", rollout(idA), lock(idA)}, idA, ""},
		{"one rollout, open twice", []string{rollout(idA), rollout(idA)}, idA, ""},
		{"two rollouts, one locked", []string{rollout(idA), rollout(idB), lock(idB)}, idB, ""},
		{"two rollouts, none locked", []string{rollout(idA), rollout(idB)}, "", "which conversation is current"},
		{"none yet", []string{"/home/u/.codex/state_5.sqlite"}, "", "no rollout file"},
		{"a look-alike outside sessions/", []string{"/tmp/rollout-2026-12-04T01-03-36-" + idA + ".jsonl"}, "", "no rollout file"},
		{"an ID that is not a UUID", []string{"/home/u/.codex/sessions/2026/12/04/rollout-2026-x-$(id).jsonl"}, "", "no rollout file"},
	}
	for _, tt := range tests {
		got, err := codexConversation(tt.open)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: err = %v, want one saying %q", tt.name, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s: got %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
}

func TestResumeArgv(t *testing.T) {
	tests := []struct {
		c    Conversation
		want []string
	}{
		{Conversation{CLI: "claude", ID: idA, Program: []string{"/opt/claude"}}, []string{"/opt/claude", "--resume", idA}},
		{Conversation{CLI: "codex", ID: idB, Program: []string{"/usr/bin/node", "/opt/codex.js"}}, []string{"/usr/bin/node", "/opt/codex.js", "resume", idB}},
		{Conversation{CLI: "gemini", ID: idA, Program: []string{"/opt/gemini"}}, nil},
		{Conversation{CLI: "claude", ID: "--dangerously-skip-permissions", Program: []string{"/opt/claude"}}, nil},
		{Conversation{CLI: "claude", ID: idA}, nil},
	}
	for _, tt := range tests {
		if got := tt.c.ResumeArgv(); !slices.Equal(got, tt.want) {
			t.Errorf("%+v.ResumeArgv() = %q, want %q", tt.c, got, tt.want)
		}
	}
}

func TestProgramOf(t *testing.T) {
	tests := []struct {
		args     []string
		exe, dir string
		want     []string
	}{
		{[]string{"claude", "--model", "x", "fix the bug"}, "/opt/claude/claude.exe", "/p", []string{"/opt/claude/claude.exe"}},
		{[]string{"./codex", "prompt"}, "", "/p", []string{"./codex"}},
		{[]string{"node", "--no-warnings", "bin/codex.js", "resume", idA}, "/usr/bin/node", "/opt", []string{"/usr/bin/node", "--no-warnings", "/opt/bin/codex.js"}},
		{[]string{"node"}, "/usr/bin/node", "/p", nil},
		{nil, "", "", nil},
	}
	for _, tt := range tests {
		if got := ProgramOf(Process{PID: 1, Args: tt.args}, tt.exe, tt.dir); !slices.Equal(got, tt.want) {
			t.Errorf("ProgramOf(%q, %q, %q) = %q, want %q", tt.args, tt.exe, tt.dir, got, tt.want)
		}
	}
}
