package mcpserver

import (
	"context"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// subscription is one client's subscription to one resource.
type subscription struct {
	m    *subscriptions
	uri  string
	kind subKind
	sock tmux.Socket
	pane tmux.PaneID
	job  string
	send func()

	kick chan struct{} // structure, health and jobs: an event may have changed it

	// Pane subscriptions: the server, and the change stream opened while
	// the subscription was checked, handed to run.
	srv         *supervisor.Server
	changes     <-chan struct{}
	stopChanges func()

	ctx     context.Context // ends with the subscription: bounds tmux calls
	cancel  context.CancelFunc
	quit    chan struct{}
	done    chan struct{}
	started bool
}

// start runs the subscription; called with m.mu held.
func (sub *subscription) start() {
	sub.started = true
	go sub.run()
}

// stop ends the subscription and waits until it can send no more.
func (sub *subscription) stop() {
	sub.m.mu.Lock()
	started := sub.started
	select {
	case <-sub.quit:
		sub.m.mu.Unlock()
		<-sub.done
		return
	default:
	}
	close(sub.quit)
	delete(sub.m.live, sub)
	sub.m.mu.Unlock()
	sub.cancel()
	if started {
		<-sub.done
	} else {
		if sub.stopChanges != nil {
			sub.stopChanges()
		}
		close(sub.done)
	}
}

func (sub *subscription) run() {
	defer close(sub.done)
	if sub.kind == kindRemote {
		sub.pump(sub.changes)
		sub.stopChanges()
		return
	}
	if sub.kind != kindPane {
		sub.pump(sub.kick)
		return
	}
	changes, stop := sub.changes, sub.stopChanges
	for {
		ended := sub.pump(changes)
		stop()
		if !ended {
			return
		}
		// The watcher ended: the pane's session or server is gone, or
		// the connection was lost. That is an update; then watch again
		// if the pane still exists.
		if !sub.send1() || !sub.holdOff() {
			return
		}
		var err error
		changes, stop, err = sub.srv.PaneChanges(sub.ctx, sub.pane)
		if err != nil {
			return // gone for good: reading the resource says so
		}
	}
}

// pump sends one update per signal on in, at most one per interval:
// signals during the hold-off wait in in (it holds one) and are sent after
// it. It returns true when in was closed, false when the subscription
// stopped.
func (sub *subscription) pump(in <-chan struct{}) bool {
	for {
		select {
		case <-sub.quit:
			return false
		case _, ok := <-in:
			if !ok {
				return !sub.stopped()
			}
			if !sub.send1() || !sub.holdOff() {
				return false
			}
		}
	}
}

// send1 sends one update unless the subscription has stopped.
func (sub *subscription) send1() bool {
	if sub.stopped() {
		return false
	}
	sub.send()
	return true
}

func (sub *subscription) holdOff() bool {
	t := time.NewTimer(sub.m.every)
	defer t.Stop()
	select {
	case <-sub.quit:
		return false
	case <-t.C:
		return true
	}
}

func (sub *subscription) stopped() bool {
	select {
	case <-sub.quit:
		return true
	default:
		return false
	}
}
