package mcpserver

import (
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// EventSource is the part of the supervisor that resources subscribe to.
type EventSource interface {
	Subscribe(fn func(supervisor.Event)) (unsubscribe func())
}

// structureNotifier sends notifications/resources/list_changed when the
// supervisor reports sessions or windows coming and going, coalescing
// bursts into one notification per interval.
type structureNotifier struct {
	kick     chan struct{}
	stop     chan struct{}
	done     chan struct{}
	unsub    func()
	stopOnce sync.Once
}

// changeEvents are the events after which the resource list may differ.
func changesResources(e supervisor.Event) bool {
	switch e.Type {
	case supervisor.EventStructure:
		switch tmux.NotificationType(e.Notification) {
		case tmux.NotifyLayoutChange, tmux.NotifyWindowPaneChanged, tmux.NotifyPaneModeChanged,
			tmux.NotifyOutput, tmux.NotifyExtendedOutput, tmux.NotifySubscriptionChanged:
			return false
		}
		return true
	case supervisor.EventRestarted, supervisor.EventRestored, supervisor.EventServerDied:
		return true
	}
	return false
}

func startNotifier(s *server.MCPServer, src EventSource, every time.Duration) *structureNotifier {
	n := &structureNotifier{kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	n.unsub = src.Subscribe(func(e supervisor.Event) {
		if changesResources(e) {
			select {
			case n.kick <- struct{}{}:
			default:
			}
		}
	})
	go func() {
		defer close(n.done)
		for {
			select {
			case <-n.stop:
				return
			case <-n.kick:
			}
			s.SendNotificationToAllClients(string(mcp.MethodNotificationResourcesListChanged), nil)
			select {
			case <-n.stop:
				return
			case <-time.After(every):
			}
		}
	}()
	return n
}

func (n *structureNotifier) close() {
	n.stopOnce.Do(func() {
		n.unsub()
		close(n.stop)
		<-n.done
	})
}
