package hosts_test

import (
	"encoding/hex"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/e2etest"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// TestHostsTraceThroughHop: the local tmux-mcp and a host's, both
// exporting to one OpenTelemetry collector, make one trace of a call
// through the hop: the remote tools/call span is a child of the local
// one (trace context carried in the forwarded request's _meta), and each
// side's resource says its host.
func TestHostsTraceThroughHop(t *testing.T) {
	col := e2etest.NewHTTPCollector(t)
	otel := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + col.Endpoint, "OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf",
		"OTEL_SERVICE_NAME=tmux-mcp", "OTEL_BSP_SCHEDULE_DELAY=50", "OTEL_METRIC_EXPORT_INTERVAL=60000"}
	f := startHostsFixtureEnv(t,
		append(otel, "OTEL_RESOURCE_ATTRIBUTES=host.name=laptop"),
		append(otel, "OTEL_RESOURCE_ATTRIBUTES=deployment.environment.name=test"))
	f.sessionsOn(t, "beta")

	type span struct{ trace, id, parent string }
	find := func(host, name string) []span {
		var out []span
		for _, s := range col.HostSpans(host, name) {
			out = append(out, span{hex.EncodeToString(s.GetTraceId()), hex.EncodeToString(s.GetSpanId()),
				hex.EncodeToString(s.GetParentSpanId())})
		}
		return out
	}
	var local, remote []span
	defer func() {
		if t.Failed() {
			t.Logf("host.names at the collector: %v; laptop's list_sessions spans %d, beta's %d", col.HostNames(),
				len(col.HostSpans("laptop", "tools/call list_sessions")), len(col.HostSpans("beta", "tools/call list_sessions")))
		}
	}()
	tmuxtest.WaitFor(t, 15*time.Second, "the call's spans from both hosts at the collector", func() bool {
		local, remote = find("laptop", "tools/call list_sessions"), find("beta", "tools/call list_sessions")
		return len(local) > 0 && len(remote) > 0
	})
	if t.Failed() {
		return
	}
	joined := false
	for _, r := range remote {
		for _, l := range local {
			if r.trace == l.trace && r.parent != "" {
				joined = true
			}
		}
	}
	if !joined {
		t.Errorf("the remote span is not in the local call's trace: local %+v, remote %+v", local, remote)
	}
}
