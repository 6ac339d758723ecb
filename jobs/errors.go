package jobs

import (
	"errors"
	"fmt"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// Errors of [Table.Lookup].
var (
	// ErrInvalidID: the string is not a job ID (j and 10 hex digits).
	ErrInvalidID = errors.New("jobs: not a job ID")
	// ErrNotFound: no job of this process has the ID.
	ErrNotFound = errors.New("jobs: job not found")
	// ErrTooManyCalls refuses a call when MaxCalls run ([Table.StartCall]).
	ErrTooManyCalls = errors.New("jobs: as many calls run as the table holds")
)

// BusyError refuses a pane where a job runs ([Table.Reserve],
// [Table.CheckFree]).
type BusyError struct {
	Pane tmux.PaneID
	Job  string // the running job's ID
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("jobs: pane %s is busy: job %s runs there", e.Pane, e.Job)
}

// LimitError refuses a job on a server that runs [MaxPerServer] jobs
// already ([Table.Reserve]).
type LimitError struct {
	Running int // the jobs that run on the server
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("jobs: %d jobs already run on this tmux server", e.Running)
}
