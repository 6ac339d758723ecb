// Package death is what a tmux server's death is and what to do about it,
// as pure code tested without tmux: no goroutine, no tmux call, an
// injected clock.
//
//   - classify.go: the [Evidence] the monitor gathers (a wait status, the
//     PID alive or not, the socket probe's errno, the control connection's
//     last words, probe timeouts, the fd ratio) and [Classify], which turns
//     it into a [Cause] with a sentence for the user.
//   - policy.go: the [RestartPolicy] (backoff, attempts, when a run of
//     deaths is forgiven) and the [Tracker] of recent deaths whose Decide
//     returns a [Decision]: restart, recreate the socket, terminate a hung
//     server, start one on demand, or give up.
//   - hung.go: the hang detector, Tracker.Probe: whether a live server
//     that does not answer is slow, busy (using CPU: spared longer) or
//     hung, from [Liveness] samples.
//
// The supervisor carries the decisions out (its monitor.go and
// restart.go); see the glossary in package supervisor for the words.
package death
