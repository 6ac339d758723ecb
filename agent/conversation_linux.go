package agent

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/tmux-mcp/tmux-mcp/proc"
)

// ConversationOf reads, from /proc and the CLI's own files, the
// conversation that p (a process of the agent CLI name) writes to; below
// are the processes under p, where a wrapper's real CLI may run. Nothing
// it reads (the process's environment, its session file) is logged or
// kept but the conversation's ID, directory and program.
func ConversationOf(name Name, p Process, below []Process) (Conversation, error) {
	if !Resumable(name) {
		return Conversation{}, ErrNotResumable
	}
	pid := strconv.Itoa(p.PID)
	dir, err := os.Readlink("/proc/" + pid + "/cwd")
	if err != nil {
		return Conversation{}, fmt.Errorf("agent: directory of %s: %w", name, err)
	}
	exe, _ := os.Readlink("/proc/" + pid + "/exe")
	c := Conversation{CLI: name, Dir: dir, Program: ProgramOf(p, exe, dir)}
	switch name {
	case "claude":
		c.ID, c.Dir, err = claudeOf(p.PID)
	case "codex":
		var open []string
		for _, q := range append([]Process{p}, below...) {
			open = append(open, openFiles(q.PID)...)
		}
		c.ID, err = codexConversation(open)
	}
	if err != nil {
		return Conversation{}, err
	}
	if len(c.ResumeArgv()) == 0 {
		return Conversation{}, fmt.Errorf("agent: no command line to resume %s with (argv %d words)", name, len(p.Args))
	}
	return c, nil
}

// claudeOf reads the session file of the Claude Code process pid, in its
// config directory: $CLAUDE_CONFIG_DIR, else $HOME/.claude, as that
// process's environment has them.
func claudeOf(pid int) (id, dir string, err error) {
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return "", "", fmt.Errorf("agent: claude's environment: %w", err)
	}
	cfg := environValue(env, "CLAUDE_CONFIG_DIR")
	if cfg == "" {
		if home := environValue(env, "HOME"); home != "" {
			cfg = filepath.Join(home, ".claude")
		}
	}
	if !filepath.IsAbs(cfg) {
		return "", "", fmt.Errorf("agent: claude's config directory is not known (no absolute CLAUDE_CONFIG_DIR or HOME)")
	}
	start, err := proc.StartTime(pid)
	if err != nil {
		return "", "", fmt.Errorf("agent: claude: %w", err)
	}
	b, err := os.ReadFile(filepath.Join(cfg, "sessions", strconv.Itoa(pid)+".json"))
	if err != nil {
		return "", "", fmt.Errorf("agent: claude's session file: %w", err)
	}
	return claudeConversation(b, pid, start)
}

// environValue returns the value of key in a /proc/PID/environ.
func environValue(env []byte, key string) string {
	for kv := range bytes.SplitSeq(env, []byte{0}) {
		if k, v, ok := bytes.Cut(kv, []byte{'='}); ok && string(k) == key {
			return string(v)
		}
	}
	return ""
}

// openFiles returns the paths of the files process pid holds open.
func openFiles(pid int) []string {
	dir := "/proc/" + strconv.Itoa(pid) + "/fd"
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if l, err := os.Readlink(dir + "/" + e.Name()); err == nil && filepath.IsAbs(l) {
			out = append(out, l)
		}
	}
	return out
}
