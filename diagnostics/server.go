package diagnostics

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/tmux-mcp/tmux-mcp/proc"
	"github.com/tmux-mcp/tmux-mcp/supervisor/death"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// serverFacts is everything gathered about one socket before any check
// runs; the checks and the verdict are functions of it.
type serverFacts struct {
	sock  tmux.Socket
	path  string
	named bool // -L name: tmux checks the directory's owner and mode

	dir        os.FileInfo
	dirErr     error
	file       os.FileInfo
	fileErr    error
	times      fileTimes
	connectErr error // proc.ProbeSocket

	procs []procFacts // live processes listening on the path

	ans          *answer // the tmux probe's answer
	probeErr     error
	probeSkipped string // why no tmux client was sent

	zombie    *zombie
	kernel    *kernelRecord // how the kernel logged the server's end
	kernelErr error         // why the kernel log could not be read
	journal   *journalFacts
	client    tmux.Version // the tmux binary's version; zero if unknown
	now       time.Time
	goos      string
}

// connectTimeout bounds the raw connect to a socket: a live server's
// kernel accepts into its backlog at once, even when it is stopped.
const connectTimeout = 500 * time.Millisecond

// gather looks at the server on sock without ever starting one: stat the
// directory and the socket file, connect() and hang up, read /proc, and
// only when something accepts connections, send it one tmux client with a
// deadline (and not even that when the client's fds could tip a server at
// its fd limit into livelock).
func gather(ctx context.Context, o Options, sock tmux.Socket, client tmux.Version, left leftovers) *serverFacts {
	f := &serverFacts{sock: sock, path: sock.ResolvedPath(), named: sock.Name != "", client: client, now: o.Now(), goos: o.Machine.GOOS}
	f.dir, f.dirErr = os.Stat(filepath.Dir(f.path))
	f.file, f.fileErr = os.Lstat(f.path)
	if f.fileErr == nil {
		f.times = statTimes(f.file)
	}
	var live []int
	for _, pid := range proc.ListenerPIDs(f.path) {
		if proc.PIDAlive(pid, 0) {
			live = append(live, pid)
		}
	}
	// Watch the processes before connecting: a connection wakes the
	// server, and an idle server must look idle.
	f.procs = inspectProcesses(ctx, o.Machine, live)
	f.connectErr = proc.ProbeSocket(ctx, f.path, connectTimeout)
	if errors.Is(f.connectErr, syscall.ECONNREFUSED) && len(f.procs) > 0 {
		f.procs = stillListening(f.procs, proc.ListenerPIDs(f.path))
	}
	f.journal = readJournal(o.Journal, f.path, f.now.Add(-o.Since))

	if f.connectErr == nil {
		if why := probeRisk(f.procs); why != "" {
			f.probeSkipped = why
		} else {
			f.ans, f.probeErr = probe(ctx, o.Binary, sock, o.ProbeTimeout)
		}
	}
	if len(f.procs) == 0 && f.ans == nil {
		jpid, jstart := f.journal.lastServer()
		var made time.Time
		uid := -1
		if f.fileErr == nil {
			made = f.times.Mtime
			if st, ok := f.file.Sys().(*syscall.Stat_t); ok {
				uid = int(st.Uid)
			}
		}
		if z, ok := matchZombie(left.zombies(), jpid, jstart, made, uid); ok {
			f.zombie = &z
		} else if jpid > 0 {
			// Reaped, but the journal named it: the kernel may have
			// logged how it ended.
			recs, err := left.kernel()
			if r, ok := kernelRecordOf(recs, jpid, jstart); ok {
				f.kernel = &r
			} else {
				f.kernelErr = err
			}
		}
	}
	return f
}

// stillListening keeps those of procs (seen holding the path's listening
// socket before the connect) that hold it still (now, read after the
// connect was refused). One that let go in between held it only in
// passing: a fork of a server killed before the fork could exec holds
// the server's listening socket until it does, and as the child of init
// or a subreaper it does not look like a fork (proc.UnixListeners). Kept,
// it would read as a server that listens while its socket file was
// replaced, and hide the dead server's zombie and exit status (seen on a
// loaded machine: TestGoldenKilled on next-3.8).
func stillListening(procs []procFacts, now []int) []procFacts {
	var out []procFacts
	for _, p := range procs {
		if slices.Contains(now, p.PID) {
			out = append(out, p)
		}
	}
	return out
}

// leftovers reads what outlives a dead server, once per run and only when
// a dead server needs it: unreaped zombies, and the kernel's log.
type leftovers struct {
	zombies func() []zombie
	kernel  func() ([]kernelRecord, error)
}

func newLeftovers(m Machine) leftovers {
	return leftovers{
		zombies: sync.OnceValue(func() []zombie { return tmuxZombies(m) }),
		kernel:  sync.OnceValues(func() ([]kernelRecord, error) { return readKernelLog(m) }),
	}
}

// fdsPerClient is what a tmux client costs the server while it runs: its
// socket, and the stdin and stdout it passes.
const fdsPerClient = 3

// probeRisk returns why no tmux client may be sent to the server: one
// costs it three fds, and a server that reaches its limit livelocks for
// good. A server already spinning at its limit is past saving, and only a
// new client can show that it no longer answers.
func probeRisk(procs []procFacts) string {
	for _, p := range procs {
		r := p.Res
		if r.FDLimit == 0 || p.ResErr != nil || p.Spinning {
			continue
		}
		if r.FDRatio() >= death.FDLivelockRatio || uint64(r.FDs+fdsPerClient) >= r.FDLimit {
			return fmt.Sprintf("not probed with a tmux client: server PID %d has %d of %d fds open, and a client would add %d and could push it into livelock",
				p.PID, r.FDs, r.FDLimit, fdsPerClient)
		}
	}
	return ""
}

// mainProc returns the live process that serves the socket path: the one
// that answered, else the only listener.
func (f *serverFacts) mainProc() *procFacts {
	if f.ans != nil {
		for i := range f.procs {
			if f.procs[i].PID == f.ans.PID {
				return &f.procs[i]
			}
		}
	}
	if len(f.procs) == 1 {
		return &f.procs[0]
	}
	return nil
}

// orphans returns the live listeners on the path that are not the server
// the socket file leads to: servers whose socket was replaced.
func (f *serverFacts) orphans() []procFacts {
	if f.ans == nil || len(f.procs) < 2 {
		return nil
	}
	var out []procFacts
	for _, p := range f.procs {
		if p.PID != f.ans.PID {
			out = append(out, p)
		}
	}
	return out
}

// pid returns the server's PID: live, zombie, or the journal's.
func (f *serverFacts) pid() int {
	switch {
	case f.ans != nil:
		return f.ans.PID
	case f.mainProc() != nil:
		return f.mainProc().PID
	case f.zombie != nil:
		return f.zombie.PID
	case f.kernel != nil:
		return f.kernel.PID
	}
	pid, _ := f.journal.lastServer()
	return pid
}

// traceless reports that there is no server and no sign that one ran:
// no socket file, no listener, no zombie, nothing in the journal.
func (f *serverFacts) traceless() bool {
	_, died := f.journal.lastDeath()
	jpid, _ := f.journal.lastServer()
	return errors.Is(f.fileErr, os.ErrNotExist) && len(f.procs) == 0 && f.zombie == nil && !died && jpid == 0
}

// state names the server's condition in a few words.
func (f *serverFacts) state() string {
	switch {
	case f.ans != nil:
		return "answering"
	case len(f.procs) > 0 && errors.Is(f.connectErr, os.ErrNotExist):
		return "socket missing"
	case f.probeSkipped != "":
		return "alive, not probed"
	case len(f.procs) > 0:
		return "not answering"
	case f.traceless():
		return "not running"
	}
	return "dead"
}

// serverReport runs the checks on what gather found and classifies the
// server.
func serverReport(ctx context.Context, o Options, f *serverFacts) ServerReport {
	sr := ServerReport{Socket: f.sock.String(), Path: f.path, State: f.state(), PID: f.pid()}
	if f.ans != nil {
		sr.Version = f.ans.Version
	}
	if !f.traceless() {
		sr.Verdict = verdict(f, o.ProbeTimeout)
	}
	sr.Checks = []Check{checkSocketDir(f), checkSocketFile(f)}
	if !o.All {
		sr.Checks = append(sr.Checks, checkSiblings(ctx, f))
	}
	sr.Checks = append(sr.Checks, checkCleaner(o.Machine, f.path, f.fileErr == nil, f.times, f.now))
	if f.traceless() {
		// Nothing ran here: the checks of a server would all be skipped.
		sr.Checks = append(sr.Checks, checkJournalServer(f.journal, f.now, o.Since))
	} else {
		sr.Checks = append(sr.Checks,
			checkProcess(f),
			checkServerVersion(f),
			checkServerKnownBad(f),
			checkExitOptions(f),
			checkHistory(f, memTotal(o.Machine)),
			checkJournalServer(f.journal, f.now, o.Since),
			checkSupervisor(o.Health, f.path),
		)
	}
	sr.Status = verdictStatus(sr.Verdict)
	for _, c := range sr.Checks {
		sr.Status = worse(sr.Status, c.Status)
	}
	return sr
}
