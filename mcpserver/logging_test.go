package mcpserver

import (
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/supervisor/death"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// TestLogEntries: every logged event type has a level, a logger and the
// numbers, and the restore error text is not copied.
func TestLogEntries(t *testing.T) {
	sock := tmux.Socket{Name: "x"}
	tests := []struct {
		e      supervisor.Event
		level  mcp.LoggingLevel
		logger string
		keys   []string
	}{
		{supervisor.Event{Type: supervisor.EventServerDied, Socket: sock, PID: 9, Cause: death.CauseCrashed, Detail: "SIGSEGV"},
			mcp.LoggingLevelError, LoggerSupervisor, []string{"cause", "detail", "pid", "socket"}},
		{supervisor.Event{Type: supervisor.EventServerDied, Socket: sock, Cause: death.CauseKillServer},
			mcp.LoggingLevelInfo, LoggerSupervisor, []string{"cause"}},
		{supervisor.Event{Type: supervisor.EventServerDied, Socket: sock, Cause: death.CauseLastSession},
			mcp.LoggingLevelNotice, LoggerSupervisor, []string{"cause"}},
		{supervisor.Event{Type: supervisor.EventRestarting, Socket: sock, Attempt: 2, Delay: time.Second},
			mcp.LoggingLevelWarning, LoggerSupervisor, []string{"attempt", "delay_ms"}},
		{supervisor.Event{Type: supervisor.EventRestarted, Socket: sock, PID: 10}, mcp.LoggingLevelNotice, LoggerSupervisor, []string{"pid"}},
		{supervisor.Event{Type: supervisor.EventSocketRecreated, Socket: sock}, mcp.LoggingLevelNotice, LoggerSupervisor, nil},
		{supervisor.Event{Type: supervisor.EventRestored, Socket: sock}, mcp.LoggingLevelNotice, LoggerSupervisor, []string{"ok"}},
		{supervisor.Event{Type: supervisor.EventRestored, Socket: sock, Detail: "new-window -c /secret: failed"},
			mcp.LoggingLevelError, LoggerSupervisor, []string{"ok"}},
		{supervisor.Event{Type: supervisor.EventServerStarted, Socket: sock, PID: 3, Detail: "3.3a"}, mcp.LoggingLevelInfo, LoggerSupervisor, []string{"version"}},
		{supervisor.Event{Type: supervisor.EventResourceWarning, Socket: sock, Resource: "fds", Used: 7, Limit: 10, Ratio: 0.7},
			mcp.LoggingLevelWarning, LoggerResources, []string{"resource", "used", "limit", "ratio"}},
		{supervisor.Event{Type: supervisor.EventResourceRefused, Socket: sock, Resource: "ptys", Used: 9, Limit: 10, Ratio: 0.9},
			mcp.LoggingLevelError, LoggerResources, []string{"resource", "used", "limit"}},
	}
	for _, tt := range tests {
		level, logger, data, ok := logEntry(tt.e)
		if !ok || level != tt.level || logger != tt.logger {
			t.Errorf("%s %s: got %v %q %q, want %q %q", tt.e.Type, tt.e.Cause, ok, level, logger, tt.level, tt.logger)
			continue
		}
		for _, k := range append([]string{"event", "socket", "message"}, tt.keys...) {
			if _, ok := data[k]; !ok {
				t.Errorf("%s: data %v has no %q", tt.e.Type, data, k)
			}
		}
		for _, v := range data {
			if s, ok := v.(string); ok && strings.Contains(s, "/secret") {
				t.Errorf("%s: data %v copies the restorer's error text", tt.e.Type, data)
			}
		}
	}
	for _, typ := range []supervisor.EventType{supervisor.EventCommand, supervisor.EventCacheHit, supervisor.EventBarrier, supervisor.EventStructure} {
		if _, _, _, ok := logEntry(supervisor.Event{Type: typ}); ok {
			t.Errorf("%s is logged, want it left out (traffic, not news)", typ)
		}
	}
}
