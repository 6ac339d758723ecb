package supervisor

import (
	"errors"
	"fmt"
	"time"

	"github.com/cenkalti/backoff/v4"
)

// RestartPolicy says how a dead server is brought back. Zero fields take
// the defaults documented on each field.
type RestartPolicy struct {
	// MaxAttempts is how many recoveries in a row may be tried before the
	// server is declared down (5). A server that stays up for StableAfter
	// starts counting from zero again.
	MaxAttempts int
	// Initial is the delay before the first recovery (200ms); each further
	// attempt waits Multiplier (2) times longer, at most Max (10s). The
	// first recovery after a clean history (the server had been up for
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

func (p RestartPolicy) withDefaults() RestartPolicy {
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

// defaultRestartJitter spreads restart delays by ±10% so that several
// tmux-mcp processes sharing one server do not race in lockstep.
const defaultRestartJitter = 0.1

// action is what the restart loop must do after a death.
type action int

const (
	// actNone: nothing (tmux-mcp killed the server on request).
	actNone action = iota
	// actRestart: after Delay start a new server, then restore.
	actRestart
	// actRecreateSocket: after Delay, mkdir -p -m 700 the socket's
	// directory and send SIGUSR1 to the live server so it binds its socket
	// again. Never start a second server: it would orphan the live one.
	actRecreateSocket
	// actTerminate: after Delay, SIGTERM the server, SIGKILL it if it is
	// still alive after a grace period, then restart and restore.
	actTerminate
	// actStartOnDemand: the server ended normally; start one (and restore)
	// when the next call needs it, not before.
	actStartOnDemand
	// actGiveUp: recovery is impossible or exhausted; calls fail with
	// ErrServerDown until something changes.
	actGiveUp
)

var actionNames = [...]string{
	actNone:           "none",
	actRestart:        "restart",
	actRecreateSocket: "recreate_socket",
	actTerminate:      "terminate",
	actStartOnDemand:  "start_on_demand",
	actGiveUp:         "give_up",
}

func (a action) String() string {
	if int(a) < len(actionNames) {
		return actionNames[a]
	}
	return fmt.Sprintf("action(%d)", int(a))
}

// decision is the restart policy's answer to one death.
type decision struct {
	Action action
	// Delay is how long to wait before acting.
	Delay time.Duration
	// Attempt is this recovery's number (1-based) and Max the policy's
	// MaxAttempts; both are zero for actions that use no attempt.
	Attempt, Max int
	// Reason explains the decision in words, for events and errors.
	Reason string
}

// clockAt is a backoff.Clock that reads the time the caller injected.
type clockAt struct{ now time.Time }

func (c *clockAt) Now() time.Time { return c.now }

// restartTracker decides what to do when a server dies. It is pure: it
// never reads the clock or sleeps; callers pass the time in and carry the
// decision out. It is not safe for concurrent use.
type restartTracker struct {
	policy   RestartPolicy
	clock    *clockAt
	backoff  *backoff.ExponentialBackOff
	attempts int       // recoveries since the last reset
	upSince  time.Time // when the current server was first seen healthy; zero while down
	history  []restartRecord

	silence silence // the server's current silence, while probes time out
}

// restartRecord is one death and the decision taken.
type restartRecord struct {
	At       time.Time
	Cause    Cause
	Decision decision
}

// maxRestartHistory bounds restartTracker.history.
const maxRestartHistory = 32

// newRestartTracker returns a tracker for p (defaults filled in). jitter is
// the backoff's randomization factor: 0 makes delays exact (tests),
// defaultRestartJitter spreads them.
func newRestartTracker(p RestartPolicy, jitter float64) *restartTracker {
	p = p.withDefaults()
	clk := &clockAt{}
	b := backoff.NewExponentialBackOff(
		backoff.WithInitialInterval(p.Initial),
		backoff.WithMultiplier(p.Multiplier),
		backoff.WithMaxInterval(p.Max),
		backoff.WithRandomizationFactor(jitter),
		backoff.WithMaxElapsedTime(0),
		backoff.WithClockProvider(clk),
	)
	return &restartTracker{policy: p, clock: clk, backoff: b}
}

// up records that the server answered at now. After StableAfter of
// continuous health the attempt count and backoff start over.
func (t *restartTracker) up(now time.Time) {
	t.silence = silence{}
	if t.upSince.IsZero() {
		t.upSince = now
	}
	t.resetIfStable(now)
}

func (t *restartTracker) resetIfStable(now time.Time) {
	if !t.upSince.IsZero() && now.Sub(t.upSince) >= t.policy.StableAfter && t.attempts > 0 {
		t.attempts = 0
		t.clock.now = now
		t.backoff.Reset()
	}
}

// reset forgets the attempts made, for a recovery asked for explicitly
// after the tracker gave up.
func (t *restartTracker) reset(now time.Time) {
	t.attempts = 0
	t.clock.now = now
	t.backoff.Reset()
}

// decide returns what to do about a server that died at now of cause c.
func (t *restartTracker) decide(now time.Time, c Cause) decision {
	clean := !t.upSince.IsZero() && now.Sub(t.upSince) >= t.policy.StableAfter
	t.resetIfStable(now)
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
// StableAfter: its first recovery then waits for nothing.
func (t *restartTracker) decideCause(now time.Time, c Cause, clean bool) decision {
	var act action
	switch c {
	case CauseKillServer:
		return decision{Action: actNone, Reason: "the server was killed on request"}
	case CauseLastSession:
		return decision{Action: actStartOnDemand, Reason: "the server ended normally; a new one starts with the next call"}
	case CausePermission:
		return decision{Action: actGiveUp, Reason: "the socket or its directory has the wrong owner or permissions; fix them and retry"}
	case CauseVersionSkew:
		return decision{Action: actGiveUp, Reason: "the running server is a different tmux version than the client; restart it deliberately"}
	case CauseSocketDeleted:
		act = actRecreateSocket
	case CauseHung, CauseFDLivelock:
		act = actTerminate
	default: // CauseKilled, CauseCrashed, CauseUnknown
		act = actRestart
	}
	p := t.policy
	if t.attempts >= p.MaxAttempts {
		return decision{Action: actGiveUp, Attempt: t.attempts, Max: p.MaxAttempts,
			Reason: fmt.Sprintf("gave up after %d recovery attempts", t.attempts)}
	}
	t.attempts++
	t.clock.now = now
	var delay time.Duration
	if !clean || t.attempts > 1 {
		delay = min(t.backoff.NextBackOff(), p.Max)
	}
	return decision{Action: act, Delay: delay, Attempt: t.attempts, Max: p.MaxAttempts,
		Reason: fmt.Sprintf("%s (attempt %d/%d) in %s", act, t.attempts, p.MaxAttempts, roundDelay(delay))}
}

// ErrRestarting matches the error of a call made while its server is being
// recovered: retry after the delay it names.
var ErrRestarting = errors.New("supervisor: tmux server restarting")

// ErrServerDown matches the error of a call made to a server that is down
// and will not be recovered automatically.
var ErrServerDown = errors.New("supervisor: tmux server is down")

// restartingError is the fail-fast error of a call that arrives while the
// server is being recovered.
type restartingError struct {
	Attempt, Max int
	RetryIn      time.Duration
}

func (e *restartingError) Error() string {
	return fmt.Sprintf("tmux server restarting (attempt %d/%d), retry in %s", e.Attempt, e.Max, roundDelay(e.RetryIn))
}

func (e *restartingError) Is(target error) bool { return target == ErrRestarting }

// RetryDelay says when the call may succeed.
func (e *restartingError) RetryDelay() time.Duration { return e.RetryIn }

// serverDownError is the error of a call to a server that is down for good.
type serverDownError struct {
	Cause  Cause
	Reason string // what happened and what to do
}

func (e *serverDownError) Error() string {
	msg := "tmux server is down"
	if e.Cause != "" {
		msg += " (" + string(e.Cause) + ")"
	}
	if e.Reason != "" {
		msg += ": " + e.Reason
	}
	return msg
}

func (e *serverDownError) Is(target error) bool { return target == ErrServerDown }

// roundDelay rounds d for humans: to the millisecond below a second, to a
// tenth of a second above.
func roundDelay(d time.Duration) time.Duration {
	if d < time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(100 * time.Millisecond)
}
