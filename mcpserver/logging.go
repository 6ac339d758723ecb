package mcpserver

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/jobrecord"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/supervisor/death"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// Logger names of the log notifications, one per concern, so a client can
// route or filter them.
const (
	LoggerSupervisor = "tmux-mcp.supervisor" // deaths, restarts, restores, adoption
	LoggerResources  = "tmux-mcp.resources"  // fds and PTYs: warnings and refusals
	LoggerRateLimit  = "tmux-mcp.ratelimit"  // calls refused or delayed by a token bucket
	LoggerJobs       = "tmux-mcp.jobs"       // background jobs that ended or were lost
)

// RateSummaryEvery is the window over which rate-limited calls of one
// server are counted into a single log message.
const RateSummaryEvery = time.Second

// eventLog turns supervisor events into MCP log notifications
// (notifications/message) for every client session that completed the
// initialize handshake, at the level the client set with logging/setLevel
// (mcp-go drops what is below it; its default is error). Sessions of the
// 2026-07-28 protocol, which has no setLevel and makes every notification
// opt-in, get none: that protocol leaves server logs to stderr and
// OpenTelemetry.
//
// Messages carry structured data: the event, socket, PID, cause, and
// numbers. They never carry pane text, keystrokes or environment values;
// supervisor events hold none, and only the fields named here are copied.
// Rate limiting is summarised: at most one message per server per second,
// with the count.
type eventLog struct {
	mcp   *server.MCPServer
	unsub func()

	mu       sync.Mutex
	sessions map[string]bool
	rate     map[tmux.Socket]*rateWindow
	closed   bool
}

// rateWindow counts the rate-limited calls of one server since the window
// began.
type rateWindow struct {
	server, pane int
	panes        map[tmux.PaneID]bool
	timer        *time.Timer
}

func newEventLog(s *server.MCPServer, hooks *server.Hooks, src EventSource) *eventLog {
	l := &eventLog{mcp: s, sessions: map[string]bool{}, rate: map[tmux.Socket]*rateWindow{}}
	hooks.AddAfterInitialize(func(ctx context.Context, _ any, _ *mcp.InitializeRequest, _ *mcp.InitializeResult) {
		if cs := server.ClientSessionFromContext(ctx); cs != nil {
			l.mu.Lock()
			l.sessions[cs.SessionID()] = true
			l.mu.Unlock()
		}
	})
	hooks.AddOnUnregisterSession(func(_ context.Context, cs server.ClientSession) {
		l.mu.Lock()
		delete(l.sessions, cs.SessionID())
		l.mu.Unlock()
	})
	if src != nil {
		l.unsub = src.Subscribe(l.onEvent)
	}
	return l
}

func (l *eventLog) onEvent(e supervisor.Event) {
	if e.Type == supervisor.EventRateLimited {
		l.countRateLimited(e)
		return
	}
	if level, logger, data, ok := logEntry(e); ok {
		l.publish(level, logger, data)
	}
}

// logEntry maps an event to a log message: its level, logger and data. It
// reports false for events that are not logged (commands, cache hits,
// barriers and structure changes are traffic, not news).
func logEntry(e supervisor.Event) (mcp.LoggingLevel, string, map[string]any, bool) {
	sock := e.Socket.String()
	data := map[string]any{"event": string(e.Type), "socket": sock}
	if e.PID > 0 {
		data["pid"] = e.PID
	}
	switch e.Type {
	case supervisor.EventServerDied:
		data["cause"] = string(e.Cause)
		data["detail"] = e.Detail
		data["message"] = fmt.Sprintf("tmux server %s died (%s): %s", sock, e.Cause, e.Detail)
		return deathLevel(e.Cause), LoggerSupervisor, data, true
	case supervisor.EventRestarting:
		data["cause"] = string(e.Cause)
		data["attempt"] = e.Attempt
		data["delay_ms"] = e.Delay.Milliseconds()
		data["message"] = fmt.Sprintf("tmux server %s: %s", sock, e.Detail)
		return mcp.LoggingLevelWarning, LoggerSupervisor, data, true
	case supervisor.EventRestarted:
		data["message"] = fmt.Sprintf("tmux server %s is back (pid %d)", sock, e.PID)
		return mcp.LoggingLevelNotice, LoggerSupervisor, data, true
	case supervisor.EventSocketRecreated:
		data["message"] = fmt.Sprintf("tmux server %s: its deleted socket was recreated", sock)
		return mcp.LoggingLevelNotice, LoggerSupervisor, data, true
	case supervisor.EventRestored:
		// The restorer's error text is not copied: it is not ours to
		// vouch for (it may name commands); the journal keeps it.
		data["ok"] = e.Detail == ""
		if e.Detail != "" {
			data["message"] = fmt.Sprintf("tmux server %s: restore failed; see server_health and the journal", sock)
			return mcp.LoggingLevelError, LoggerSupervisor, data, true
		}
		data["message"] = fmt.Sprintf("tmux server %s: sessions restored", sock)
		return mcp.LoggingLevelNotice, LoggerSupervisor, data, true
	case supervisor.EventServerAdopted, supervisor.EventServerStarted:
		data["version"] = e.Detail
		verb := "adopted"
		if e.Type == supervisor.EventServerStarted {
			verb = "started"
		}
		data["message"] = fmt.Sprintf("tmux server %s %s (pid %d)", sock, verb, e.PID)
		return mcp.LoggingLevelInfo, LoggerSupervisor, data, true
	case supervisor.EventResourceWarning, supervisor.EventResourceRefused:
		data["resource"] = e.Resource
		data["used"] = e.Used
		data["limit"] = e.Limit
		data["ratio"] = e.Ratio
		if e.Type == supervisor.EventResourceRefused {
			data["message"] = fmt.Sprintf("tmux server %s: refused to create a pane: %s at %d of %d", sock, e.Resource, e.Used, e.Limit)
			return mcp.LoggingLevelError, LoggerResources, data, true
		}
		data["message"] = fmt.Sprintf("tmux server %s: %s at %d of %d (%.0f%%)", sock, e.Resource, e.Used, e.Limit, 100*e.Ratio)
		return mcp.LoggingLevelWarning, LoggerResources, data, true
	}
	return "", "", nil, false
}

// deathLevel is the level of a death: an error unless tmux-mcp was asked
// to kill the server or its last session ended.
func deathLevel(c death.Cause) mcp.LoggingLevel {
	switch c {
	case death.CauseKillServer:
		return mcp.LoggingLevelInfo
	case death.CauseLastSession:
		return mcp.LoggingLevelNotice
	}
	return mcp.LoggingLevelError
}

// countRateLimited counts a rate-limited call into its server's window,
// opening one (and scheduling its summary) if none is open.
func (l *eventLog) countRateLimited(e supervisor.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	w := l.rate[e.Socket]
	if w == nil {
		w = &rateWindow{panes: map[tmux.PaneID]bool{}}
		l.rate[e.Socket] = w
		sock := e.Socket
		w.timer = time.AfterFunc(RateSummaryEvery, func() { l.summarise(sock) })
	}
	if e.Pane != "" {
		w.pane++
		w.panes[e.Pane] = true
	} else {
		w.server++
	}
}

// summarise closes sock's window and logs what it counted.
func (l *eventLog) summarise(sock tmux.Socket) {
	l.mu.Lock()
	w := l.rate[sock]
	delete(l.rate, sock)
	l.mu.Unlock()
	if w == nil {
		return
	}
	n := w.server + w.pane
	l.publish(mcp.LoggingLevelWarning, LoggerRateLimit, map[string]any{
		"event": string(supervisor.EventRateLimited), "socket": sock.String(),
		"count": n, "server_limited": w.server, "pane_limited": w.pane, "panes": len(w.panes),
		"window_ms": RateSummaryEvery.Milliseconds(),
		"message": fmt.Sprintf("tmux server %s: %d calls rate-limited in the last %s (%d by the server's budget, %d by %d panes' read budgets); poll less often or wait for a change",
			sock, n, RateSummaryEvery, w.server, w.pane, len(w.panes)),
	})
}

// publish sends one log message to every handshake session; mcp-go drops
// it for sessions whose level is above level, and when a session's queue
// is full.
func (l *eventLog) publish(level mcp.LoggingLevel, logger string, data map[string]any) {
	n := mcp.NewLoggingMessageNotification(level, logger, data)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	for id := range l.sessions {
		_ = l.mcp.SendLogMessageToSpecificClient(id, n)
	}
}

func (l *eventLog) close() {
	if l.unsub != nil {
		l.unsub()
	}
	l.mu.Lock()
	l.closed = true
	for _, w := range l.rate {
		w.timer.Stop()
	}
	l.rate = nil
	l.mu.Unlock()
}

// jobEnded logs that a background job ended or was lost, at info level:
// its ID, pane, state, exit status and why, never its command or output.
// A task's call is not logged: the message goes to every session, and a
// task is its caller's alone (its own notifications and tasks/get tell
// that caller).
func (l *eventLog) jobEnded(rec jobrecord.Record) {
	if rec.Kind == jobrecord.KindCall {
		return
	}
	data := map[string]any{"event": "job_" + rec.State, "job_id": rec.ID, "state": rec.State, "pane_id": string(rec.Pane),
		"socket": rec.Socket.String(), "elapsed_seconds": seconds(rec.Ended.Sub(rec.Started)), "exit_status": rec.ExitStatus}
	var msg string
	switch {
	case rec.State == jobrecord.Lost:
		msg = fmt.Sprintf("job %s in pane %s lost: %s", rec.ID, rec.Pane, rec.Reason)
	case rec.ExitStatus != nil:
		msg = fmt.Sprintf("job %s in pane %s exited with status %d", rec.ID, rec.Pane, *rec.ExitStatus)
	default:
		msg = fmt.Sprintf("job %s in pane %s exited, status unknown", rec.ID, rec.Pane)
	}
	if rec.Reason != "" {
		data["reason"] = rec.Reason
	}
	data["message"] = msg
	l.publish(mcp.LoggingLevelInfo, LoggerJobs, data)
}

// seconds is d in seconds, to the millisecond, as the tools report times.
func seconds(d time.Duration) float64 {
	return math.Round(d.Seconds()*1000) / 1000
}
