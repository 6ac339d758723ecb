package diagnostics

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tmux-mcp/tmux-mcp/proc"
	"github.com/tmux-mcp/tmux-mcp/shellquote"
	"github.com/tmux-mcp/tmux-mcp/supervisor/death"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// checkSocketDir checks the socket's directory: it exists, belongs to us,
// and gives others no permissions (tmux refuses -L and default sockets in
// a directory that does: "directory ... has unsafe permissions").
func checkSocketDir(f *serverFacts) Check {
	c := Check{ID: "socket.dir", Title: "Socket directory"}
	dir := filepath.Dir(f.path)
	c.fact("path", dir)
	if f.dirErr != nil {
		switch {
		case !errors.Is(f.dirErr, os.ErrNotExist):
			c.Status, c.Summary = StatusWarn, "cannot look at it: "+f.dirErr.Error()
		case len(f.procs) > 0:
			c.Status = StatusFail
			c.Summary = fmt.Sprintf("missing while server PID %d runs: SIGUSR1 cannot recreate the socket until it exists", f.procs[0].PID)
			c.Remedy = "create the directory (mode 0700), then send the server SIGUSR1"
			c.Commands = []string{"mkdir -p -m 700 " + shellquote.Quote(dir), "kill -USR1 " + strconv.Itoa(f.procs[0].PID)}
		default:
			c.Status, c.Summary = StatusOK, "does not exist (tmux creates it for the next server)"
		}
		return c
	}
	if !f.dir.IsDir() {
		c.Status, c.Summary = StatusFail, "is not a directory"
		c.Remedy = "move it away: tmux needs a directory here"
		return c
	}
	mode := f.dir.Mode()
	c.fact("mode", fmt.Sprintf("%04o", mode.Perm()|stickyBit(mode)))
	uid := -1
	if st, ok := f.dir.Sys().(*syscall.Stat_t); ok {
		uid = int(st.Uid)
		c.fact("owner uid", uid)
	}
	euid := os.Geteuid()
	foreign := uid >= 0 && uid != euid
	others := mode.Perm()&0o007 != 0
	switch {
	case f.named && (foreign || others):
		c.Status = StatusFail
		c.Summary = fmt.Sprintf("unsafe permissions: tmux refuses every -L or default socket in it (\"directory %s has unsafe permissions\")", dir)
		if foreign {
			c.Summary += fmt.Sprintf("; owned by uid %d, not %d", uid, euid)
		}
		c.Remedy = "give the directory back to its user, without permissions for others; the server itself is not affected"
		c.Commands = []string{"chmod 700 " + shellquote.Quote(dir)}
		if foreign {
			c.Commands = append([]string{fmt.Sprintf("sudo chown %d %s", euid, shellquote.Quote(dir))}, c.Commands...)
		}
	case mode.Perm()&0o002 != 0 && mode&os.ModeSticky == 0:
		c.Status = StatusWarn
		c.Summary = "writable by everyone without the sticky bit: anyone can delete or replace the socket"
		c.Commands = []string{"chmod 700 " + shellquote.Quote(dir)}
	default:
		c.Status, c.Summary = StatusOK, fmt.Sprintf("mode %04o, owner uid %d", mode.Perm()|stickyBit(mode), uid)
	}
	return c
}

func stickyBit(m os.FileMode) os.FileMode {
	if m&os.ModeSticky != 0 {
		return 0o1000
	}
	return 0
}

// connectResult describes a ProbeSocket result, with what a tmux client
// prints in the same case (tmux-failure-modes.md section 1.0).
func connectResult(err error, path string) (result, tmuxSays string) {
	switch {
	case err == nil:
		return "accepted", ""
	case errors.Is(err, syscall.ENOENT):
		return "no such file (ENOENT)", "error connecting to " + path + " (No such file or directory)"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "refused (ECONNREFUSED): nothing listens", "no server running on " + path
	case errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM):
		return "permission denied", "error connecting to " + path + " (Permission denied)"
	case errors.Is(err, syscall.EAGAIN):
		return "backlog full (EAGAIN)", "(hangs)"
	case errors.Is(err, os.ErrDeadlineExceeded), errors.Is(err, context.DeadlineExceeded):
		return "timed out", "(hangs)"
	}
	return err.Error(), ""
}

// checkSocketFile checks the socket file: present, a socket, and
// listening; or stale; or missing while its server runs.
func checkSocketFile(f *serverFacts) Check {
	c := Check{ID: "socket.file", Title: "Socket file"}
	c.fact("path", f.path)
	exists := f.fileErr == nil
	if exists {
		c.fact("mode", f.file.Mode().String())
		c.fact("created", f.times.Mtime.UTC().Format(time.RFC3339Nano))
	}
	result, says := connectResult(f.connectErr, f.path)
	c.fact("connect", result)
	if says != "" {
		c.fact("tmux prints", says)
	}
	cmdArgs := strings.Join(shellArgs(f.sock.Args()), " ")
	switch {
	case exists && f.file.Mode()&os.ModeSocket == 0:
		c.Status, c.Summary = StatusFail, "the path is not a socket"
		c.Remedy = "move the file away; the next server can then bind its socket"
	case f.connectErr == nil:
		c.Status, c.Summary = StatusOK, "present and accepting connections"
	case errors.Is(f.connectErr, syscall.ENOENT) && len(f.procs) > 0:
		pid := f.procs[0].PID
		c.Status, c.cause = StatusFail, string(death.CauseSocketDeleted)
		c.Summary = fmt.Sprintf("missing while server PID %d still listens on it: the server is alive and unreachable (orphaned)", pid)
		c.Remedy = "send the server SIGUSR1: it creates the socket again. Do not run new-session (or anything that starts a server) on this socket before: it would start a second, empty server and orphan this one for good"
		if f.dirErr != nil {
			c.Commands = append(c.Commands, "mkdir -p -m 700 "+shellquote.Quote(filepath.Dir(f.path)))
		}
		c.Commands = append(c.Commands, "kill -USR1 "+strconv.Itoa(pid), "tmux "+cmdArgs+" ls")
	case errors.Is(f.connectErr, syscall.ENOENT):
		c.Status, c.Summary = StatusOK, "no socket file, and no process listens on the path"
	case errors.Is(f.connectErr, syscall.ECONNREFUSED) && len(f.procs) > 0:
		c.Status = StatusFail
		c.Summary = fmt.Sprintf("refuses connections although server PID %d listens on this path: the file was replaced", f.procs[0].PID)
		c.Remedy = "send the server SIGUSR1 to bind the path again"
		c.Commands = []string{"kill -USR1 " + strconv.Itoa(f.procs[0].PID)}
	case errors.Is(f.connectErr, syscall.ECONNREFUSED):
		c.Status, c.cause = StatusWarn, causeEvidence
		c.Summary = "stale: the server that made it is gone (tmux never removes its socket)"
		c.Remedy = "nothing to clean up: the next server started on this path replaces the file"
	case errors.Is(f.connectErr, syscall.EACCES), errors.Is(f.connectErr, syscall.EPERM):
		c.Status, c.Summary = StatusFail, "we may not connect: wrong owner or mode on the socket or its directory"
		c.Commands = []string{"ls -la " + shellquote.Quote(filepath.Dir(f.path))}
	default:
		c.Status, c.Summary = StatusWarn, "connect did not complete: the server's accept backlog is full or it is not accepting ("+result+")"
	}
	return c
}

// checkSiblings lists the other socket files in the directory that nobody
// listens on: each is a server that died.
func checkSiblings(ctx context.Context, f *serverFacts) Check {
	c := Check{ID: "socket.others", Title: "Other sockets in the directory"}
	dir := filepath.Dir(f.path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		c.Status, c.Summary = StatusSkipped, "skipped: cannot read "+dir
		return c
	}
	var live, stale []string
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if p == f.path || e.Type()&os.ModeSocket == 0 {
			continue
		}
		if proc.ProbeSocket(ctx, p, connectTimeout) == nil {
			live = append(live, e.Name())
		} else if len(proc.ListenerPIDs(p)) == 0 {
			stale = append(stale, e.Name())
		}
	}
	sort.Strings(live)
	sort.Strings(stale)
	if len(live) > 0 {
		c.fact("live", strings.Join(live, " "))
	}
	if len(stale) > 0 {
		c.fact("stale", strings.Join(stale, " "))
	}
	switch {
	case len(stale) > 0:
		c.Status = StatusWarn
		c.Summary = fmt.Sprintf("%d stale socket(s) (servers that died): %s", len(stale), strings.Join(stale, ", "))
		c.Remedy = "diagnose them with --all; remove a stale socket only once no process listens on it"
		c.Commands = []string{"tmux-mcp diagnose --all"}
	case len(live) > 0:
		c.Status, c.Summary = StatusOK, fmt.Sprintf("%d other live server(s): %s", len(live), strings.Join(live, ", "))
	default:
		c.Status, c.Summary = StatusOK, "no other sockets"
	}
	return c
}

// discover lists the servers --all diagnoses besides the named ones: the
// sockets in this user's socket directory, the servers that still listen
// on a path in it after their socket file was deleted, and the servers
// the journal knows. Servers of other users, and -S sockets elsewhere that
// the journal does not know, are left alone.
func discover(named []tmux.Socket, j Journal) []tmux.Socket {
	dir := filepath.Dir(tmux.Socket{Name: "default"}.ResolvedPath())
	seen := map[string]bool{}
	var out []tmux.Socket
	add := func(s tmux.Socket) {
		if p := s.ResolvedPath(); !seen[p] && s.Validate() == nil {
			seen[p] = true
			out = append(out, s)
		}
	}
	byPath := func(p string) tmux.Socket {
		if filepath.Dir(p) == dir {
			return tmux.Socket{Name: filepath.Base(p)}
		}
		return tmux.Socket{Path: p}
	}
	for _, s := range named {
		add(s)
	}
	if entries, err := os.ReadDir(dir); err == nil {
		for _, e := range entries {
			if e.Type()&os.ModeSocket != 0 {
				add(tmux.Socket{Name: e.Name()})
			}
		}
	}
	listeners := proc.UnixListeners(func(p string) bool { return filepath.Dir(p) == dir })
	for _, p := range sortedKeys(listeners) {
		for _, pid := range listeners[p] {
			if isTmuxServer(comm(pid)) {
				add(byPath(p))
				break
			}
		}
	}
	if j != nil {
		if paths, err := j.Servers(); err == nil {
			for _, p := range paths {
				add(byPath(p))
			}
		}
	}
	return out
}
