package e2etest

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
)

// Collector is a local OTLP receiver that keeps what it is sent.
type Collector struct {
	Endpoint string // for OTEL_EXPORTER_OTLP_ENDPOINT

	mu         sync.Mutex
	spans      []*tracepb.Span
	services   []string // service.name of every resource that sent spans
	metrics    map[string]bool
	resSpans   []*tracepb.ResourceSpans // everything received, as sent
	resMetrics []*metricpb.ResourceMetrics
}

func (c *Collector) traces(req *coltracepb.ExportTraceServiceRequest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.resSpans = append(c.resSpans, req.GetResourceSpans()...)
	for _, rs := range req.GetResourceSpans() {
		for _, a := range rs.GetResource().GetAttributes() {
			if a.GetKey() == "service.name" {
				c.services = append(c.services, a.GetValue().GetStringValue())
			}
		}
		for _, ss := range rs.GetScopeSpans() {
			c.spans = append(c.spans, ss.GetSpans()...)
		}
	}
}

func (c *Collector) metricsIn(req *colmetricpb.ExportMetricsServiceRequest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.resMetrics = append(c.resMetrics, req.GetResourceMetrics()...)
	for _, rm := range req.GetResourceMetrics() {
		for _, sm := range rm.GetScopeMetrics() {
			for _, m := range sm.GetMetrics() {
				c.metrics[m.GetName()] = true
			}
		}
	}
}

// HasMetric reports whether a metric named name arrived.
func (c *Collector) HasMetric(name string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.metrics[name]
}

// Span returns the spans received named name.
func (c *Collector) Span(name string) []*tracepb.Span {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []*tracepb.Span
	for _, s := range c.spans {
		if s.GetName() == name {
			out = append(out, s)
		}
	}
	return out
}

// Services returns the service.name of every resource that sent spans,
// once per export.
func (c *Collector) Services() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.services)
}

// ResourceSpans returns the spans received, as sent.
func (c *Collector) ResourceSpans() []*tracepb.ResourceSpans {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.resSpans)
}

// ResourceMetrics returns the metrics received, as sent.
func (c *Collector) ResourceMetrics() []*metricpb.ResourceMetrics {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.resMetrics)
}

// ResourceAttrs returns a resource's string attributes.
func ResourceAttrs(r *resourcepb.Resource) map[string]string {
	out := map[string]string{}
	for _, kv := range r.GetAttributes() {
		out[kv.GetKey()] = kv.GetValue().GetStringValue()
	}
	return out
}

// HostMetrics returns the metrics received from host.name host, by name.
func (c *Collector) HostMetrics(host string) map[string][]*metricpb.Metric {
	out := map[string][]*metricpb.Metric{}
	for _, rm := range c.ResourceMetrics() {
		if ResourceAttrs(rm.GetResource())["host.name"] != host {
			continue
		}
		for _, sm := range rm.GetScopeMetrics() {
			for _, m := range sm.GetMetrics() {
				out[m.GetName()] = append(out[m.GetName()], m)
			}
		}
	}
	return out
}

// HostNames returns the host.names of the resources that sent anything.
func (c *Collector) HostNames() []string {
	var out []string
	add := func(r *resourcepb.Resource) {
		if h := ResourceAttrs(r)["host.name"]; !slices.Contains(out, h) {
			out = append(out, h)
		}
	}
	for _, rs := range c.ResourceSpans() {
		add(rs.GetResource())
	}
	for _, rm := range c.ResourceMetrics() {
		add(rm.GetResource())
	}
	return out
}

// HostSpans returns the spans named name received from host.name host.
func (c *Collector) HostSpans(host, name string) []*tracepb.Span {
	var out []*tracepb.Span
	for _, rs := range c.ResourceSpans() {
		if ResourceAttrs(rs.GetResource())["host.name"] != host {
			continue
		}
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				if s.GetName() == name {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// NewHTTPCollector receives OTLP/HTTP with protobuf payloads until the
// test ends.
func NewHTTPCollector(t testing.TB) *Collector {
	c := &Collector{metrics: map[string]bool{}}
	decode := func(w http.ResponseWriter, r *http.Request, req, resp proto.Message) bool {
		b, err := io.ReadAll(r.Body)
		if errors.Is(err, io.ErrUnexpectedEOF) {
			// The exporter gave up mid-request: its per-export timeout or
			// the bounded flush at shutdown (telemetry's flushTimeout) ran
			// out on a loaded machine. Nothing arrived to check.
			http.Error(w, "truncated", http.StatusBadRequest)
			return false
		}
		if err == nil {
			err = proto.Unmarshal(b, req)
		}
		if err != nil || r.Header.Get("Content-Type") != "application/x-protobuf" {
			t.Errorf("collector: %s with Content-Type %q: %v", r.URL.Path, r.Header.Get("Content-Type"), err)
			http.Error(w, "bad request", http.StatusBadRequest)
			return false
		}
		out, _ := proto.Marshal(resp)
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(out)
		return true
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/traces", func(w http.ResponseWriter, r *http.Request) {
		var req coltracepb.ExportTraceServiceRequest
		if decode(w, r, &req, &coltracepb.ExportTraceServiceResponse{}) {
			c.traces(&req)
		}
	})
	mux.HandleFunc("POST /v1/metrics", func(w http.ResponseWriter, r *http.Request) {
		var req colmetricpb.ExportMetricsServiceRequest
		if decode(w, r, &req, &colmetricpb.ExportMetricsServiceResponse{}) {
			c.metricsIn(&req)
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	c.Endpoint = srv.URL
	return c
}

type grpcTraces struct {
	coltracepb.UnimplementedTraceServiceServer
	c *Collector
}

func (g grpcTraces) Export(_ context.Context, req *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	g.c.traces(req)
	return &coltracepb.ExportTraceServiceResponse{}, nil
}

type grpcMetrics struct {
	colmetricpb.UnimplementedMetricsServiceServer
	c *Collector
}

func (g grpcMetrics) Export(_ context.Context, req *colmetricpb.ExportMetricsServiceRequest) (*colmetricpb.ExportMetricsServiceResponse, error) {
	g.c.metricsIn(req)
	return &colmetricpb.ExportMetricsServiceResponse{}, nil
}

// NewGRPCCollector receives OTLP/gRPC, without TLS, until the test ends.
func NewGRPCCollector(t testing.TB) *Collector {
	c := &Collector{metrics: map[string]bool{}}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := grpc.NewServer()
	coltracepb.RegisterTraceServiceServer(s, grpcTraces{c: c})
	colmetricpb.RegisterMetricsServiceServer(s, grpcMetrics{c: c})
	go s.Serve(l)
	t.Cleanup(s.Stop)
	c.Endpoint = "http://" + l.Addr().String()
	return c
}
