package telemetry

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"
)

func TestPlanFromEnv(t *testing.T) {
	tests := []struct {
		name      string
		env       map[string]string
		traceFile string
		want      Plan
		wantErr   string
	}{
		{name: "nothing set: off", env: nil},
		{name: "service name alone: off", env: map[string]string{"OTEL_SERVICE_NAME": "x"}},
		{name: "endpoint: both signals over http/protobuf",
			env:  map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"},
			want: Plan{Traces: "http/protobuf", Metrics: "http/protobuf"}},
		{name: "traces endpoint: traces only",
			env:  map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/v1/traces"},
			want: Plan{Traces: "http/protobuf"}},
		{name: "metrics endpoint and grpc",
			env:  map[string]string{"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "http://c:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"},
			want: Plan{Metrics: "grpc"}},
		{name: "signal protocol wins over the general one",
			env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc",
				"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json"},
			want: Plan{Traces: "http/json", Metrics: "grpc"}},
		{name: "exporter otlp without endpoint",
			env:  map[string]string{"OTEL_TRACES_EXPORTER": "otlp"},
			want: Plan{Traces: "http/protobuf"}},
		{name: "exporter none beats the endpoint",
			env:  map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c", "OTEL_METRICS_EXPORTER": "none"},
			want: Plan{Traces: "http/protobuf"}},
		{name: "SDK disabled", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c", "OTEL_SDK_DISABLED": "true"}},
		{name: "SDK disabled keeps the trace file", env: map[string]string{"OTEL_SDK_DISABLED": "TRUE"}, traceFile: "/tmp/x",
			want: Plan{TraceFile: "/tmp/x"}},
		{name: "trace file alone", traceFile: "/tmp/x", want: Plan{TraceFile: "/tmp/x"}},
		{name: "unknown protocol",
			env:     map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c", "OTEL_EXPORTER_OTLP_PROTOCOL": "thrift"},
			wantErr: `$OTEL_EXPORTER_OTLP_PROTOCOL: protocol "thrift" is not supported; want grpc, http/protobuf or http/json`},
		{name: "unknown exporter",
			env:     map[string]string{"OTEL_TRACES_EXPORTER": "otlp,zipkin"},
			wantErr: `$OTEL_TRACES_EXPORTER: exporter "zipkin" is not supported`},
		{name: "unknown protocol of a signal that is off is ignored",
			env: map[string]string{"OTEL_EXPORTER_OTLP_METRICS_PROTOCOL": "thrift"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := PlanFromEnv(func(k string) string { return tt.env[k] }, tt.traceFile)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func TestExportErrorsAreRateLimited(t *testing.T) {
	var buf bytes.Buffer
	now := time.Unix(1000, 0)
	h := newExportErrorHandler(slog.New(slog.NewTextHandler(&buf, nil)), func() time.Time { return now })
	errDown := errors.New("collector down")
	for range 5 {
		h.Handle(errDown)
		now = now.Add(time.Second)
	}
	if got := strings.Count(buf.String(), "collector down"); got != 1 {
		t.Fatalf("got %d log lines within %v, want 1:\n%s", got, exportErrorEvery, buf.String())
	}
	now = now.Add(exportErrorEvery)
	h.Handle(errDown)
	if got := strings.Count(buf.String(), "collector down"); got != 2 || !strings.Contains(buf.String(), "suppressed_since_last=4") {
		t.Errorf("after %v: got %d lines, want 2, the second counting the 4 held back:\n%s", exportErrorEvery, got, buf.String())
	}
}

// TestResourceTellsProcessesApart checks what the resource says of the
// process: hosts told apart by host.name, processes by a
// service.instance.id of their own, and OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES winning over everything detected.
func TestResourceTellsProcessesApart(t *testing.T) {
	hostname, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		env   map[string]string
		want  map[string]string // "*" is any non-empty value
		apart bool              // two processes get different service.instance.ids
	}{
		{name: "nothing set",
			want: map[string]string{"service.name": "tmux-mcp", "service.version": "v1.2.3", "host.name": hostname,
				"service.instance.id": "*", "process.pid": "*"},
			apart: true},
		{name: "the environment wins",
			env: map[string]string{"OTEL_SERVICE_NAME": "tmux-mcp-claude",
				"OTEL_RESOURCE_ATTRIBUTES": "host.name=alpha,deployment.environment.name=prod,service.instance.id=agent-1"},
			want: map[string]string{"service.name": "tmux-mcp-claude", "service.version": "v1.2.3", "host.name": "alpha",
				"deployment.environment.name": "prod", "service.instance.id": "agent-1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("OTEL_SERVICE_NAME", tt.env["OTEL_SERVICE_NAME"])
			t.Setenv("OTEL_RESOURCE_ATTRIBUTES", tt.env["OTEL_RESOURCE_ATTRIBUTES"])
			var ids []string
			for range 2 {
				res, err := newResource(context.Background(), "v1.2.3")
				if err != nil {
					t.Fatal(err)
				}
				got := map[string]string{}
				for _, kv := range res.Attributes() {
					got[string(kv.Key)] = kv.Value.String()
				}
				for k, want := range tt.want {
					if g := got[k]; g == "" || want != "*" && g != want {
						t.Errorf("%s = %q, want %q", k, g, want)
					}
				}
				ids = append(ids, got["service.instance.id"])
			}
			if gotApart := ids[0] != ids[1]; gotApart != tt.apart {
				t.Errorf("service.instance.id of two processes: %q and %q; want them different: %v", ids[0], ids[1], tt.apart)
			}
		})
	}
}
