package diagnostics

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tmux-mcp/tmux-mcp/proc"
)

// clockTicks is USER_HZ, the unit of the times in /proc/<pid>/stat: 100 on
// every Linux architecture Go supports.
const clockTicks = 100

// cpuInterval is how long diagnose watches a server's CPU time to tell a
// spinning server from a sleeping one.
const cpuInterval = 250 * time.Millisecond

// procFacts is what /proc says about one live server process.
type procFacts struct {
	PID     int
	Comm    string
	Stat    proc.ProcStat
	Started time.Time // wall clock; zero when unknown
	Res     proc.Resources
	ResErr  error
	// Spinning: over half a core of CPU while watched, or runnable at
	// both samples (a livelocked server on a busy machine).
	Spinning bool
	Exe      string // /proc/<pid>/exe, " (deleted)" removed
	// ExeDeleted: the binary was replaced or removed since the server
	// started (an upgrade).
	ExeDeleted bool
}

// stateName explains a /proc state letter.
func stateName(s byte) string {
	switch s {
	case 'R':
		return "R (running)"
	case 'S':
		return "S (sleeping)"
	case 'D':
		return "D (uninterruptible wait)"
	case 'T':
		return "T (stopped)"
	case 't':
		return "t (stopped by a debugger)"
	case 'Z':
		return "Z (zombie: exited, not reaped)"
	case 0:
		return "?"
	}
	return string(s)
}

func stopped(s byte) bool { return s == 'T' || s == 't' }

// inspectProcesses samples each live PID twice, cpuInterval apart, to get
// its CPU use; it starts nothing.
func inspectProcesses(ctx context.Context, m Machine, pids []int) []procFacts {
	if len(pids) == 0 {
		return nil
	}
	out := make([]procFacts, 0, len(pids))
	first := make([]proc.Resources, len(pids))
	for i, pid := range pids {
		first[i], _ = proc.SampleResources(ctx, pid, nil)
	}
	t := time.NewTimer(cpuInterval)
	select {
	case <-ctx.Done():
	case <-t.C:
	}
	t.Stop()
	for i, pid := range pids {
		p := procFacts{PID: pid, Comm: comm(pid)}
		p.Stat, _ = proc.ReadProcStat(pid)
		p.Started = startedAt(m, p.Stat.StartTime)
		p.Res, p.ResErr = proc.SampleResources(ctx, pid, &first[i])
		p.Spinning = p.Res.CPUPercent >= 50 || first[i].Runnable && p.Res.Runnable
		if exe, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe"); err == nil {
			p.Exe, p.ExeDeleted = strings.CutSuffix(exe, " (deleted)")
		}
		out = append(out, p)
	}
	return out
}

// comm returns a process's command name ("tmux: server"), or "".
func comm(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// isTmuxServer reports whether a command name is a tmux server's: tmux
// names its server process "tmux: server" on Linux.
func isTmuxServer(comm string) bool { return comm == "tmux" || strings.HasPrefix(comm, "tmux: ") }

// startedAt converts a start time in clock ticks after boot to wall-clock
// time through /proc/uptime, which has 10 ms resolution (the boot time in
// /proc/stat has whole seconds only). The uptime is paired with the wall
// clock read at the same moment.
func startedAt(m Machine, ticks uint64) time.Time {
	if ticks == 0 {
		return time.Time{}
	}
	now := time.Now()
	up := uptime(m)
	if up == 0 {
		return time.Time{}
	}
	return now.Add(-(up - time.Duration(ticks)*time.Second/clockTicks))
}

// zombie is a tmux server that exited and was not reaped: its exit status
// is the best evidence of how it died that survives it.
type zombie struct {
	PID     int
	UID     int // real uid; -1 when unknown
	Started time.Time
	Status  syscall.WaitStatus
	// MatchedBy says how it was tied to the socket.
	MatchedBy string
	// Exact: tied by the PID and start time the journal recorded, not by
	// timing alone.
	Exact bool
}

// tmuxZombies lists the unreaped tmux servers on this machine.
func tmuxZombies(m Machine) []zombie {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var out []zombie
	for _, dir := range dirs {
		pid, err := strconv.Atoi(filepath.Base(dir))
		if err != nil || !isTmuxServer(comm(pid)) {
			continue
		}
		st, err := proc.ReadProcStat(pid)
		if err != nil || st.State != 'Z' {
			continue
		}
		ws, ok := proc.ZombieStatus(pid, st.StartTime)
		if !ok {
			continue
		}
		out = append(out, zombie{PID: pid, UID: procUID(pid), Started: startedAt(m, st.StartTime), Status: ws})
	}
	return out
}

// procUID returns a process's real uid from /proc/<pid>/status (readable
// for a zombie too), or -1.
func procUID(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Uid:"); ok {
			if f := strings.Fields(v); len(f) > 0 {
				uid, err := strconv.Atoi(f[0])
				if err == nil {
					return uid
				}
			}
		}
	}
	return -1
}

// Tolerances for tying a zombie to a socket file by time. A server binds
// its socket milliseconds after it starts (up to a few hundred on a loaded
// machine); a longer window ties the zombie of an unrelated server started
// just before (seen: 974 ms). The start time read through /proc has 10 ms
// resolution.
const (
	bindSlack  = 500 * time.Millisecond
	clockSlack = 30 * time.Millisecond
)

// matchZombie finds the zombie of the server that made the socket file: by
// the PID (and start time) the journal recorded when it has them (and then
// by nothing else: the journal knows which server was last), else by the
// start time closest before the socket file's creation, among the zombies
// of the socket's owner (socketUID, -1 for any). A tie within the clock's
// resolution is no match: two servers started together cannot be told
// apart.
func matchZombie(zs []zombie, journalPID int, journalStart, socketMade time.Time, socketUID int) (zombie, bool) {
	if journalPID > 0 {
		for _, z := range zs {
			if z.PID != journalPID {
				continue
			}
			if journalStart.IsZero() {
				z.MatchedBy = "the PID tmux-mcp's journal recorded"
				return z, true
			}
			// #{start_time} has whole seconds.
			if d := z.Started.Sub(journalStart); d > -2*time.Second && d < 2*time.Second {
				z.MatchedBy, z.Exact = "the PID and start time tmux-mcp's journal recorded", true
				return z, true
			}
		}
		return zombie{}, false
	}
	if socketMade.IsZero() {
		return zombie{}, false
	}
	best, second := -1, -1
	gap := func(z zombie) time.Duration { return socketMade.Sub(z.Started) }
	for i, z := range zs {
		if z.Started.IsZero() || gap(z) < -clockSlack || gap(z) > bindSlack || socketUID >= 0 && z.UID >= 0 && z.UID != socketUID {
			continue
		}
		switch {
		case best < 0 || gap(z) < gap(zs[best]):
			best, second = i, best
		case second < 0 || gap(z) < gap(zs[second]):
			second = i
		}
	}
	if best < 0 || second >= 0 && gap(zs[second])-gap(zs[best]) <= clockSlack {
		return zombie{}, false
	}
	z := zs[best]
	z.MatchedBy = "its start time, " + roundDuration(gap(z)).String() + " before the socket file was created"
	return z, true
}
