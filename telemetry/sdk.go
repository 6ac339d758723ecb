package telemetry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

// Bounds that keep telemetry from ever holding up the server. The batch
// span processor's queue is bounded by the SDK (OTEL_BSP_MAX_QUEUE_SIZE,
// 2048 spans, dropped when full) and a metric export by
// OTEL_METRIC_EXPORT_TIMEOUT; these bound the rest.
const (
	// flushTimeout bounds the final flush at shutdown: a collector
	// that is down costs the exit this much at most.
	flushTimeout = time.Second
	// otlpTimeout is an OTLP export's timeout unless
	// OTEL_EXPORTER_OTLP_[SIGNAL_]TIMEOUT sets one (the SDK's default is
	// 10s).
	otlpTimeout = 5 * time.Second
)

// instrumentationName names the tracer and meter of the MCP requests and
// the supervisor metrics: this package's path, as the supervisor's tmux
// spans are named for package supervisor's.
const instrumentationName = "github.com/tmux-mcp/tmux-mcp/telemetry"

// retryConfig has the fields of each OTLP exporter's RetryConfig, so it
// converts to any of them.
type retryConfig struct {
	Enabled                                      bool
	InitialInterval, MaxInterval, MaxElapsedTime time.Duration
}

// otlpRetry bounds the retries of one export (the SDK's default retries
// for a minute, with the batch queue filling behind it).
func otlpRetry() retryConfig {
	return retryConfig{Enabled: true, InitialInterval: 500 * time.Millisecond, MaxInterval: 2 * time.Second, MaxElapsedTime: 5 * time.Second}
}

// otelSignal is one OpenTelemetry signal the binary exports over OTLP.
type otelSignal string

const (
	otelTraces  otelSignal = "TRACES"
	otelMetrics otelSignal = "METRICS"
)

// Plan says what the environment and --trace-file ask for. An empty
// protocol means the signal is not exported over OTLP.
type Plan struct {
	Traces    string // "", "grpc", "http/protobuf" or "http/json"
	Metrics   string
	TraceFile string
}

func (p Plan) tracing() bool { return p.Traces != "" || p.TraceFile != "" }
func (p Plan) on() bool      { return p.tracing() || p.Metrics != "" }

// PlanFromEnv reads the standard variables that decide whether a signal
// is exported and over which OTLP protocol; everything else (endpoints,
// headers, timeouts, TLS, compression, sampler, batch sizes, resource
// attributes) the SDK and its exporters read themselves. Telemetry is off
// unless asked for: an OTLP endpoint is set, OTEL_<SIGNAL>_EXPORTER=otlp,
// or --trace-file. OTEL_SDK_DISABLED=true turns OTLP export off.
func PlanFromEnv(getenv func(string) string, traceFile string) (Plan, error) {
	p := Plan{TraceFile: traceFile}
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return p, nil
	}
	var err error
	if p.Traces, err = planSignal(getenv, otelTraces); err != nil {
		return Plan{}, err
	}
	if p.Metrics, err = planSignal(getenv, otelMetrics); err != nil {
		return Plan{}, err
	}
	return p, nil
}

// planSignal returns the OTLP protocol for sig, or "" when sig is not
// exported.
func planSignal(getenv func(string) string, sig otelSignal) (string, error) {
	exporterVar := "OTEL_" + string(sig) + "_EXPORTER"
	on := getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_"+string(sig)+"_ENDPOINT") != ""
	if v := strings.TrimSpace(getenv(exporterVar)); v != "" {
		on = false
		for _, name := range strings.Split(v, ",") {
			switch strings.ToLower(strings.TrimSpace(name)) {
			case "otlp":
				on = true
			case "none":
			default:
				return "", fmt.Errorf("$%s: exporter %q is not supported; want otlp or none (--trace-file writes spans to a file)", exporterVar, name)
			}
		}
	}
	if !on {
		return "", nil
	}
	protoVar := "OTEL_EXPORTER_OTLP_" + string(sig) + "_PROTOCOL"
	proto := getenv(protoVar)
	if proto == "" {
		protoVar = "OTEL_EXPORTER_OTLP_PROTOCOL"
		proto = getenv(protoVar)
	}
	switch proto {
	case "":
		return "http/protobuf", nil
	case "grpc", "http/protobuf", "http/json":
		return proto, nil
	}
	return "", fmt.Errorf("$%s: protocol %q is not supported; want grpc, http/protobuf or http/json", protoVar, proto)
}

// Telemetry is the OpenTelemetry SDK of one serve run. Its zero value is
// telemetry switched off.
type Telemetry struct {
	tracing    bool                 // spans are exported
	metering   bool                 // metrics are exported
	tracers    trace.TracerProvider // no-op when no traces are exported
	meters     metric.MeterProvider // no-op when no metrics are exported
	propagator propagation.TextMapPropagator
	shutdowns  []func(context.Context) error
	logger     *slog.Logger // where Shutdown reports a failed flush
}

// Start sets the SDK up as plan says and installs it as the global
// tracer provider (the supervisor takes its tracer from there) and error
// handler (export failures go to logger, rate-limited). version is the
// resource's service.version; getenv reads the OTEL_* variables the
// exporters take their settings from. Nothing is ever written to stdout.
// Call Shutdown at exit.
func Start(ctx context.Context, plan Plan, version string, getenv func(string) string, logger *slog.Logger) (*Telemetry, error) {
	t := &Telemetry{logger: logger, tracing: plan.tracing(), metering: plan.Metrics != "", tracers: tracenoop.NewTracerProvider(), meters: metricnoop.NewMeterProvider(),
		propagator: propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})}
	if !plan.on() {
		return t, nil
	}
	logger.Info("telemetry on", "otlp_traces", plan.Traces, "otlp_metrics", plan.Metrics, "trace_file", plan.TraceFile)
	otel.SetLogger(logr.FromSlogHandler(logger.Handler()))
	otel.SetErrorHandler(newExportErrorHandler(logger, time.Now))
	res, err := newResource(ctx, version)
	if err != nil && !errors.Is(err, resource.ErrPartialResource) {
		return nil, fmt.Errorf("telemetry: resource: %w", err)
	} else if err != nil {
		logger.Warn("telemetry: resource", "err", err)
	}
	if plan.tracing() {
		tp, closeFile, err := newTracerProvider(ctx, plan, res, getenv)
		if err != nil {
			return nil, err
		}
		t.shutdowns = append(t.shutdowns, func(ctx context.Context) error {
			return errors.Join(tp.Shutdown(ctx), closeFile()) // the file closes after the last span is written
		})
		t.tracers = tp
		otel.SetTracerProvider(tp)
		otel.SetTextMapPropagator(t.propagator)
	}
	if plan.Metrics != "" {
		exp, err := newMetricExporter(ctx, plan.Metrics, getenv)
		if err != nil {
			t.Shutdown(ctx)
			return nil, err
		}
		// OTEL_METRIC_EXPORT_INTERVAL and _TIMEOUT set the reader's period.
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithResource(res), sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp)))
		t.shutdowns = append(t.shutdowns, mp.Shutdown)
		t.meters = mp
		otel.SetMeterProvider(mp)
	}
	return t, nil
}

// newResource describes this process to the backend: service.name
// (tmux-mcp), service.version, a random service.instance.id per process,
// host.name, process.pid, the Go version and the SDK's. Several processes
// export to one collector (one per agent, on many hosts): host.name tells
// the hosts apart and service.instance.id the processes, which a
// Prometheus exporter turns into the instance label. OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES are merged last, so they win over everything
// detected, host.name included (containers' hostnames say little).
func newResource(ctx context.Context, version string) (*resource.Resource, error) {
	return resource.New(ctx,
		resource.WithService(), // service.instance.id; its unknown_service name is replaced below
		resource.WithAttributes(semconv.ServiceName("tmux-mcp"), semconv.ServiceVersion(version)),
		resource.WithTelemetrySDK(), resource.WithHost(), resource.WithProcessPID(), resource.WithProcessRuntimeVersion(),
		resource.WithFromEnv())
}

// newTracerProvider returns the tracer provider plan asks for, batching to
// OTLP and/or the trace file, and the function that closes the file.
func newTracerProvider(ctx context.Context, plan Plan, res *resource.Resource, getenv func(string) string) (*sdktrace.TracerProvider, func() error, error) {
	opts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res)} // sampler: OTEL_TRACES_SAMPLER
	closeFile := func() error { return nil }
	if plan.TraceFile != "" {
		f, err := os.OpenFile(plan.TraceFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return nil, nil, fmt.Errorf("telemetry: trace file: %w", err)
		}
		closeFile = f.Close
		exp, err := stdouttrace.New(stdouttrace.WithWriter(f)) // one JSON object per line; never stdout
		if err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("telemetry: trace file: %w", err)
		}
		opts = append(opts, sdktrace.WithBatcher(exp))
	}
	if plan.Traces != "" {
		exp, err := newTraceExporter(ctx, plan.Traces, getenv)
		if err != nil {
			closeFile()
			return nil, nil, err
		}
		opts = append(opts, sdktrace.WithBatcher(exp)) // OTEL_BSP_*: a bounded queue that drops when full
	}
	return sdktrace.NewTracerProvider(opts...), closeFile, nil
}

// timeoutSet reports whether the environment sets sig's OTLP timeout.
func timeoutSet(getenv func(string) string, sig otelSignal) bool {
	return getenv("OTEL_EXPORTER_OTLP_TIMEOUT") != "" || getenv("OTEL_EXPORTER_OTLP_"+string(sig)+"_TIMEOUT") != ""
}

func newTraceExporter(ctx context.Context, proto string, getenv func(string) string) (sdktrace.SpanExporter, error) {
	var exp sdktrace.SpanExporter
	var err error
	if proto == "grpc" {
		opts := []otlptracegrpc.Option{otlptracegrpc.WithRetry(otlptracegrpc.RetryConfig(otlpRetry()))}
		if !timeoutSet(getenv, otelTraces) {
			opts = append(opts, otlptracegrpc.WithTimeout(otlpTimeout))
		}
		exp, err = otlptracegrpc.New(ctx, opts...)
	} else { // http/protobuf or http/json: the exporter reads which from the environment
		opts := []otlptracehttp.Option{otlptracehttp.WithRetry(otlptracehttp.RetryConfig(otlpRetry()))}
		if !timeoutSet(getenv, otelTraces) {
			opts = append(opts, otlptracehttp.WithTimeout(otlpTimeout))
		}
		exp, err = otlptracehttp.New(ctx, opts...)
	}
	if err != nil {
		return nil, fmt.Errorf("telemetry: OTLP trace exporter (%s): %w", proto, err)
	}
	return exp, nil
}

func newMetricExporter(ctx context.Context, proto string, getenv func(string) string) (sdkmetric.Exporter, error) {
	var exp sdkmetric.Exporter
	var err error
	if proto == "grpc" {
		opts := []otlpmetricgrpc.Option{otlpmetricgrpc.WithRetry(otlpmetricgrpc.RetryConfig(otlpRetry()))}
		if !timeoutSet(getenv, otelMetrics) {
			opts = append(opts, otlpmetricgrpc.WithTimeout(otlpTimeout))
		}
		exp, err = otlpmetricgrpc.New(ctx, opts...)
	} else {
		opts := []otlpmetrichttp.Option{otlpmetrichttp.WithRetry(otlpmetrichttp.RetryConfig(otlpRetry()))}
		if !timeoutSet(getenv, otelMetrics) {
			opts = append(opts, otlpmetrichttp.WithTimeout(otlpTimeout))
		}
		exp, err = otlpmetrichttp.New(ctx, opts...)
	}
	if err != nil {
		return nil, fmt.Errorf("telemetry: OTLP metric exporter (%s): %w", proto, err)
	}
	return exp, nil
}

// Shutdown flushes what is buffered and stops the exporters, traces and
// metrics at once, within flushTimeout whatever the collector does: MCP
// clients give a server about two seconds after closing its stdin before
// they send SIGTERM. Failures are logged to Start's logger.
func (t *Telemetry) Shutdown(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), flushTimeout)
	defer cancel()
	var wg sync.WaitGroup
	for _, stop := range t.shutdowns {
		wg.Go(func() {
			if err := stop(ctx); err != nil {
				t.logger.Warn("telemetry: flush at exit", "err", err)
			}
		})
	}
	wg.Wait()
	t.shutdowns = nil
}

// exportErrorHandler logs OpenTelemetry's errors (failed exports, dropped
// spans), at most one line per exportErrorEvery with a count of those it
// held back: a collector that stays down must not flood the log.
type exportErrorHandler struct {
	logger *slog.Logger
	now    func() time.Time

	mu         sync.Mutex
	last       time.Time
	suppressed int
}

const exportErrorEvery = 30 * time.Second

func newExportErrorHandler(logger *slog.Logger, now func() time.Time) *exportErrorHandler {
	return &exportErrorHandler{logger: logger, now: now}
}

func (h *exportErrorHandler) Handle(err error) {
	h.mu.Lock()
	now := h.now()
	if !h.last.IsZero() && now.Sub(h.last) < exportErrorEvery {
		h.suppressed++
		h.mu.Unlock()
		return
	}
	n := h.suppressed
	h.last, h.suppressed = now, 0
	h.mu.Unlock()
	h.logger.Warn("telemetry", "err", err, "suppressed_since_last", n)
}
