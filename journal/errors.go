package journal

import (
	"errors"

	"github.com/tmux-mcp/tmux-mcp/journal/filelock"
)

// Errors of opening and using the file.
var (
	// ErrOff is returned by every method of a nil *Journal: the journal is
	// turned off (--journal off) or could not be opened.
	ErrOff = errors.New("journal: off")
	// ErrLocked is returned when another process held the file's lock for
	// longer than Options.LockTimeout.
	ErrLocked = filelock.ErrLocked
	// ErrCorrupt is returned when the file cannot be read as a journal. Open
	// moves such a file aside and starts a fresh one.
	ErrCorrupt = errors.New("journal: file corrupt")
	// ErrNewerFormat is returned for a file written by a newer tmux-mcp. It
	// is left alone.
	ErrNewerFormat = errors.New("journal: file written by a newer tmux-mcp")
)

// Errors of reading.
var (
	// ErrNoSnapshot is returned when a server has no snapshot to show or to
	// restore from.
	ErrNoSnapshot = errors.New("journal: no snapshot")
)
