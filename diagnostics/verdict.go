package diagnostics

import (
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/tmux-mcp/tmux-mcp/proc"
	"github.com/tmux-mcp/tmux-mcp/supervisor/death"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// evidence turns the facts into the supervisor's death evidence, so that
// diagnose and the supervisor's monitor reach their verdicts through one
// classifier. Only what was seen goes in.
func evidence(f *serverFacts) death.Evidence {
	ev := death.Evidence{PID: f.pid(), ConnectErr: f.connectErr}
	// A process that has begun to exit is not alive: it has closed (or is
	// closing) its socket, and what it no longer answers is its death.
	alive := func(pid int, start uint64) bool { return proc.PIDAlive(pid, start) && !proc.Exiting(pid, start) }
	if p := f.mainProc(); p != nil {
		ev.PIDAlive = alive(p.PID, p.Stat.StartTime)
		ev.FDRatio = p.Res.FDRatio()
	} else if len(f.procs) > 0 {
		ev.PID, ev.PIDAlive = f.procs[0].PID, alive(f.procs[0].PID, f.procs[0].Stat.StartTime)
	}
	switch {
	case f.zombie != nil:
		ws := f.zombie.Status
		ev.Wait = &ws
	case f.kernel != nil:
		ws := syscall.WaitStatus(f.kernel.Signal) // waitpid's form of "killed by this signal"
		ev.Wait = &ws
	}
	if f.probeErr != nil {
		ev.StderrClass = f.probeErr
		if errors.Is(f.probeErr, tmux.ErrTimeout) {
			ev.ProbeTimeouts = 1
		}
	}
	return ev
}

// verdict classifies the server with death.Classify and says how
// sure that is. When nothing survived to classify by, a cause that
// tmux-mcp's supervisor recorded in the journal at the time stands in.
func verdict(f *serverFacts, probeTimeout time.Duration) *Verdict {
	cause, detail := death.Classify(evidence(f))
	v := &Verdict{Cause: string(cause), Detail: detail}
	v.Confidence, v.Basis = confidence(f, cause, probeTimeout)
	if cause == death.CauseUnknown {
		if d, ok := f.journal.lastDeath(); ok && d.Cause != "" && d.Cause != death.CauseUnknown {
			v.Cause, v.Detail, v.Confidence = string(d.Cause), d.Detail, Likely
			v.Basis = fmt.Sprintf("tmux-mcp's supervisor recorded this cause in the journal when it saw the server die (%s); "+
				"no exit status survived to check it against", d.Time.UTC().Format(time.RFC3339))
		}
	}
	return v
}

// confidence says how sure a verdict is and what that rests on.
func confidence(f *serverFacts, cause death.Cause, probeTimeout time.Duration) (Confidence, string) {
	p := f.mainProc()
	switch cause {
	case "":
		if f.ans != nil {
			return Certain, fmt.Sprintf("it answered a tmux client in %v", roundDuration(f.ans.Took))
		}
		if f.probeSkipped != "" {
			return Possible, "its socket accepts connections; " + f.probeSkipped
		}
		return Possible, "its socket accepts connections"
	case death.CauseSocketDeleted:
		found := "finds no socket file there"
		if !errors.Is(f.connectErr, syscall.ENOENT) {
			found = "is refused there (the file is no longer its socket)"
		}
		return Certain, fmt.Sprintf("PID %d still listens on the path (the kernel lists the bound name in /proc/net/unix), and connect() %s", f.pid(), found)
	case death.CausePermission:
		if errors.Is(f.probeErr, tmux.ErrPermission) {
			return Certain, "tmux itself refused: " + firstLine(f.probeErr.Error())
		}
		return Likely, "connect() was refused with a permission error"
	case death.CauseVersionSkew:
		return Certain, "tmux itself said so: " + firstLine(f.probeErr.Error())
	case death.CauseHung:
		if p != nil && stopped(p.Stat.State) {
			return Certain, fmt.Sprintf("process state %c (stopped): it cannot answer until it gets SIGCONT; a tmux client waited %v in vain", p.Stat.State, probeTimeout)
		}
		return Likely, fmt.Sprintf("a tmux client got no answer in %v (once: a very busy machine can be that slow)", probeTimeout)
	case death.CauseFDLivelock:
		if p == nil {
			return Likely, fmt.Sprintf("a tmux client got no answer in %v with the server's fds near its limit", probeTimeout)
		}
		basis := fmt.Sprintf("a tmux client got no answer in %v while the server holds %.0f%% of its fds", probeTimeout, 100*p.Res.FDRatio())
		if p.Spinning {
			basis += fmt.Sprintf(" and spins (%.0f%% CPU)", p.Res.CPUPercent)
		}
		return Likely, basis
	case death.CauseUnknown:
		if f.journal == nil {
			return Possible, "no exit status survived (the server's parent reaped it) and there is no journal"
		}
		return Possible, "no exit status survived (the server's parent reaped it) and the journal recorded no death of it"
	}
	// Causes from a wait status: killed, crashed, last_session_gone.
	if k := f.kernel; k != nil {
		return Certain, fmt.Sprintf("the kernel logged how PID %d (the server tmux-mcp's journal recorded) ended, at %s: %q",
			k.PID, k.Time.UTC().Format(time.RFC3339), k.Text)
	}
	if z := f.zombie; z != nil {
		basis := fmt.Sprintf("the exit status was read from the zombie of PID %d, tied to this socket by %s", z.PID, z.MatchedBy)
		if z.Exact {
			return Certain, basis
		}
		return Likely, basis + "; two servers started in the same instant could not be told apart"
	}
	return Possible, "no direct evidence"
}

// verdictStatus is how bad a verdict is for the report's status.
func verdictStatus(v *Verdict) Status {
	switch {
	case v == nil || v.Cause == "" || v.Cause == string(death.CauseKillServer):
		return StatusOK
	case v.Cause == string(death.CauseLastSession) || v.Cause == string(death.CauseUnknown):
		return StatusWarn
	}
	return StatusFail
}
