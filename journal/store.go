package journal

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/tmux-mcp/tmux-mcp/journal/filelock"
	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
	"golang.org/x/sys/unix"
)

// Options configures a Journal. Zero fields take the defaults documented
// on each field.
type Options struct {
	// Logger receives warnings (a file moved aside, writes that failed).
	// nil discards them.
	Logger *slog.Logger
	// LockTimeout bounds how long one transaction waits for another
	// process to release the file (2s).
	LockTimeout time.Duration
	// KeepSnapshots is how many snapshots are kept per server (50).
	KeepSnapshots int
	// KeepEvents is how long events are kept (7 days).
	KeepEvents time.Duration
	// Debounce is how long a snapshot waits after a structural change for
	// further changes (200ms); MaxDelay bounds that wait under a stream of
	// changes (2s).
	Debounce time.Duration
	MaxDelay time.Duration
	// Interval is how often a server with unrecorded changes (a command
	// that may have changed a pane's directory, title or program) is
	// snapshotted (10s). Refresh is how often it is snapshotted anyway
	// (1m): equal snapshots cost a tmux call and no write.
	Interval time.Duration
	Refresh  time.Duration
	// RestoreCommands re-runs every pane's command on restore. Without it
	// only panes created with the restore flag get their command back.
	RestoreCommands bool
	// ResumeAgents starts each agent CLI a restored pane ran (Claude Code,
	// Codex CLI) again with its own resume of the conversation it was
	// writing to. Off, a restored agent pane gets a shell in its directory.
	ResumeAgents bool
	// EnvNamesOnly keeps the values of the environment tmux-mcp gave a
	// pane (create_session's environment) out of the journal: only the
	// names are stored, and a restored pane goes without those variables.
	// Otherwise values are stored in plain text in the 0600 journal file.
	EnvNamesOnly bool
	// CommandNamesOnly keeps command lines out of the snapshots: a pane's
	// foreground process is stored by name only (no argv, which may hold
	// a --password=...), and so is the command a pane was started with.
	// --restore-commands then re-runs only panes tmux-mcp created (their
	// Created record keeps the argv it was asked to run).
	CommandNamesOnly bool
	// MaxQueue bounds the events waiting to be written (10,000); beyond it
	// the oldest are dropped and counted.
	MaxQueue int
	// MaxBytes bounds the file (DefaultMaxBytes, 64 MiB): past it the
	// oldest events and snapshots are dropped and the file rewritten
	// (bounds.go). Negative: no bound.
	MaxBytes int64
}

func (o Options) withDefaults() Options {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.LockTimeout <= 0 {
		o.LockTimeout = 2 * time.Second
	}
	if o.KeepSnapshots <= 0 {
		o.KeepSnapshots = 50
	}
	if o.KeepEvents <= 0 {
		o.KeepEvents = 7 * 24 * time.Hour
	}
	if o.Debounce <= 0 {
		o.Debounce = 200 * time.Millisecond
	}
	if o.MaxDelay < o.Debounce {
		o.MaxDelay = max(2*time.Second, o.Debounce)
	}
	if o.Interval <= 0 {
		o.Interval = 10 * time.Second
	}
	if o.Refresh <= 0 {
		o.Refresh = time.Minute
	}
	if o.MaxQueue <= 0 {
		o.MaxQueue = 10000
	}
	if o.MaxBytes == 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	return o
}

// Journal is one journal file, shared with other processes. Its methods are
// safe for concurrent use. A nil *Journal is a journal that is off: its
// methods do nothing and return ErrOff.
type Journal struct {
	path string
	opts Options
	log  *slog.Logger

	// txMu serialises this process's transactions: two open handles in one
	// process would only wait for each other's flock.
	txMu sync.Mutex
	// bounding is held while the file is brought back under MaxBytes.
	bounding sync.Mutex
	w        *writer
	// locks counts the lock waits this journal gave up on (flock.go).
	locks filelock.Waits

	mu      sync.Mutex
	servers map[string]*serverState // by socket path

	// ids caches each server's old-to-new ID map (see Resolve).
	idMu sync.Mutex
	ids  map[string]idCache // by socket path
}

// DefaultPath returns where the journal lives by default:
// $XDG_STATE_HOME/tmux-mcp/journal.db, ~/.local/state/tmux-mcp/journal.db
// when XDG_STATE_HOME is unset.
func DefaultPath(getenv func(string) string) (string, error) {
	dir := getenv("XDG_STATE_HOME")
	if dir == "" {
		home := getenv("HOME")
		if home == "" {
			var err error
			if home, err = os.UserHomeDir(); err != nil {
				return "", fmt.Errorf("journal: no state directory: %w", err)
			}
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "tmux-mcp", "journal.db"), nil
}

// Open opens the journal at path, creating it (and its directory) if
// needed, migrating an older format and checking the file's consistency.
// A file that is not readable as a journal is moved aside and a fresh one
// started. The file is not held open: see the package documentation.
// Close stops the background writer.
func Open(path string, opts *Options) (*Journal, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	o = o.withDefaults()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	j := &Journal{path: path, opts: o, log: o.Logger, servers: map[string]*serverState{}}
	// Check once per process, before writing anything: a file that fails
	// is moved aside as it was found.
	if fi, err := os.Stat(path); err == nil && fi.Size() > 0 {
		if err := j.withDB(true, checkDB, true); err != nil {
			return nil, err
		}
	}
	if err := j.update(func(*bolt.Tx) error { return nil }); err != nil {
		return nil, err
	}
	j.w = newWriter(j)
	return j, nil
}

// Path returns the journal file's path.
func (j *Journal) Path() string {
	if j == nil {
		return ""
	}
	return j.path
}

// Close writes what is queued (waiting at most LockTimeout for the file)
// and stops the background writer. The journal must not be used after.
func (j *Journal) Close() error {
	if j == nil {
		return nil
	}
	return j.w.close()
}

// update runs fn in a read-write transaction of its own, with the layout
// in place.
func (j *Journal) update(fn func(tx *bolt.Tx) error) error {
	return j.withDB(false, func(db *bolt.DB, _ *os.File) error {
		return db.Update(func(tx *bolt.Tx) error {
			if err := ensureLayout(tx); err != nil {
				return err
			}
			return fn(tx)
		})
	}, true)
}

// view runs fn in a read-only transaction. servers is nil in a file that
// holds nothing yet.
func (j *Journal) view(fn func(servers *bolt.Bucket) error) error {
	return j.withDB(true, func(db *bolt.DB, _ *os.File) error {
		return db.View(func(tx *bolt.Tx) error {
			if err := checkLayout(tx); err != nil {
				return err
			}
			return fn(tx.Bucket(bucketServers))
		})
	}, true)
}

func initOnly(db *bolt.DB, _ *os.File) error {
	return db.Update(ensureLayout)
}

// withDB runs fn on a freshly opened, locked handle. When the file turns
// out to be corrupt and reset is set, it is moved aside, a fresh one is
// initialised and fn runs once more.
func (j *Journal) withDB(readOnly bool, fn func(*bolt.DB, *os.File) error, reset bool) error {
	j.txMu.Lock()
	defer j.txMu.Unlock()
	ino, err := j.once(readOnly, fn)
	if !reset || !errors.Is(err, ErrCorrupt) || ino == 0 {
		return err
	}
	if merr := j.moveAside(ino, err); merr != nil {
		return errors.Join(err, merr)
	}
	if _, err := j.once(false, initOnly); err != nil {
		return err
	}
	_, err = j.once(readOnly, fn)
	return err
}

// once opens the file, locks it, checks that it is not truncated, runs fn
// and closes it. It returns the inode it worked on. A panic or a memory
// fault while reading the file (a corrupt page, a mapping beyond a
// truncated end) is returned as ErrCorrupt.
func (j *Journal) once(readOnly bool, fn func(*bolt.DB, *os.File) error) (ino uint64, err error) {
	deadline := time.Now().Add(j.opts.LockTimeout)
	var f *os.File
	var db *bolt.DB
	defer func() {
		if r := recover(); r != nil {
			if db != nil {
				db.Close() //nolint:errcheck // the panic is the error
			}
			if f != nil {
				// A panic inside bolt.Open leaves its mapping of the file
				// behind, and a mapping keeps the file's lock: release
				// the lock itself.
				unix.Flock(int(f.Fd()), unix.LOCK_UN) //nolint:errcheck // may be closed already
				f.Close()                             //nolint:errcheck // may be closed already
			}
			err = fmt.Errorf("%w: %v", ErrCorrupt, r)
		}
	}()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	opts := &bolt.Options{
		ReadOnly: readOnly,
		Timeout:  j.opts.LockTimeout,
		OpenFile: func(name string, flag int, mode os.FileMode) (*os.File, error) {
			var err error
			f, err = j.locks.Open(name, flag, mode, deadline)
			if err == nil {
				ino, err = fileInode(f)
			}
			return f, err
		},
	}
	db, err = bolt.Open(j.path, 0o600, opts)
	if err != nil {
		db = nil
		if environmental(err) {
			return ino, fmt.Errorf("journal: open %s: %w", j.path, err)
		}
		return ino, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	err = checkSize(db, f)
	if err == nil {
		err = fn(db, f)
	}
	if cerr := db.Close(); cerr != nil && err == nil {
		err = fmt.Errorf("journal: close: %w", cerr)
	}
	return ino, err
}

// checkSize refuses a file shorter than its meta page says: reading the
// missing pages would fault.
func checkSize(db *bolt.DB, f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return db.View(func(tx *bolt.Tx) error {
		if tx.Size() > fi.Size() {
			return fmt.Errorf("%w: truncated: %d bytes, %d expected", ErrCorrupt, fi.Size(), tx.Size())
		}
		return nil
	})
}

// environmental reports whether err comes from the surroundings (file
// system, permissions, a lock held elsewhere) rather than from the file's
// content. Such errors never move the file aside.
func environmental(err error) bool {
	var pe *fs.PathError
	var errno syscall.Errno
	return errors.Is(err, ErrLocked) || errors.Is(err, berrors.ErrTimeout) || errors.As(err, &pe) || errors.As(err, &errno)
}

// moveAside renames the corrupt file (inode ino) to PATH.corrupt-TIME-PID,
// holding its lock so that no other process is using it. A file that was
// already replaced by another process is left alone.
func (j *Journal) moveAside(ino uint64, cause error) error {
	f, err := j.locks.Open(j.path, os.O_RDONLY, 0, time.Now().Add(j.opts.LockTimeout))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("journal: move aside: %w", err)
	}
	defer f.Close()
	if got, err := fileInode(f); err != nil || got != ino {
		return err // someone else dealt with it
	}
	dst := j.path + ".corrupt-" + time.Now().UTC().Format("20060102T150405.000") + "-" + strconv.Itoa(os.Getpid())
	if err := os.Rename(j.path, dst); err != nil {
		return fmt.Errorf("journal: move aside: %w", err)
	}
	j.log.Warn("journal: the file was not readable; moved it aside and started a fresh journal",
		"path", j.path, "moved_to", dst, "cause", cause.Error())
	return nil
}

func fileInode(f *os.File) (uint64, error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ino, nil
	}
	return 0, errors.New("journal: no inode")
}
