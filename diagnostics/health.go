package diagnostics

import (
	"fmt"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
)

// HealthSource gives the figures of the supervisor running in this
// process: diagnose run as the MCP tool has one, the command line has
// none.
type HealthSource interface {
	// Health returns the supervisor's health of the server on the socket
	// at path; ok is false when it does not supervise that server.
	Health(path string) (h supervisor.Health, ok bool)
}

// checkSupervisor reports the supervisor's figures for one server.
func checkSupervisor(src HealthSource, path string) Check {
	c := Check{ID: "supervisor", Title: "Supervisor figures"}
	if src == nil {
		c.Status, c.Summary = StatusSkipped, "skipped: not run inside tmux-mcp (call the diagnose MCP tool to see the supervisor's figures)"
		return c
	}
	h, ok := src.Health(path)
	if !ok {
		c.Status, c.Summary = StatusSkipped, "skipped: this tmux-mcp does not supervise this server"
		return c
	}
	c.fact("state", string(h.State))
	c.fact("transport", h.Transport)
	c.fact("owned", h.Owned)
	c.fact("restarts", h.Restarts)
	c.fact("commands", h.Commands)
	c.fact("rate-limited calls", h.RateLimited)
	c.fact("cache hit ratio", fmt.Sprintf("%.2f", h.CacheHitRatio))
	c.fact("captures", h.Captures)
	c.fact("watchers", h.Watchers)
	// supervisor.Health has no count of slow calls: it is a telemetry
	// figure (command durations), not part of the health snapshot.
	c.fact("slow calls", "not in supervisor.Health; see the command-duration telemetry")
	if h.LastDeathCause != "" {
		c.fact("last death", fmt.Sprintf("%s at %s: %s", h.LastDeathCause, h.LastDeathAt.UTC().Format(time.RFC3339), h.LastDeath))
	}
	switch {
	case h.State != supervisor.StateUp:
		c.Status = StatusFail
		c.Summary = fmt.Sprintf("the supervisor sees the server %s", h.State)
		if h.LastDeathCause != "" {
			c.Summary += " after a death (" + string(h.LastDeathCause) + ")"
		}
	case h.Restarts > 0:
		c.Status = StatusWarn
		c.Summary = fmt.Sprintf("up, after %d restart(s); last death: %s", h.Restarts, h.LastDeathCause)
	default:
		c.Status = StatusOK
		c.Summary = fmt.Sprintf("up, no restarts; %d commands, cache hit ratio %.2f, %d rate-limited", h.Commands, h.CacheHitRatio, h.RateLimited)
	}
	return c
}
