package jobs

import (
	"context"
	"syscall"
	"time"

	"github.com/tmux-mcp/tmux-mcp/jobrecord"
)

// Step is one step of Stop.
type Step struct {
	Signal string // SIGINT (a C-c typed into the pane), SIGTERM, SIGKILL
	Target string // what it was sent to
	Ended  bool   // the job ended within the grace
	Waited time.Duration
}

// Stop ends j: C-c first (interrupt types it into the job's pane), then
// SIGTERM, then SIGKILL to its processes, each step given grace to end it.
// It returns the steps taken, none when j does not run or is not watched.
func (j *Job) Stop(ctx context.Context, grace time.Duration, interrupt func(context.Context) error) ([]Step, error) {
	steps := []Step{}
	if j.kind() == jobrecord.KindCall {
		if !j.Running() {
			return steps, nil
		}
		return j.stopCall(ctx, grace)
	}
	if !j.Running() || j.runner() == nil {
		return steps, nil
	}
	rec := j.Record()
	for _, sig := range []struct {
		sig  syscall.Signal
		name string
	}{{syscall.SIGINT, "SIGINT"}, {syscall.SIGTERM, "SIGTERM"}, {syscall.SIGKILL, "SIGKILL"}} {
		step := Step{Signal: sig.name}
		j.mu.Lock()
		j.signal = sig.name
		j.mu.Unlock()
		if sig.sig == syscall.SIGINT {
			// A C-c that comes before the shell has started the job
			// may throw its line away unrun: let it start first.
			j.waitSeen(ctx, grace)
			if err := interrupt(ctx); err != nil {
				return steps, err
			}
			step.Target = "C-c into pane " + string(rec.Pane)
		} else {
			procs, alive, err := jobProcesses(ctx, rec.PanePID, rec.Before)
			switch {
			case err != nil || !alive:
				step.Target = "none: the job's processes cannot be seen from tmux-mcp"
			case len(procs) == 0:
				step.Target = "none: no process of the job is left"
			default:
				step.Target, err = signalJob(procs, rec.PanePID, rec.Before, sig.sig)
				if err != nil {
					step.Target += " (failed: " + err.Error() + ")"
				}
			}
		}
		begin := time.Now()
		step.Ended = j.waitEnd(ctx, grace)
		step.Waited = time.Since(begin)
		steps = append(steps, step)
		if ctx.Err() != nil {
			return steps, ctx.Err()
		}
		if step.Ended {
			break
		}
	}
	if _, alive, err := jobProcesses(ctx, rec.PanePID, rec.Before); err == nil && alive && j.Running() && !j.hasBeenSeen() {
		// No process of the job in all that time, where its pane's are
		// seen: the shell never ran it.
		j.end(jobrecord.Exited, nil, "it never ran: the shell did not start its line", time.Now())
	}
	return steps, nil
}

// waitSeen waits up to grace until a process of j was seen (or j ended).
func (j *Job) waitSeen(ctx context.Context, grace time.Duration) {
	deadline := time.NewTimer(grace)
	defer deadline.Stop()
	select {
	case j.kick <- struct{}{}:
	default:
	}
	select {
	case <-j.seenC:
	case <-j.done:
	case <-ctx.Done():
	case <-deadline.C:
	}
}

// waitEnd waits up to grace for j to end, waking its watcher to look at
// its processes every probeSpacing.
func (j *Job) waitEnd(ctx context.Context, grace time.Duration) bool {
	deadline := time.NewTimer(grace)
	defer deadline.Stop()
	tick := time.NewTicker(probeSpacing)
	defer tick.Stop()
	for {
		select {
		case j.kick <- struct{}{}:
		default:
		}
		select {
		case <-j.done:
			return true
		case <-ctx.Done():
			return false
		case <-deadline.C:
			return !j.Running()
		case <-tick.C:
		}
	}
}
