package supervisor

import (
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor/death"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// EventType names an event.
type EventType string

// Event types.
const (
	EventCommand         EventType = "command"          // a tmux command finished
	EventCacheHit        EventType = "cache_hit"        // a capture was served from cache
	EventBarrier         EventType = "barrier"          // a barrier or probe round trip proved (or failed to prove) a pane fresh
	EventRateLimited     EventType = "rate_limited"     // a call was refused or delayed by a token bucket
	EventResourceWarning EventType = "resource_warning" // fds, PTYs or memory crossed a threshold
	EventResourceRefused EventType = "resource_refused" // a pane-creating command was refused before the server ran out
	EventServerDied      EventType = "server_died"      // the server is gone; death.Cause says why
	EventRestarting      EventType = "restarting"       // a restart attempt is scheduled
	EventRestarted       EventType = "restarted"        // a new server answers
	EventRestored        EventType = "restored"         // the restore hook finished
	EventSocketRecreated EventType = "socket_recreated" // a deleted socket was brought back with SIGUSR1
	EventServerAdopted   EventType = "server_adopted"   // an existing server is now supervised
	EventServerStarted   EventType = "server_started"   // tmux-mcp started a server
	EventStructure       EventType = "structure"        // sessions, windows or panes came or went
)

// Event is one thing that happened to a supervised server. Fields not
// relevant to the Type are zero. Events never carry pane text or
// keystrokes.
type Event struct {
	Type   EventType   `json:"type"`
	Time   time.Time   `json:"time"`
	Socket tmux.Socket `json:"socket"`
	PID    int         `json:"pid,omitempty"` // server PID

	// EventCommand (and EventBarrier: Transport, Duration, ErrClass)
	Command   string        `json:"command,omitempty"` // tmux command name only, never arguments
	Transport string        `json:"transport,omitempty"`
	Duration  time.Duration `json:"duration,omitempty"`
	ErrClass  string        `json:"err_class,omitempty"`

	// EventCacheHit, EventRateLimited
	Pane tmux.PaneID `json:"pane,omitempty"`

	// EventServerDied, EventRestarting
	Cause   death.Cause   `json:"cause,omitempty"`
	Detail  string        `json:"detail,omitempty"`
	Attempt int           `json:"attempt,omitempty"`
	Delay   time.Duration `json:"delay,omitempty"`

	// EventResourceWarning, EventResourceRefused
	Resource string  `json:"resource,omitempty"` // "fds", "ptys", "rss"
	Used     uint64  `json:"used,omitempty"`
	Limit    uint64  `json:"limit,omitempty"`
	Ratio    float64 `json:"ratio,omitempty"`

	// EventStructure: the notification that triggered it
	Notification string `json:"notification,omitempty"`
}

// bus fans events out to subscribers.
type bus struct {
	mu   sync.RWMutex
	next int
	subs map[int]func(Event)
}

func newBus() *bus { return &bus{subs: map[int]func(Event){}} }

func (b *bus) subscribe(fn func(Event)) func() {
	b.mu.Lock()
	id := b.next
	b.next++
	b.subs[id] = fn
	b.mu.Unlock()
	return func() {
		b.mu.Lock()
		delete(b.subs, id)
		b.mu.Unlock()
	}
}

func (b *bus) emit(e Event) {
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	for _, fn := range b.subs {
		fn(e)
	}
}

// onCommandNotify runs on the command connection's reader goroutine. It
// turns structural notifications into events (for resource list-changed
// notifications and the journal) and remembers when sessions last changed
// (death evidence: the last session closing looks like that). It never
// touches the capture cache: renames and new windows change no pane's
// content, and what does reaches the watchers or the barrier's state check.
func (s *Server) onCommandNotify(n tmux.Notification) {
	switch n.Type {
	case tmux.NotifySessionsChanged:
		s.mu.Lock()
		s.lastStructure = s.now()
		s.mu.Unlock()
	case tmux.NotifyWindowAdd, tmux.NotifyWindowClose, tmux.NotifyUnlinkedWindowAdd, tmux.NotifyUnlinkedWindowClose,
		tmux.NotifyWindowRenamed, tmux.NotifyUnlinkedWindowRename, tmux.NotifySessionRenamed:
	default:
		return
	}
	s.bus.emit(Event{Type: EventStructure, Socket: s.sock, Notification: string(n.Type)})
}
