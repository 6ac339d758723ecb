// Package journal keeps a record of every tmux server tmux-mcp supervises,
// in one bbolt file per user, and restores a server's sessions, windows and
// panes from it after the server died.
//
// Where to start: [Open] and [Options]; [Journal.Watch] takes snapshots
// after every structural change; [Journal.Restore] implements
// supervisor.Restorer; [Plan] is the restore plan, a pure function of a
// snapshot and the live state; [Journal.Resolve] maps an ID of a dead
// server to the object that replaced it.
//
// # Sharing the file
//
// Several tmux-mcp processes (one per agent is normal) use one journal at
// the same time. bbolt holds an exclusive flock for as long as a
// read-write handle is open, so no process keeps the file open: every
// transaction opens it, takes the lock (waiting at most
// [Options.LockTimeout], polling finely rather than bbolt's 50 ms), runs
// one short Update or View and closes it again. Events are queued and
// written in batches by one goroutine per process, so a tool call never
// waits for the file. A process killed in the middle of a write loses
// nothing that was committed: bbolt writes the data pages, syncs, then
// writes the meta page and syncs, and the kernel drops a dead process's
// flock.
//
// A file that cannot be read as a journal (garbage, truncated, failing
// bbolt's consistency check, a page fault in the mapping) is renamed to
// PATH.corrupt-<time> with a warning and a fresh journal is started.
// Errors of the environment (permissions, a full disk, a lock that was
// not released in time) never move the file. Nothing in the server
// depends on the journal being healthy: its errors are logged and the
// tools and the supervisor carry on.
//
// # File format (version 2)
//
//	meta/
//	  version            "1"
//	  created            RFC 3339 time
//	servers/
//	  <socket path>/     one bucket per tmux server, keyed by its resolved socket path
//	    info             JSON serverInfo: socket, current instance, restore marker
//	    snapshots/       8-byte big-endian sequence -> JSON Snapshot
//	    events/          8-byte big-endian sequence -> JSON Record
//	    ids/             old ID ("$3", "@7", "%12") -> JSON Mapping
//	    created/         pane ID -> JSON Created (argv, cwd, environment tmux-mcp used)
//	    jobs/            job ID -> JSON jobrecord.Record (background commands and task calls: state, exit status, last output tail)
//
// Sequences come from the bucket's NextSequence, so keys are unique and
// ascending across processes. A file whose version is older than
// [FormatVersion] is migrated in one transaction when it is opened (the
// migrations list holds one step per version); a file written by a newer
// tmux-mcp is left alone and the journal is off for this process.
// Version 2 added jobs/.
//
// # Retention
//
// Snapshots equal to the previous one (ignoring when they were taken and
// how much history the panes hold) are not stored. The last
// [Options.KeepSnapshots] snapshots of each server are kept, events for
// [Options.KeepEvents], and every running job with the last 200 that
// ended. A job's record holds no command line, but its last output tail is
// pane text, kept like the environment values of created/ in the 0600
// file. bbolt files never shrink by themselves: [Journal.Compact]
// rewrites the file.
//
// # Bounds
//
// Names, titles and directories come from tmux, and anyone who can type
// into a pane can make them large. A snapshot keeps names, titles and the
// foreground program's name up to 1 KiB (cut), and directories, start
// commands and argv (4 KiB, 256 arguments) and layouts (64 KiB) only
// whole (a longer one is left out); a Created record keeps 64 KiB (the
// environment values go first); an event's detail 1 KiB. A snapshot
// larger than [MaxSnapshotBytes] as JSON is not stored. The file is
// bounded by [Options.MaxBytes]: past it, the oldest events, then the
// oldest snapshots (never a server's latest), then the servers least
// recently snapshotted go until the rest fits in half of it, and the file
// is rewritten (bounds.go).
package journal
