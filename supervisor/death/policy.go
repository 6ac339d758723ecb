package death

import (
	"fmt"
	"time"

	"github.com/cenkalti/backoff/v4"
)

// RestartPolicy says how a dead server is brought back. Zero fields take
// the defaults documented on each field.
type RestartPolicy struct {
	// MaxAttempts is how many restarts in a row may be tried before the
	// server is declared down (5). A server that stays up for StableAfter
	// starts counting from zero again.
	MaxAttempts int
	// Initial is the delay before the first restart (200ms); each further
	// attempt waits Multiplier (2) times longer, at most Max (10s). The
	// first restart after a clean history (the server had been up for
	// StableAfter when it died) starts at once: only repeated deaths back
	// off.
	Initial    time.Duration
	Max        time.Duration
	Multiplier float64
	// StableAfter is how long a server must stay up for its attempt count
	// to be reset (60s).
	StableAfter time.Duration
	// HungAfter is how long a live server may go without answering
	// before it is treated as hung and terminated (10s): probes time out
	// and nothing else it was asked is answered either (see hung.go).
	HungAfter time.Duration
	// BusyHungAfter is how long a server that does not answer may go
	// while it keeps using CPU, away from its fd limit: it is working
	// through commands (on a starved machine a queue of new-window can
	// take longer than HungAfter), not stopped (6 * HungAfter). A tmux
	// spinning in a loop of its own is still terminated then.
	BusyHungAfter time.Duration
}

func (p RestartPolicy) WithDefaults() RestartPolicy {
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = 5
	}
	if p.Initial <= 0 {
		p.Initial = 200 * time.Millisecond
	}
	if p.Max <= 0 {
		p.Max = 10 * time.Second
	}
	if p.Max < p.Initial {
		p.Max = p.Initial
	}
	if p.Multiplier < 1 {
		p.Multiplier = 2
	}
	if p.StableAfter <= 0 {
		p.StableAfter = 60 * time.Second
	}
	if p.HungAfter <= 0 {
		p.HungAfter = 10 * time.Second
	}
	if p.BusyHungAfter <= 0 {
		p.BusyHungAfter = busyHungFactor * p.HungAfter
	}
	if p.BusyHungAfter < p.HungAfter {
		p.BusyHungAfter = p.HungAfter
	}
	return p
}

// DefaultJitter spreads restart delays by ±10% so that several
// tmux-mcp processes sharing one server do not race in lockstep.
const DefaultJitter = 0.1

// action is what the restart loop must do after a death.
type Action int

const (
	// ActNone: nothing (tmux-mcp killed the server on request).
	ActNone Action = iota
	// ActRestart: after Delay start a new server, then restore.
	ActRestart
	// ActRecreateSocket: after Delay, mkdir -p -m 700 the socket's
	// directory and send SIGUSR1 to the live server so it binds its socket
	// again. Never start a second server: it would orphan the live one.
	ActRecreateSocket
	// ActTerminate: after Delay, SIGTERM the server, SIGKILL it if it is
	// still alive after a grace period, then restart and restore.
	ActTerminate
	// ActStartOnDemand: the server ended normally; start one (and restore)
	// when the next call needs it, not before.
	ActStartOnDemand
	// ActGiveUp: restart is impossible or exhausted; calls fail with
	// ErrServerDown until something changes.
	ActGiveUp
)

var actionNames = [...]string{
	ActNone:           "none",
	ActRestart:        "restart",
	ActRecreateSocket: "recreate_socket",
	ActTerminate:      "terminate",
	ActStartOnDemand:  "start_on_demand",
	ActGiveUp:         "give_up",
}

func (a Action) String() string {
	if int(a) < len(actionNames) {
		return actionNames[a]
	}
	return fmt.Sprintf("action(%d)", int(a))
}

// decision is the restart policy's answer to one death.
type Decision struct {
	Action Action
	// Delay is how long to wait before acting.
	Delay time.Duration
	// Attempt is this restart's number (1-based) and Max the policy's
	// MaxAttempts; both are zero for actions that use no attempt.
	Attempt, Max int
	// Reason explains the decision in words, for events and errors.
	Reason string
}

// clockAt is a backoff.Clock that reads the time the caller injected.
type clockAt struct{ now time.Time }

func (c *clockAt) Now() time.Time { return c.now }

// Tracker decides what to do when a server dies. It is pure: it
// never reads the clock or sleeps; callers pass the time in and carry the
// decision out. It is not safe for concurrent use.
type Tracker struct {
	policy   RestartPolicy
	clock    *clockAt
	backoff  *backoff.ExponentialBackOff
	attempts int       // restarts since the last reset
	upSince  time.Time // when the current server was first seen healthy; zero while down
	history  []restartRecord

	silence silence // the server's current silence, while probes time out
}

// restartRecord is one death and the decision taken.
type restartRecord struct {
	At       time.Time
	Cause    Cause
	Decision Decision
}

// maxRestartHistory bounds Tracker.history.
const maxRestartHistory = 32

// NewTracker returns a tracker for p (defaults filled in). jitter is
// the backoff's randomization factor: 0 makes delays exact (tests),
// DefaultJitter spreads them.
func NewTracker(p RestartPolicy, jitter float64) *Tracker {
	p = p.WithDefaults()
	clk := &clockAt{}
	b := backoff.NewExponentialBackOff(
		backoff.WithInitialInterval(p.Initial),
		backoff.WithMultiplier(p.Multiplier),
		backoff.WithMaxInterval(p.Max),
		backoff.WithRandomizationFactor(jitter),
		backoff.WithMaxElapsedTime(0),
		backoff.WithClockProvider(clk),
	)
	return &Tracker{policy: p, clock: clk, backoff: b}
}

// up records that the server answered at now. After StableAfter of
// continuous health the attempt count and backoff start over.
func (t *Tracker) Up(now time.Time) {
	t.silence = silence{}
	if t.upSince.IsZero() {
		t.upSince = now
	}
	t.ResetIfStable(now)
}

func (t *Tracker) ResetIfStable(now time.Time) {
	if !t.upSince.IsZero() && now.Sub(t.upSince) >= t.policy.StableAfter && t.attempts > 0 {
		t.attempts = 0
		t.clock.now = now
		t.backoff.Reset()
	}
}

// reset forgets the attempts made, for a restart asked for explicitly
// after the tracker gave up.
func (t *Tracker) Reset(now time.Time) {
	t.attempts = 0
	t.clock.now = now
	t.backoff.Reset()
}

// decide returns what to do about a server that died at now of cause c.
func (t *Tracker) Decide(now time.Time, c Cause) Decision {
	clean := !t.upSince.IsZero() && now.Sub(t.upSince) >= t.policy.StableAfter
	t.ResetIfStable(now)
	t.upSince = time.Time{}
	t.silence = silence{}
	d := t.decideCause(now, c, clean)
	t.history = append(t.history, restartRecord{At: now, Cause: c, Decision: d})
	if len(t.history) > maxRestartHistory {
		t.history = append(t.history[:0], t.history[len(t.history)-maxRestartHistory:]...)
	}
	return d
}

// decideCause decides for cause c. clean says the server had been up for
// StableAfter: its first restart then waits for nothing.
func (t *Tracker) decideCause(now time.Time, c Cause, clean bool) Decision {
	var act Action
	switch c {
	case CauseKillServer:
		return Decision{Action: ActNone, Reason: "the server was killed on request"}
	case CauseLastSession:
		return Decision{Action: ActStartOnDemand, Reason: "the server ended normally; a new one starts with the next call"}
	case CausePermission:
		return Decision{Action: ActGiveUp, Reason: "the socket or its directory has the wrong owner or permissions; fix them and retry"}
	case CauseVersionSkew:
		return Decision{Action: ActGiveUp, Reason: "the running server is a different tmux version than the client; restart it deliberately"}
	case CauseSocketDeleted:
		act = ActRecreateSocket
	case CauseHung, CauseFDLivelock:
		act = ActTerminate
	default: // CauseKilled, CauseCrashed, CauseUnknown
		act = ActRestart
	}
	p := t.policy
	if t.attempts >= p.MaxAttempts {
		return Decision{Action: ActGiveUp, Attempt: t.attempts, Max: p.MaxAttempts,
			Reason: fmt.Sprintf("gave up after %d restart attempts", t.attempts)}
	}
	t.attempts++
	t.clock.now = now
	var delay time.Duration
	if !clean || t.attempts > 1 {
		delay = min(t.backoff.NextBackOff(), p.Max)
	}
	return Decision{Action: act, Delay: delay, Attempt: t.attempts, Max: p.MaxAttempts,
		Reason: fmt.Sprintf("%s (attempt %d/%d) in %s", act, t.attempts, p.MaxAttempts, RoundDelay(delay))}
}

// RoundDelay rounds d for humans: to the millisecond below a second, to a
// tenth of a second above.
func RoundDelay(d time.Duration) time.Duration {
	if d < time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(100 * time.Millisecond)
}
