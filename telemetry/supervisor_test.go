package telemetry

import (
	"context"
	"errors"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/supervisor/death"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// metricsEnv is a supervisor over an isolated socket with its metrics
// read by a manual reader.
type metricsEnv struct {
	t      *testing.T
	tm     *tmuxtest.Server
	sup    *supervisor.Supervisor
	reader *sdkmetric.ManualReader
}

func newMetricsEnv(t *testing.T, cfg supervisor.Config) *metricsEnv {
	t.Helper()
	e := &metricsEnv{t: t, tm: tmuxtest.New(t), reader: sdkmetric.NewManualReader()}
	cfg.DefaultSocket = tmux.Socket{Path: e.tm.Socket}
	cfg.TmuxConfig = "/dev/null"
	cfg.Restart.Initial = 20 * time.Millisecond
	cfg.ProbeInterval = 100 * time.Millisecond
	e.sup = supervisor.New(cfg)
	// A server the supervisor starts is this test's to end.
	e.sup.Subscribe(func(ev supervisor.Event) {
		if ev.Type == supervisor.EventServerStarted || ev.Type == supervisor.EventServerAdopted {
			e.tm.Track(ev.PID)
		}
	})
	t.Cleanup(func() { e.sup.Close() })
	stop, err := observeSupervisor(sdkmetric.NewMeterProvider(sdkmetric.WithReader(e.reader)), e.sup)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return e
}

func (e *metricsEnv) server() *supervisor.Server {
	e.t.Helper()
	srv, err := e.sup.Default(testCtx(e.t))
	if err != nil {
		e.t.Fatal(err)
	}
	return srv
}

// point is one data point: its attributes and its value (a histogram's
// count).
type point struct {
	attrs map[string]string
	value int64
}

// collect returns every data point by metric name.
func (e *metricsEnv) collect() map[string][]point {
	e.t.Helper()
	var rm metricdata.ResourceMetrics
	if err := e.reader.Collect(context.Background(), &rm); err != nil {
		e.t.Fatal(err)
	}
	out := map[string][]point{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					out[m.Name] = append(out[m.Name], point{attrMap(p.Attributes.ToSlice()), p.Value})
				}
			case metricdata.Gauge[int64]:
				for _, p := range d.DataPoints {
					out[m.Name] = append(out[m.Name], point{attrMap(p.Attributes.ToSlice()), p.Value})
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					out[m.Name] = append(out[m.Name], point{attrMap(p.Attributes.ToSlice()), int64(p.Count)})
				}
			}
		}
	}
	return out
}

func attrMap(kvs []attribute.KeyValue) map[string]string {
	m := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		m[string(kv.Key)] = kv.Value.String()
	}
	return m
}

// sum adds up the points of name whose attributes include match.
func sum(points []point, match map[string]string) int64 {
	var n int64
next:
	for _, p := range points {
		for k, v := range match {
			if p.attrs[k] != v {
				continue next
			}
		}
		n += p.value
	}
	return n
}

func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestMetricsAgreeWithHealth drives commands and cached captures through a
// supervisor and checks that the metrics count exactly what the
// supervisor's own counters count.
func TestMetricsAgreeWithHealth(t *testing.T) {
	e := newMetricsEnv(t, supervisor.Config{})
	e.tm.Start("main")
	srv := e.server()
	_, pane, err := srv.NewSession(testCtx(t), supervisor.NewSessionOptions{Name: "quiet", Spawn: supervisor.Spawn{Command: "exec cat"}})
	if err != nil {
		t.Fatal(err)
	}
	tmuxtest.WaitFor(t, 10*time.Second, "a cached capture", func() bool {
		c, err := srv.Capture(testCtx(t), supervisor.CaptureRequest{Pane: pane})
		return err == nil && c.Cached
	})
	if err := srv.KillPane(testCtx(t), "%999"); err == nil {
		t.Fatal("kill-pane of a missing pane succeeded")
	}
	tmuxtest.WaitFor(t, 10*time.Second, "a resource sample", func() bool { return srv.Health().FDs > 0 })

	h := srv.Health()
	got := e.collect()
	sock := map[string]string{"tmux.socket": e.tm.Socket}
	if n := sum(got["tmux.command.duration"], sock); n != int64(h.Commands) {
		t.Errorf("tmux.command.duration count = %d, want Health().Commands %d", n, h.Commands)
	}
	if n := sum(got["tmux.command.duration"], map[string]string{"tmux.command": "kill-pane", "error.type": "pane_not_found"}); n != 1 {
		t.Errorf("kill-pane with error.type pane_not_found = %d, want 1; points %v", n, got["tmux.command.duration"])
	}
	if n := sum(got["tmux.command.duration"], map[string]string{"tmux.command": "new-session", "tmux.transport": "control"}); n != 1 {
		t.Errorf("new-session over control = %d, want 1; points %v", n, got["tmux.command.duration"])
	}
	if n := sum(got["tmux.captures"], map[string]string{"tmux.cache_hit": "true"}); n != int64(h.CacheHits) || n == 0 {
		t.Errorf("tmux.captures from cache = %d, want Health().CacheHits %d (> 0)", n, h.CacheHits)
	}
	if n := sum(got["tmux.captures"], map[string]string{"tmux.cache_hit": "false"}); n != int64(h.Captures) || n == 0 {
		t.Errorf("tmux.captures by tmux = %d, want Health().Captures %d (> 0)", n, h.Captures)
	}
	if n := sum(got["tmux.barrier.duration"], nil); n != int64(h.Barriers) || n == 0 {
		t.Errorf("tmux.barrier.duration count = %d, want Health().Barriers %d (> 0)", n, h.Barriers)
	}
	for _, name := range []string{"tmux.server.open_fds", "tmux.server.fd_limit", "tmux.server.memory.rss"} {
		if n := sum(got[name], sock); n <= 0 {
			t.Errorf("%s = %d, want > 0", name, n)
		}
	}
	if fds, limit := sum(got["tmux.server.open_fds"], sock), sum(got["tmux.server.fd_limit"], sock); fds > limit {
		t.Errorf("open fds %d above the limit %d", fds, limit)
	}
	if used, most := sum(got["tmux.ptys.used"], nil), sum(got["tmux.ptys.max"], nil); used <= 0 || most < used {
		t.Errorf("ptys used %d of %d, want at least one pane's and at most the maximum", used, most)
	}
}

func TestRateLimitedMetric(t *testing.T) {
	// One token, refilled once a quarter hour: the second call is refused.
	tests := []struct {
		scope string
		cfg   supervisor.Config
		call  func(t *testing.T, srv *supervisor.Server, pane tmux.PaneID, i int) error
	}{
		{"pane", supervisor.Config{ReadRate: 0.001, ReadBurst: 1, RateWait: time.Millisecond},
			func(t *testing.T, srv *supervisor.Server, pane tmux.PaneID, i int) error {
				start := -5 - i // a range of its own: the cache cannot answer
				_, err := srv.Capture(testCtx(t), supervisor.CaptureRequest{Pane: pane, Start: &start})
				return err
			}},
		{"server", supervisor.Config{ServerRate: 0.001, ServerBurst: 1, RateWait: time.Millisecond},
			func(t *testing.T, srv *supervisor.Server, _ tmux.PaneID, _ int) error {
				_, err := srv.ListSessions(testCtx(t))
				return err
			}},
	}
	for _, tt := range tests {
		t.Run(tt.scope, func(t *testing.T) {
			e := newMetricsEnv(t, tt.cfg)
			e.tm.Start("main")
			pane := tmux.PaneID(e.tm.MustTmux("display-message", "-p", "-t", "main", "#{pane_id}"))
			srv := e.server()
			if err := tt.call(t, srv, pane, 0); err != nil {
				t.Fatalf("first call: %v", err)
			}
			if err := tt.call(t, srv, pane, 1); !errors.Is(err, supervisor.ErrRateLimited) {
				t.Fatalf("second call: got %v, want it rate limited", err)
			}
			got := e.collect()["tmux.rate_limited"]
			if n := sum(got, map[string]string{"tmux.rate_limit.scope": tt.scope, "tmux.socket": e.tm.Socket}); n != 1 {
				t.Errorf("tmux.rate_limited scope %s = %d, want 1; points %v", tt.scope, n, got)
			}
			if n, want := sum(got, nil), int64(srv.Health().RateLimited); n != want {
				t.Errorf("tmux.rate_limited = %d, want Health().RateLimited %d", n, want)
			}
		})
	}
}

func TestResourceRefusedMetric(t *testing.T) {
	// Any fd use is above these fractions of the limit: every command
	// that creates a pane is refused.
	e := newMetricsEnv(t, supervisor.Config{FDWarn: 1e-9, FDRefuse: 1e-9})
	e.tm.Start("main")
	srv := e.server()
	if _, _, err := srv.NewWindow(testCtx(t), supervisor.NewWindowOptions{Session: "main"}); !errors.Is(err, supervisor.ErrResourceExhausted) {
		t.Fatalf("new-window: got %v, want it refused", err)
	}
	got := e.collect()["tmux.resource_refused"]
	if n := sum(got, map[string]string{"tmux.resource": "fds", "tmux.socket": e.tm.Socket}); n != 1 {
		t.Errorf("tmux.resource_refused for fds = %d, want 1; points %v", n, got)
	}
}

// restorer recreates one session, as the journal would.
type restorer struct {
	mu    sync.Mutex
	calls int
}

func (r *restorer) Restore(ctx context.Context, srv *supervisor.Server) error {
	_, _, err := srv.NewSession(ctx, supervisor.NewSessionOptions{Name: "restored"})
	r.mu.Lock()
	r.calls++
	r.mu.Unlock()
	return err
}

func TestDeathRestartRestoreMetrics(t *testing.T) {
	e := newMetricsEnv(t, supervisor.Config{Restorer: &restorer{}})
	srv := e.server() // started by the supervisor: it restarts and restores it
	pid := srv.Health().PID
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var got map[string][]point
	tmuxtest.WaitFor(t, 10*time.Second, "a restore recorded", func() bool {
		got = e.collect()
		return sum(got["tmux.server.restore.duration"], nil) > 0
	})
	sock := map[string]string{"tmux.socket": e.tm.Socket}
	if n := sum(got["tmux.server.deaths"], map[string]string{"tmux.death.cause": string(death.CauseKilled)}); n != 1 {
		t.Errorf("deaths by kill = %d, want 1; points %v", n, got["tmux.server.deaths"])
	}
	if n := sum(got["tmux.server.restarts"], map[string]string{"tmux.restart.kind": "restart", "tmux.socket": e.tm.Socket}); n != 1 {
		t.Errorf("restarts = %d, want 1; points %v", n, got["tmux.server.restarts"])
	}
	restores := got["tmux.server.restore.duration"]
	if n := sum(restores, sock); n != 1 || restores[0].attrs["error.type"] != "" {
		t.Errorf("restores = %v, want one without error.type", restores)
	}
	if h := srv.Health(); h.Restarts != 1 || h.PID == pid {
		t.Errorf("health after recovery: %d restarts, PID %d (was %d); want 1 and a new PID", h.Restarts, h.PID, pid)
	}
}
