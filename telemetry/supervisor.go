package telemetry

import (
	"context"
	"errors"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
)

// Attribute keys of the supervisor's metrics.
const (
	socketKey    = attribute.Key("tmux.socket")
	commandKey   = attribute.Key("tmux.command")
	transportKey = attribute.Key("tmux.transport")
	cacheHitKey  = attribute.Key("tmux.cache_hit")
	scopeKey     = attribute.Key("tmux.rate_limit.scope")
	resourceKey  = attribute.Key("tmux.resource")
	causeKey     = attribute.Key("tmux.death.cause")
	restartKey   = attribute.Key("tmux.restart.kind")
	errorTypeKey = semconv.ErrorTypeKey
)

// SupervisorSource is what the metrics read from the supervisor: its
// events and the servers whose Health they observe. A
// *supervisor.Supervisor is one.
type SupervisorSource interface {
	Subscribe(fn func(supervisor.Event)) (unsubscribe func())
	Servers() []*supervisor.Server
}

// supervisorMetrics turns supervisor events into counters and histograms
// and observes each server's Health as gauges. The supervisor itself knows
// nothing of metrics.
type supervisorMetrics struct {
	commandDuration metric.Float64Histogram
	barrierDuration metric.Float64Histogram
	captures        metric.Int64Counter
	rateLimited     metric.Int64Counter
	refused         metric.Int64Counter
	deaths          metric.Int64Counter
	restarts        metric.Int64Counter
	restoreDuration metric.Float64Histogram

	mu        sync.Mutex
	restarted map[string]time.Time // by socket: when the server the restore works on came up
}

// ObserveSupervisor records the supervisor's metrics until the returned
// function is called. With metrics off it records nothing.
func (t *Telemetry) ObserveSupervisor(src SupervisorSource) (stop func(), err error) {
	if !t.metering {
		return func() {}, nil
	}
	return observeSupervisor(t.meters, src)
}

// observeSupervisor registers the supervisor's metrics on mp and feeds
// them until the returned function is called.
func observeSupervisor(mp metric.MeterProvider, src SupervisorSource) (stop func(), err error) {
	m := mp.Meter(instrumentationName)
	sm := &supervisorMetrics{restarted: map[string]time.Time{}}
	var errs []error
	add := func(err error) { errs = append(errs, err) }
	var e error
	sm.commandDuration, e = m.Float64Histogram("tmux.command.duration", metric.WithUnit("s"),
		metric.WithDescription("tmux commands sent to a server, by command, transport and error.type (absent on success)"),
		latencyBuckets)
	add(e)
	sm.barrierDuration, e = m.Float64Histogram("tmux.barrier.duration", metric.WithUnit("s"),
		metric.WithDescription("round trips that prove a cached capture fresh (a watcher barrier or an exec probe), by transport and error.type"),
		latencyBuckets)
	add(e)
	sm.captures, e = m.Int64Counter("tmux.captures", metric.WithUnit("{capture}"),
		metric.WithDescription("pane captures served from cache (tmux.cache_hit true) or by tmux (false)"))
	add(e)
	sm.rateLimited, e = m.Int64Counter("tmux.rate_limited", metric.WithUnit("{call}"),
		metric.WithDescription("calls refused by a token bucket, by scope (server or pane)"))
	add(e)
	sm.refused, e = m.Int64Counter("tmux.resource_refused", metric.WithUnit("{call}"),
		metric.WithDescription("commands that create panes refused before the server ran out of fds (or the host of PTYs), by resource"))
	add(e)
	sm.deaths, e = m.Int64Counter("tmux.server.deaths", metric.WithUnit("{death}"),
		metric.WithDescription("tmux server deaths, by cause"))
	add(e)
	sm.restarts, e = m.Int64Counter("tmux.server.restarts", metric.WithUnit("{restart}"),
		metric.WithDescription("restarts after a death: a new server (restart) or a deleted socket brought back (socket_recreated)"))
	add(e)
	sm.restoreDuration, e = m.Float64Histogram("tmux.server.restore.duration", metric.WithUnit("s"),
		metric.WithDescription("time to rebuild sessions after a restart, by error.type (absent on success)"),
		metric.WithExplicitBucketBoundaries(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30))
	add(e)
	fds, e := m.Int64ObservableGauge("tmux.server.open_fds", metric.WithUnit("{fd}"),
		metric.WithDescription("file descriptors the tmux server has open"))
	add(e)
	fdLimit, e := m.Int64ObservableGauge("tmux.server.fd_limit", metric.WithUnit("{fd}"),
		metric.WithDescription("the tmux server's RLIMIT_NOFILE soft limit"))
	add(e)
	rss, e := m.Int64ObservableGauge("tmux.server.memory.rss", metric.WithUnit("By"),
		metric.WithDescription("resident memory of the tmux server"))
	add(e)
	ptys, e := m.Int64ObservableGauge("tmux.ptys.used", metric.WithUnit("{pty}"),
		metric.WithDescription("pseudo-terminals in use on the host (kernel.pty.nr)"))
	add(e)
	ptyMax, e := m.Int64ObservableGauge("tmux.ptys.max", metric.WithUnit("{pty}"),
		metric.WithDescription("the host's pseudo-terminal maximum (kernel.pty.max)"))
	add(e)
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	reg, err := m.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		var hostSeen bool
		for _, srv := range src.Servers() {
			h := srv.Health()
			// Resources come from the monitor's last sample: only a server
			// that is up has a current one.
			if h.State != supervisor.StateUp || h.PID == 0 {
				continue
			}
			at := metric.WithAttributes(socketKey.String(h.Socket))
			o.ObserveInt64(fds, int64(h.FDs), at)
			if h.FDLimit > 0 {
				o.ObserveInt64(fdLimit, clampInt64(h.FDLimit), at)
			}
			o.ObserveInt64(rss, clampInt64(h.RSSBytes), at)
			if !hostSeen && h.PTYMax > 0 {
				hostSeen = true
				o.ObserveInt64(ptys, int64(h.PTYs))
				o.ObserveInt64(ptyMax, int64(h.PTYMax))
			}
		}
		return nil
	}, fds, fdLimit, rss, ptys, ptyMax)
	if err != nil {
		return nil, err
	}
	unsubscribe := src.Subscribe(sm.record)
	return func() {
		unsubscribe()
		reg.Unregister() //nolint:errcheck // only fails for a foreign registration
	}, nil
}

// clampInt64 converts an unsigned figure (an unlimited rlimit is the
// largest uint64) to an int64 gauge value.
func clampInt64(v uint64) int64 {
	const maxInt64 = 1<<63 - 1
	if v > maxInt64 {
		return maxInt64
	}
	return int64(v)
}

// record runs on the goroutine that emitted e and must not block:
// instruments only aggregate in memory.
func (sm *supervisorMetrics) record(e supervisor.Event) {
	ctx := context.Background()
	sock := socketKey.String(e.Socket.String())
	switch e.Type {
	case supervisor.EventCommand:
		attrs := []attribute.KeyValue{sock, commandKey.String(e.Command), transportKey.String(e.Transport)}
		if e.ErrClass != "" {
			attrs = append(attrs, errorTypeKey.String(e.ErrClass))
		}
		sm.commandDuration.Record(ctx, e.Duration.Seconds(), metric.WithAttributes(attrs...))
		if e.Command == "capture-pane" && e.ErrClass == "" {
			sm.captures.Add(ctx, 1, metric.WithAttributes(sock, cacheHitKey.Bool(false)))
		}
	case supervisor.EventBarrier:
		attrs := []attribute.KeyValue{sock, transportKey.String(e.Transport)}
		if e.ErrClass != "" {
			attrs = append(attrs, errorTypeKey.String(e.ErrClass))
		}
		sm.barrierDuration.Record(ctx, e.Duration.Seconds(), metric.WithAttributes(attrs...))
	case supervisor.EventCacheHit:
		sm.captures.Add(ctx, 1, metric.WithAttributes(sock, cacheHitKey.Bool(true)))
	case supervisor.EventRateLimited:
		scope := "pane"
		if e.Pane == "" {
			scope = "server"
		}
		sm.rateLimited.Add(ctx, 1, metric.WithAttributes(sock, scopeKey.String(scope)))
	case supervisor.EventResourceRefused:
		sm.refused.Add(ctx, 1, metric.WithAttributes(sock, resourceKey.String(e.Resource)))
	case supervisor.EventServerDied:
		sm.deaths.Add(ctx, 1, metric.WithAttributes(sock, causeKey.String(string(e.Cause))))
	case supervisor.EventRestarted:
		sm.restarts.Add(ctx, 1, metric.WithAttributes(sock, restartKey.String("restart")))
		sm.mu.Lock()
		sm.restarted[e.Socket.String()] = e.Time
		sm.mu.Unlock()
	case supervisor.EventSocketRecreated:
		sm.restarts.Add(ctx, 1, metric.WithAttributes(sock, restartKey.String("socket_recreated")))
	case supervisor.EventRestored:
		// The supervisor restores right after it announces the restart, on
		// the same goroutine: the restore took from then to now.
		sm.mu.Lock()
		start, ok := sm.restarted[e.Socket.String()]
		delete(sm.restarted, e.Socket.String())
		sm.mu.Unlock()
		if !ok {
			return
		}
		attrs := []attribute.KeyValue{sock}
		if e.Detail != "" {
			attrs = append(attrs, errorTypeKey.String("restore_failed"))
		}
		sm.restoreDuration.Record(ctx, e.Time.Sub(start).Seconds(), metric.WithAttributes(attrs...))
	}
}

// latencyBuckets are the bucket boundaries (seconds) of the tmux round-trip
// histograms: 100 µs to 10 s.
var latencyBuckets = metric.WithExplicitBucketBoundaries(0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)
