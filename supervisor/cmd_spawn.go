package supervisor

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// tmux's commands that start a pane's process, typed: new-session,
// new-window, split-window and respawn-pane. Each takes its flags from an
// options struct, sends one command through do (the resource gate for
// new panes included) and returns do's error as it is (see cmd_pane.go).
// Names, start directories and commands reach tmux literally: the wire
// keeps them from format expansion, and "--" keeps a command that starts
// with "-" from reading as a flag.

// Spawn is what the new pane runs and where: the fields every spawning
// command shares.
type Spawn struct {
	// StartDir is the pane's working directory (-c); "": tmux's default.
	StartDir string
	// Env are NAME=VALUE variables set in the pane's environment (-e), in
	// order; an entry without "=" is an ErrInvalidArgument.
	Env []string
	// Command is one shell command line that tmux runs with the
	// default-shell (after "--"); "": the default command, a shell.
	Command string
}

// args returns s as flags, the command last.
func (s Spawn) args() ([]string, error) {
	var args []string
	if s.StartDir != "" {
		args = append(args, "-c", s.StartDir)
	}
	for i, e := range s.Env {
		if name, _, ok := strings.Cut(e, "="); !ok || name == "" {
			return nil, fmt.Errorf("%w: environment entry %d is not NAME=VALUE", ErrInvalidArgument, i)
		}
		args = append(args, "-e", e)
	}
	if s.Command != "" {
		args = append(args, "--", s.Command)
	}
	return args, nil
}

// NewSessionOptions are new-session's flags but the pane's (Spawn).
type NewSessionOptions struct {
	Name       string // -s: the session's name; "": tmux picks one
	WindowName string // -n: its first window's name
	// Width and Height are its size in cells (-x, -y); 0: tmux's default.
	Width, Height int
	Spawn
}

// NewSession creates a detached session (new-session -d -P -F
// "#{session_id} #{pane_id}" and o's flags) and returns its ID and its
// first pane's.
func (s *Server) NewSession(ctx context.Context, o NewSessionOptions) (tmux.SessionID, tmux.PaneID, error) {
	args := []string{"new-session", "-d", "-P", "-F", "#{session_id} #{pane_id}"}
	if o.Name != "" {
		args = append(args, "-s", o.Name)
	}
	if o.WindowName != "" {
		args = append(args, "-n", o.WindowName)
	}
	if o.Width > 0 {
		args = append(args, "-x", strconv.Itoa(o.Width))
	}
	if o.Height > 0 {
		args = append(args, "-y", strconv.Itoa(o.Height))
	}
	rest, err := o.Spawn.args()
	if err != nil {
		return "", "", err
	}
	ids, err := s.created(ctx, append(args, rest...), 2)
	if err != nil {
		return "", "", err
	}
	return tmux.SessionID(ids[0]), tmux.PaneID(ids[1]), nil
}

// NewWindowOptions are new-window's flags but the pane's (Spawn).
type NewWindowOptions struct {
	// Session is the session the window goes into, at its first free
	// index (-t session:).
	Session tmux.SessionID
	// Before and After put the window just before or after this window
	// of its session instead (-b or -a -t window); at most one is set.
	Before, After tmux.WindowID
	// Select makes the new window the session's current one; without it
	// the window is created detached (-d).
	Select bool
	Name   string // -n: the window's name
	Spawn
}

// NewWindow creates a window (new-window -P -F "#{window_id} #{pane_id}"
// and o's flags) and returns its ID and its pane's.
func (s *Server) NewWindow(ctx context.Context, o NewWindowOptions) (tmux.WindowID, tmux.PaneID, error) {
	args := []string{"new-window", "-P", "-F", "#{window_id} #{pane_id}"}
	target := string(o.Session) + ":"
	switch {
	case o.Before != "" && o.After != "":
		return "", "", fmt.Errorf("%w: a new window goes before a window or after one, not both", ErrInvalidArgument)
	case o.Before != "":
		args, target = append(args, "-b"), string(o.Before)
	case o.After != "":
		args, target = append(args, "-a"), string(o.After)
	}
	args = append(args, "-t", target)
	if !o.Select {
		args = append(args, "-d")
	}
	if o.Name != "" {
		args = append(args, "-n", o.Name)
	}
	rest, err := o.Spawn.args()
	if err != nil {
		return "", "", err
	}
	ids, err := s.created(ctx, append(args, rest...), 2)
	if err != nil {
		return "", "", err
	}
	return tmux.WindowID(ids[0]), tmux.PaneID(ids[1]), nil
}

// SplitOptions are split-window's flags but the pane's (Spawn).
type SplitOptions struct {
	// Pane is the pane to split; "": Window's active pane.
	Pane   tmux.PaneID
	Window tmux.WindowID
	// Horizontal puts the new pane beside the target (-h: right, or left
	// with Before); without it, below (-v), or above with Before.
	Horizontal bool
	Before     bool // -b
	// Size is the new pane's size (-l): cells, or a percentage "N%";
	// "": half.
	Size string
	Spawn
}

// SplitWindow splits a pane without selecting the new one (split-window
// -d -P -F "#{pane_id}" and o's flags) and returns the new pane's ID.
func (s *Server) SplitWindow(ctx context.Context, o SplitOptions) (tmux.PaneID, error) {
	target := string(o.Pane)
	if target == "" {
		target = string(o.Window)
	}
	args := []string{"split-window", "-d", "-P", "-F", "#{pane_id}", "-t", target}
	if o.Horizontal {
		args = append(args, "-h")
	} else {
		args = append(args, "-v")
	}
	if o.Before {
		args = append(args, "-b")
	}
	if o.Size != "" {
		args = append(args, "-l", o.Size)
	}
	rest, err := o.Spawn.args()
	if err != nil {
		return "", err
	}
	ids, err := s.created(ctx, append(args, rest...), 1)
	if err != nil {
		return "", err
	}
	return tmux.PaneID(ids[0]), nil
}

// RespawnOptions are respawn-pane's flags but the pane's (Spawn).
type RespawnOptions struct {
	// Kill ends the pane's process first if it still runs (-k); without
	// it tmux refuses a pane that is not dead.
	Kill bool
	Spawn
}

// RespawnPane starts pane's process again, in the same pane
// (respawn-pane -t pane and o's flags).
func (s *Server) RespawnPane(ctx context.Context, pane tmux.PaneID, o RespawnOptions) error {
	args := []string{"respawn-pane", "-t", string(pane)}
	if o.Kill {
		args = append(args, "-k")
	}
	rest, err := o.Spawn.args()
	if err != nil {
		return err
	}
	_, err = s.do(ctx, append(args, rest...)...)
	return err
}

// created runs a command that prints the IDs of what it created (-P -F)
// and returns the n IDs of its first line.
func (s *Server) created(ctx context.Context, args []string, n int) ([]string, error) {
	out, err := s.do(ctx, args...)
	if err != nil {
		return nil, err
	}
	line, _, _ := strings.Cut(string(out), "\n")
	ids := strings.Fields(line)
	if len(ids) != n {
		return nil, fmt.Errorf("supervisor: %s printed %q, want %d IDs", args[0], line, n)
	}
	return ids, nil
}
