package drive

import (
	"fmt"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/supervisor"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// The refusals and failures of pane driving that a caller reports as its
// own: each says what happened to which pane; tools turns them into tool
// errors (their class and what to do next).

// PaneGoneError: the pane is not there; it went away during a wait when
// During is set. errors.Is(err, tmux.ErrPaneNotFound) holds.
type PaneGoneError struct {
	Pane   tmux.PaneID
	During bool
}

func (e *PaneGoneError) Error() string {
	if e.During {
		return fmt.Sprintf("Pane not found: %s (it went away during the wait)", e.Pane)
	}
	return "Pane not found: " + string(e.Pane)
}

func (e *PaneGoneError) Unwrap() error { return tmux.ErrPaneNotFound }

// DeadError: the pane's process has exited. Unsent: nothing was sent to
// it (a run refused); else a baseline taken before it died is lost.
type DeadError struct {
	Pane   tmux.PaneID
	Unsent bool
}

func (e *DeadError) Error() string {
	if e.Unsent {
		return fmt.Sprintf("pane %s is dead; nothing was sent", e.Pane)
	}
	return fmt.Sprintf("pane %s died; cursor/baseline anchor is no longer valid", e.Pane)
}

// RespawnedError: the pane's process changed from Was to Now since the
// baseline was taken.
type RespawnedError struct {
	Pane     tmux.PaneID
	Was, Now int
}

func (e *RespawnedError) Error() string {
	return fmt.Sprintf("pane %s was respawned (pid %d -> %d); cursor/baseline anchor is no longer valid", e.Pane, e.Was, e.Now)
}

// ShellError: the pane's program is a shell whose syntax is not sh's; a
// run typed nothing.
type ShellError struct {
	Pane  tmux.PaneID
	Shell string
}

func (e *ShellError) Error() string {
	return fmt.Sprintf("pane %s runs %s; run_command needs a POSIX shell at the prompt (sh, bash, zsh, ksh); nothing was sent", e.Pane, e.Shell)
}

// SentError: a run's line was sent, but its result could not be read
// (Err): the command may have run, and must not be taken for one that did
// not and sent again.
type SentError struct {
	Pane tmux.PaneID
	Err  error
}

func (e *SentError) Error() string {
	return fmt.Sprintf("the command was sent to pane %s and may have run, but its result could not be read: %v", e.Pane, e.Err)
}

func (e *SentError) Unwrap() error { return e.Err }

// RangeError: the supervisor refused a capture's range (Err is
// supervisor.ErrInvalidArgument's).
type RangeError struct{ Err error }

func (e *RangeError) Error() string {
	return strings.TrimPrefix(e.Err.Error(), supervisor.ErrInvalidArgument.Error()+": ")
}

func (e *RangeError) Unwrap() error { return e.Err }
