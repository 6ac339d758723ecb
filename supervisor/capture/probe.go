package capture

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// probeFormat is the probe's question: the pane's state (as a barrier
// reads it) and its window's last activity, which tmux sets, in whole
// seconds, every time it parses output of any pane of the window.
// window_activity is read only when the pane has a window: display-message
// answers for a target that does not exist (with every variable empty),
// and tmux 3.2a dies of a NULL dereference expanding a time variable of a
// missing window (see tmux.Capabilities.MissingTimeCrashes).
var probeFormat = tmux.RecordFormat(append([]string{"?window_id,#{q:window_activity},"}, stateFields...)...)

// probe proves a pane's freshness without a watcher: it reads the pane's
// state and its window's activity. Concurrent callers share round trips,
// never one sent before they arrived. The zero proof is returned when the
// probe fails or cannot vouch for the pane (see probeTrusted).
func (f *Freshness) probe(ctx context.Context, pane tmux.PaneID) Proof {
	p, err := f.probes.Do(ctx, pane, false, func() (Proof, error) {
		pctx, cancel := context.WithTimeout(context.Background(), f.cfg.CommandTimeout)
		defer cancel()
		sent := f.cfg.Now()
		start := time.Now()
		out, via, err := f.run(pctx, "display-message", "-p", "-t", string(pane), probeFormat)
		f.barrierDone(via, time.Since(start), err)
		if err != nil {
			return Proof{}, err
		}
		rec, err := tmux.ParseRecord(out, 1+len(stateFields))
		if err != nil {
			return Proof{}, err
		}
		sig := stateSig(rec)
		activity, err := strconv.ParseInt(rec[0], 10, 64)
		if err != nil || !probeTrusted(activity, sent) {
			return Proof{}, nil
		}
		return Proof{how: "probe", sig: sig, gen: f.cache.generation(pane)}, nil
	})
	if err != nil {
		return Proof{}
	}
	return p
}

// probeTrusted reports whether a probe sent at sent, which read the
// window's last activity (in whole seconds) as activity, can vouch for
// the pane. Output that tmux parses after the probe ran sets the activity
// to that moment's second, which is no earlier than sent's second; so if
// the activity read is older than sent's second, any later output changes
// it and a later probe that reads the same state proves that no output
// came in between. Activity in sent's own second proves nothing: more
// output in that second would leave it as it is.
func probeTrusted(activity int64, sent time.Time) bool {
	return activity < sent.Unix()
}

// run runs the probe's command on the server's command transport, holding
// one of the server's in-flight slots (Options.Slots) like every call. It
// returns the kind of the transport that carried it (or would have, when
// no slot came free).
func (f *Freshness) run(ctx context.Context, args ...string) ([]byte, string, error) {
	if f.cfg.Slots != nil {
		select {
		case f.cfg.Slots <- struct{}{}:
			defer func() { <-f.cfg.Slots }()
		case <-ctx.Done():
			err := ctx.Err()
			if errors.Is(err, context.DeadlineExceeded) {
				return nil, f.client.Transport().Kind(), fmt.Errorf("tmux %s: waited for a free slot until the deadline: %w", args[0], tmux.ErrTimeout)
			}
			return nil, f.client.Transport().Kind(), fmt.Errorf("tmux %s: %w", args[0], err)
		}
	}
	// Chosen once the slot is held, as the call runs: a control
	// connection lost meanwhile leaves exec.
	tr := f.client.Transport()
	out, err := tr.Run(ctx, args...)
	return out, tr.Kind(), err
}
