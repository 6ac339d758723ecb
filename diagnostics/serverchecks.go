package diagnostics

import (
	"fmt"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor/death"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// waitPast tells how a process ended, as a past event.
func waitPast(ws syscall.WaitStatus) string {
	if ws.Signaled() {
		return "was " + waitText(ws)
	}
	return waitText(ws)
}

// waitText explains a wait status.
func waitText(ws syscall.WaitStatus) string {
	switch {
	case ws.Signaled():
		s := fmt.Sprintf("killed by signal %d (%s)", int(ws.Signal()), ws.Signal())
		if ws.CoreDump() {
			s += ", core dumped"
		}
		return s
	case ws.Exited():
		return "exited with status " + strconv.Itoa(ws.ExitStatus())
	}
	return fmt.Sprintf("wait status %#x", uint32(ws))
}

// checkProcess reports the server process(es) on the path: PID, uptime,
// state, fds against its own limit, RSS, threads, CPU; or how it ended.
func checkProcess(f *serverFacts) Check {
	c := Check{ID: "server.process", Title: "Server process"}
	if len(f.procs) == 0 {
		if z := f.zombie; z != nil {
			c.fact("pid", z.PID)
			c.fact("state", stateName('Z'))
			c.fact("exit status", waitText(z.Status))
			c.fact("tied to the socket by", z.MatchedBy)
			if !z.Started.IsZero() {
				c.fact("started", z.Started.UTC().Format(time.RFC3339Nano))
			}
			c.Status, c.cause = StatusFail, causeEvidence
			if z.Status.Exited() && z.Status.ExitStatus() == 0 {
				c.Status = StatusWarn
			}
			c.Summary = fmt.Sprintf("PID %d has ended: %s", z.PID, waitText(z.Status))
			return c
		}
		if f.traceless() {
			c.Status, c.Summary = StatusSkipped, "skipped: no server process, and no trace of one"
			return c
		}
		if k := f.kernel; k != nil {
			c.fact("pid", k.PID)
			c.fact("kernel log", k.Text)
			c.fact("ended", k.Time.UTC().Format(time.RFC3339Nano))
			c.Status, c.cause = StatusFail, causeEvidence
			c.Summary = fmt.Sprintf("PID %d has ended: the kernel logged %s", k.PID, k.Signal)
			return c
		}
		if pid, _ := f.journal.lastServer(); pid > 0 {
			c.fact("last PID (journal)", pid)
		}
		c.fact("zombie", "none found")
		if f.kernelErr != nil {
			c.fact("kernel log", "not readable: "+f.kernelErr.Error())
		}
		c.Status, c.cause = StatusWarn, causeEvidence
		c.Summary = "no process listens on the path, and no exit status survived (the dead server's parent reaped it)"
		return c
	}
	main := f.mainProc()
	c.Status, c.Summary = StatusOK, ""
	for _, p := range f.procs {
		prefix := ""
		if len(f.procs) > 1 {
			prefix = "PID " + strconv.Itoa(p.PID) + " "
		}
		r := p.Res
		c.fact(prefix+"pid", p.PID)
		if !p.Started.IsZero() {
			c.fact(prefix+"uptime", roundDuration(f.now.Sub(p.Started)).String())
		}
		c.fact(prefix+"state", stateName(p.Stat.State))
		if p.ResErr != nil {
			c.fact(prefix+"resources", "not readable: "+p.ResErr.Error())
		} else {
			c.fact(prefix+"fds", fmt.Sprintf("%d of %d (%s)", r.FDs, r.FDLimit, percent(uint64(r.FDs), r.FDLimit)))
			c.fact(prefix+"rss", humanBytes(r.RSS))
			c.fact(prefix+"threads", r.Threads)
			c.fact(prefix+"cpu", fmt.Sprintf("%.0f%% over %v", r.CPUPercent, cpuInterval))
		}
		switch {
		case stopped(p.Stat.State):
			c.Status, c.cause = StatusFail, string(death.CauseHung)
			c.Summary = fmt.Sprintf("PID %d is stopped (state %c, SIGSTOP or a debugger): it answers nothing until it is continued", p.PID, p.Stat.State)
			c.Commands = append(c.Commands, "kill -CONT "+strconv.Itoa(p.PID))
		case p.ResErr == nil && levelStatus(uint64(r.FDs), r.FDLimit) != StatusOK:
			st := levelStatus(uint64(r.FDs), r.FDLimit)
			if p.Spinning {
				st = StatusFail
			}
			if st.severity() > c.Status.severity() {
				c.Status, c.cause = st, string(death.CauseFDLivelock)
				c.Summary = fmt.Sprintf("PID %d has %d of its %d fds open (%s)", p.PID, r.FDs, r.FDLimit, percent(uint64(r.FDs), r.FDLimit))
				if p.Spinning {
					c.Summary += fmt.Sprintf(" and spins (%.0f%% CPU): the signature of fd livelock", r.CPUPercent)
				} else {
					c.Summary += ": at the limit it livelocks for good"
				}
				c.Remedy = "close panes or clients, or restart the server from a shell with a higher limit (ulimit -n); tmux-mcp starts servers with the highest allowed"
			}
		case p.Spinning && c.Status == StatusOK:
			c.Status, c.cause = StatusWarn, "known_bad_version"
			c.Summary = fmt.Sprintf("PID %d spins (%.0f%% CPU, runnable at every sample): busy, or one of the known spin bugs (tmux 3.7.x)", p.PID, r.CPUPercent)
		}
	}
	if orphans := f.orphans(); len(orphans) > 0 {
		var pids []string
		for _, o := range orphans {
			pids = append(pids, strconv.Itoa(o.PID))
		}
		c.Status, c.cause = StatusFail, string(death.CauseSocketDeleted)
		c.Summary = fmt.Sprintf("%d servers claim this path: PID %d answers on it; PID %s lost it (its socket file was replaced) and keeps its sessions unreachable",
			len(f.procs), f.ans.PID, strings.Join(pids, ", "))
		c.Remedy = "SIGUSR1 makes an orphan take the path back (and orphans the server that answers now): save or kill the server you do not need first"
		for _, p := range pids {
			c.Commands = append(c.Commands, "kill -USR1 "+p)
		}
	} else if main == nil && len(f.procs) > 1 {
		c.Status, c.cause = StatusFail, string(death.CauseSocketDeleted)
		c.Summary = fmt.Sprintf("%d servers listen on this path and none answered", len(f.procs))
	}
	if c.Summary == "" {
		p := f.procs[0]
		c.Summary = fmt.Sprintf("PID %d, state %s, %d of %d fds, %s RSS", p.PID, stateName(p.Stat.State), p.Res.FDs, p.Res.FDLimit, humanBytes(p.Res.RSS))
	}
	return c
}

// checkExitOptions reports the options that make a server exit on its
// own, and dead panes kept by remain-on-exit.
func checkExitOptions(f *serverFacts) Check {
	c := Check{ID: "server.options", Title: "Options that end the server"}
	a := f.ans
	if a == nil {
		c.Status, c.Summary = StatusSkipped, "skipped: the server did not answer"
		return c
	}
	c.fact("exit-empty", a.ExitEmpty)
	c.fact("exit-unattached", a.ExitUnattached)
	c.fact("destroy-unattached", a.DestroyUnattached)
	c.fact("remain-on-exit", a.RemainOnExit)
	var dead, remain int
	for _, p := range a.Panes {
		if p.Session == tmux.HiddenSession {
			continue
		}
		if p.Dead {
			dead++
		}
		if on(p.RemainOnExit) {
			remain++
		}
	}
	c.fact("panes with remain-on-exit", remain)
	c.fact("dead panes", dead)
	args := strings.Join(shellArgs(f.sock.Args()), " ")
	var warns []string
	if on(a.ExitUnattached) {
		warns = append(warns, "exit-unattached is on: the server exits as soon as no client is attached (a control-mode client counts)")
		c.Commands = append(c.Commands, "tmux "+args+" set -g exit-unattached off")
	}
	if on(a.DestroyUnattached) {
		warns = append(warns, "destroy-unattached is on: a session is destroyed when its last client detaches, and the server exits with its last session")
		c.Commands = append(c.Commands, "tmux "+args+" set -g destroy-unattached off")
	}
	if len(warns) > 0 {
		c.Status, c.Summary = StatusWarn, strings.Join(warns, "; ")
		c.Remedy = "turn them off unless you want the server to go away on its own"
		return c
	}
	c.Status = StatusOK
	if on(a.ExitEmpty) {
		c.Summary = "exit-empty is on (tmux's default): the server exits when its last session closes, which happens when the command in its last pane exits"
		if remain == 0 {
			c.Summary += " (remain-on-exit is off)"
		}
	} else {
		c.Summary = "exit-empty is off: the server stays up without sessions"
	}
	if dead > 0 {
		c.Summary += fmt.Sprintf("; %d dead pane(s) kept by remain-on-exit hold a pty each", dead)
	}
	return c
}

// bytesPerLine is what a line of history costs the server: measured
// ~182 B for short lines and ~632 B for 100-character lines (tmux 3.3a).
const bytesPerLine = 200

// checkHistory compares the scrollback the server holds, and may hold at
// its history-limit, with the machine's memory.
func checkHistory(f *serverFacts, mem uint64) Check {
	c := Check{ID: "server.history", Title: "Scrollback and memory"}
	a := f.ans
	if a == nil {
		c.Status, c.Summary = StatusSkipped, "skipped: the server did not answer"
		return c
	}
	var total uint64
	var panes, maxLimit int
	for _, p := range a.Panes {
		if p.Session == tmux.HiddenSession {
			continue
		}
		panes++
		total += p.HistoryBytes
		maxLimit = max(maxLimit, p.HistoryLimit)
	}
	worst := uint64(panes) * uint64(max(maxLimit, a.HistoryLimit)) * bytesPerLine
	c.fact("panes", panes)
	c.fact("history-limit", a.HistoryLimit)
	c.fact("history held", humanBytes(total))
	c.fact("history at the limits (~200 B/line)", humanBytes(worst))
	if p := f.mainProc(); p != nil && p.ResErr == nil {
		c.fact("server rss", humanBytes(p.Res.RSS))
	}
	if mem > 0 {
		c.fact("memory", humanBytes(mem))
	}
	c.Status = StatusOK
	c.Summary = fmt.Sprintf("%s of history in %d pane(s)", humanBytes(total), panes)
	switch {
	case mem > 0 && total >= mem/10:
		c.Status = StatusWarn
		c.Summary = fmt.Sprintf("the panes hold %s of history, %s of memory: tmux dies silently when an allocation fails, and the OOM killer sends SIGKILL",
			humanBytes(total), percent(total, mem))
	case mem > 0 && worst >= mem/2:
		c.Status = StatusWarn
		c.Summary = fmt.Sprintf("at history-limit %d, %d pane(s) may hold about %s, %s of memory", max(maxLimit, a.HistoryLimit), panes,
			humanBytes(worst), percent(worst, mem))
	}
	if c.Status == StatusWarn {
		c.Remedy = "lower history-limit (10,000-50,000 lines is plenty for agents) and clear the history of big panes"
		c.Commands = []string{"tmux " + strings.Join(shellArgs(f.sock.Args()), " ") + " set -g history-limit 50000"}
	}
	return c
}
