package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
)

// Conversation is the conversation an agent CLI process is writing to, as
// the CLI itself keeps it on disk, and what resumes it.
type Conversation struct {
	CLI Name
	// ID is the CLI's own name for the conversation: Claude Code's session
	// ID, Codex's thread ID (UUIDs both).
	ID string
	// Dir is the directory the CLI runs in. A resume runs there: Claude
	// Code files its sessions under the project directory they began in.
	Dir string
	// Program is the command line that runs the CLI itself: its executable,
	// or an interpreter and the script (see ProgramOf).
	Program []string
}

// ErrNotResumable: tmux-mcp knows no way to find or resume the
// conversation of this CLI.
var ErrNotResumable = errors.New("agent: tmux-mcp cannot resume this CLI's conversations")

// Resumable reports whether tmux-mcp can find the conversation of a
// running name and resume it: Claude Code (its session file names the
// process) and Codex CLI (it holds its rollout file open). For Gemini CLI
// and the others no way to tell their conversation from their process is
// known yet.
func Resumable(name Name) bool { return name == "claude" || name == "codex" }

// ResumeArgv is the command line that resumes c: the CLI's own resume of
// that conversation by its ID, nothing else of the command line it first
// ran with (a prompt given there would be sent again).
func (c Conversation) ResumeArgv() []string {
	if len(c.Program) == 0 || !validID(c.ID) {
		return nil
	}
	argv := append([]string(nil), c.Program...)
	switch c.CLI {
	case "claude":
		return append(argv, "--resume", c.ID)
	case "codex":
		return append(argv, "resume", c.ID)
	}
	return nil
}

// uuidRE is the form of every conversation ID tmux-mcp resumes. The IDs
// come from files the CLI (or anything else running as the user) writes:
// only this form goes into a command line.
var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

func validID(id string) bool { return uuidRE.MatchString(id) }

// claudeSession is the part of Claude Code's session file
// (<config dir>/sessions/<pid>.json, written by each running CLI and
// removed at its exit) that names its process and conversation.
type claudeSession struct {
	PID       int    `json:"pid"`
	SessionID string `json:"sessionId"`
	Cwd       string `json:"cwd"`
	ProcStart string `json:"procStart"` // the process's start time, as field 22 of /proc/PID/stat
}

// claudeConversation reads the conversation of the Claude Code process
// pid, started at start (clock ticks after boot), from its session file
// b: only a file that names this very process counts.
func claudeConversation(b []byte, pid int, start uint64) (id, dir string, err error) {
	var s claudeSession
	if err := json.Unmarshal(b, &s); err != nil {
		return "", "", fmt.Errorf("agent: claude session file: %w", err)
	}
	if s.PID != pid || s.ProcStart != strconv.FormatUint(start, 10) {
		return "", "", fmt.Errorf("agent: claude session file names process %d started at %q, not %d started at %d", s.PID, s.ProcStart, pid, start)
	}
	if !validID(s.SessionID) {
		return "", "", fmt.Errorf("agent: claude session file: session ID %q is not a UUID", s.SessionID)
	}
	if !filepath.IsAbs(s.Cwd) || filepath.Clean(s.Cwd) != s.Cwd {
		return "", "", fmt.Errorf("agent: claude session file: directory %q is not a clean absolute path", s.Cwd)
	}
	return s.SessionID, s.Cwd, nil
}

// codexRolloutRE matches the rollout file a Codex process writes its
// thread to, $CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread ID>.jsonl,
// and its thread lock, $CODEX_HOME/thread-writer-locks/<thread ID>.lock.
var (
	codexRolloutRE = regexp.MustCompile(`/sessions/[0-9]{4}/[0-9]{2}/[0-9]{2}/rollout-[0-9T:-]+-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$`)
	codexLockRE    = regexp.MustCompile(`/thread-writer-locks/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.lock$`)
)

// codexConversation returns the thread a Codex process writes to, from the
// paths of the files it holds open: the thread of its one open rollout
// file, or of the one whose writer lock it also holds when several are
// open.
func codexConversation(open []string) (string, error) {
	var rollouts []string
	locked := map[string]bool{}
	for _, p := range open {
		if m := codexRolloutRE.FindStringSubmatch(p); m != nil && !slices.Contains(rollouts, m[1]) {
			rollouts = append(rollouts, m[1])
		}
		if m := codexLockRE.FindStringSubmatch(p); m != nil {
			locked[m[1]] = true
		}
	}
	switch len(rollouts) {
	case 0:
		return "", errors.New("agent: codex holds no rollout file open (no conversation yet)")
	case 1:
		return rollouts[0], nil
	}
	var held []string
	for _, id := range rollouts {
		if locked[id] {
			held = append(held, id)
		}
	}
	if len(held) == 1 {
		return held[0], nil
	}
	return "", fmt.Errorf("agent: codex holds %d rollout files open and the writer locks of %d: which conversation is current is not known", len(rollouts), len(held))
}

// ProgramOf is the command line that runs p's program again: its
// executable (exe, /proc's absolute path, when p runs a binary), or for an
// interpreter its executable and the script, made absolute against dir.
func ProgramOf(p Process, exe, dir string) []string {
	if len(p.Args) == 0 {
		return nil
	}
	base := filepath.Base(p.Args[0])
	if !interpreters[base] && !pythonVersion(base) {
		if filepath.IsAbs(exe) {
			return []string{exe}
		}
		return []string{p.Args[0]}
	}
	out := []string{p.Args[0]}
	if filepath.IsAbs(exe) {
		out[0] = exe
	}
	for _, a := range p.Args[1:] {
		if len(a) > 0 && a[0] == '-' {
			out = append(out, a)
			continue
		}
		if !filepath.IsAbs(a) && dir != "" {
			a = filepath.Join(dir, a)
		}
		return append(out, a)
	}
	return nil
}
