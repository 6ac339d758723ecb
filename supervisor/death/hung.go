package death

import "time"

// This file decides when a live server that does not answer is hung. A
// probe that times out is not enough: a server that is working through a
// queue is slow, not stopped. make scale saw one killed on a machine at a
// load average of 15 to 25, while another client's batch of 32
// new-window commands (each forking a shell) kept it from answering for
// over 10 s; the same batch on the same machine at a load of 3 took 2 to
// 14 s. What tells the cases apart:
//
//   - An answer to anything on the connection the probe used (the command
//     connection, whose requests tmux answers in order): the server is
//     working through the commands queued before the probe. A stopped
//     (SIGSTOP) server answers nothing, nor does one blocked writing to a
//     stuck terminal.
//   - CPU time that advances: the server is running commands that do not
//     return to its event loop (a long batch from another client, fork
//     after fork on a starved machine). A stopped or blocked server uses
//     none. A server in fd livelock spins too, so near its fd limit CPU is
//     not taken as work, and a tmux looping on a bug of its own uses CPU
//     as well: it is given BusyHungAfter, not forever.
//
// The silence is measured from the first probe that timed out, and
// restarts at every answer seen after it.

// busyHungFactor is RestartPolicy.BusyHungAfter's default, in HungAfters.
const busyHungFactor = 6

// liveness is what one liveness probe of a live server found.
type Liveness struct {
	// TimedOut: the probe was not answered in time.
	TimedOut bool
	// AnsweredAt is when the connection the probe used last received an
	// answer to any command; zero when unknown (a new client per probe).
	AnsweredAt time.Time
	// CPU is the server's CPU time so far (the last resource sample), and
	// CPUIsWork says whether CPU spent may count as work: not near the fd
	// limit, where spinning is the fault.
	CPU       time.Duration
	CPUIsWork bool
}

// verdict is the hang detector's answer to one probe.
type Verdict int

const (
	// VerdictUp: the probe was answered.
	VerdictUp Verdict = iota
	// VerdictSlow: the server has not answered for less than HungAfter.
	VerdictSlow
	// VerdictBusy: it has not answered for HungAfter or more, but keeps
	// using CPU: it is spared until BusyHungAfter.
	VerdictBusy
	// VerdictHung: terminate it.
	VerdictHung
)

var verdictNames = [...]string{VerdictUp: "up", VerdictSlow: "slow", VerdictBusy: "busy", VerdictHung: "hung"}

func (v Verdict) String() string { return verdictNames[v] }

// silence is what the tracker knows of a server that stopped answering.
type silence struct {
	since       time.Time     // start of the silence; zero while the server answers
	cpu         time.Duration // the server's CPU time at the last probe
	cpuAdvanced time.Time     // when a probe last saw that CPU time grow as work; zero: not during this silence
	busy        bool          // a probe of this silence was answered VerdictBusy
}

// probe records one liveness probe of a server that is alive (its PID
// exists) at now and says whether it is hung.
func (t *Tracker) Probe(now time.Time, l Liveness) Verdict {
	if !l.TimedOut {
		t.Up(now)
		return VerdictUp
	}
	s := &t.silence
	if s.since.IsZero() {
		*s = silence{since: now, cpu: l.CPU}
	}
	if l.AnsweredAt.After(s.since) {
		// It answered something since: working through a queue.
		s.since = l.AnsweredAt
	}
	if l.CPU > s.cpu {
		if l.CPUIsWork {
			s.cpuAdvanced = now
		}
		s.cpu = l.CPU
	}
	quiet := now.Sub(s.since)
	switch {
	case quiet < t.policy.HungAfter:
		return VerdictSlow
	case !s.cpuAdvanced.IsZero() && now.Sub(s.cpuAdvanced) < t.policy.HungAfter && quiet < t.policy.BusyHungAfter:
		s.busy = true
		return VerdictBusy
	}
	return VerdictHung
}

// WasBusy reports whether a probe of the current silence was answered
// VerdictBusy: the server kept using CPU while it answered nothing.
func (t *Tracker) WasBusy() bool { return t.silence.busy }
