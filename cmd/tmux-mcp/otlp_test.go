package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/tmux-mcp/tmux-mcp/internal/e2etest"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// TestOTLPExportFromBinary runs the built binary with OTEL_* pointing at a
// local collector, makes a tool call carrying the caller's trace context,
// and checks that the request span and its tmux command span arrived in
// the caller's trace, with the metrics. (The flush at exit is covered by
// TestTraceFileHoldsJSONLines and TestHungCollectorBlocksNothing.)
func TestOTLPExportFromBinary(t *testing.T) {
	bin := buildBinary(t)
	for _, tt := range []struct {
		protocol string
		start    func(testing.TB) *e2etest.Collector
	}{
		{"http/protobuf", e2etest.NewHTTPCollector},
		{"grpc", e2etest.NewGRPCCollector},
	} {
		t.Run(strings.ReplaceAll(tt.protocol, "/", "_"), func(t *testing.T) {
			col := tt.start(t)
			tm := tmuxtest.New(t)
			tm.Start("main")
			c, cmd, stderr := startStdio(t, bin, binaryEnv(tm.Socket,
				"OTEL_EXPORTER_OTLP_ENDPOINT="+col.Endpoint, "OTEL_EXPORTER_OTLP_PROTOCOL="+tt.protocol,
				"OTEL_SERVICE_NAME=tmux-mcp-e2e", "OTEL_BSP_SCHEDULE_DELAY=50", "OTEL_METRIC_EXPORT_INTERVAL=100"))
			const traceID, parentID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			var req mcp.CallToolRequest
			req.Params.Name = "list_sessions"
			req.Params.Meta = &mcp.Meta{AdditionalFields: map[string]any{"traceparent": "00-" + traceID + "-" + parentID + "-01"}}
			if res, err := c.CallTool(ctx, req); err != nil || res.IsError {
				t.Fatalf("list_sessions: %v %v", err, res)
			}
			// Exported while the server runs: spans by the batch processor,
			// metrics (gauges too) by the periodic reader.
			tmuxtest.WaitFor(t, 10*time.Second, "the call's spans and the server gauges at the collector", func() bool {
				return len(col.Span("tools/call list_sessions")) > 0 && len(col.Span("tmux list-sessions")) > 0 &&
					col.HasMetric("tmux.server.open_fds")
			})
			if err := c.Close(); err != nil || !cmd.ProcessState.Success() {
				t.Fatalf("exit: %v %v\nstderr:\n%s", err, cmd.ProcessState, stderr)
			}

			reqSpans := col.Span("tools/call list_sessions")
			if len(reqSpans) != 1 {
				t.Fatalf("got %d request spans, want 1\nstderr:\n%s", len(reqSpans), stderr)
			}
			rs := reqSpans[0]
			if got := hex.EncodeToString(rs.GetTraceId()); got != traceID {
				t.Errorf("request span trace = %s, want the caller's %s", got, traceID)
			}
			if got := hex.EncodeToString(rs.GetParentSpanId()); got != parentID {
				t.Errorf("request span parent = %s, want the caller's %s", got, parentID)
			}
			if rs.GetKind() != tracepb.Span_SPAN_KIND_SERVER {
				t.Errorf("request span kind = %v, want server", rs.GetKind())
			}
			var child bool
			for _, s := range col.Span("tmux list-sessions") {
				child = child || string(s.GetParentSpanId()) == string(rs.GetSpanId())
			}
			if !child {
				t.Errorf("no tmux list-sessions span under the request span")
			}
			services := col.Services()
			if len(services) == 0 || services[0] != "tmux-mcp-e2e" {
				t.Errorf("service.name = %q, want OTEL_SERVICE_NAME's tmux-mcp-e2e", services)
			}
			for _, name := range []string{"tmux.command.duration", "mcp.server.operation.duration"} {
				if !col.HasMetric(name) {
					t.Errorf("collector has no metric %s", name)
				}
			}
		})
	}
}

// blackhole accepts connections and never answers: a collector that hangs.
func blackhole(t testing.TB) (endpoint string, accepted *atomic.Int32) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted = &atomic.Int32{}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			mu.Lock()
			conns = append(conns, conn)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return "http://" + l.Addr().String(), accepted
}

// TestHungCollectorBlocksNothing points the binary at a collector that
// accepts and never answers, with a span queue far smaller than what the
// calls produce: every call completes (spans that do not fit are dropped,
// span.End never waits), and after stdin closes the process exits cleanly,
// having given up the flush at its bound. It does so however the client
// stops it: MCP clients may close its stderr first (the flush's warnings
// then hit a closed pipe) or send SIGTERM a moment after closing stdin.
func TestHungCollectorBlocksNothing(t *testing.T) {
	bin := buildBinary(t)
	for _, stop := range []string{"stdin", "stderr_then_stdin", "stdin_then_sigterm"} {
		t.Run(stop, func(t *testing.T) {
			endpoint, accepted := blackhole(t)
			tm := tmuxtest.New(t)
			tm.Start("main")
			cmd := exec.Command(bin)
			cmd.Env = binaryEnv(tm.Socket, "OTEL_EXPORTER_OTLP_ENDPOINT="+endpoint,
				"OTEL_BSP_MAX_QUEUE_SIZE=8", "OTEL_BSP_MAX_EXPORT_BATCH_SIZE=4", "OTEL_BSP_SCHEDULE_DELAY=1",
				"OTEL_METRIC_EXPORT_INTERVAL=50", "TMUX_MCP_SERVER_RATE=100000")
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			// Our own pipe: Wait must not close its read end, and the test
			// may close it before stdin.
			stderrR, stderrW, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd.Stderr = stderrW
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			stderrW.Close()
			stderr := &syncBuffer{}
			copied := make(chan struct{})
			go func() {
				io.Copy(stderr, stderrR)
				close(copied)
			}()
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			t.Cleanup(func() {
				if cmd.ProcessState == nil {
					cmd.Process.Kill()
					<-exited
				}
				stderrR.Close()
			})
			c := client.NewClient(transport.NewIO(stdout, stdin, io.NopCloser(strings.NewReader(""))))
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := c.Start(ctx); err != nil {
				t.Fatal(err)
			}
			var init mcp.InitializeRequest
			init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
			init.Params.ClientInfo = mcp.Implementation{Name: "e2e", Version: "0"}
			if _, err := c.Initialize(ctx, init); err != nil {
				t.Fatalf("initialize: %v\nstderr:\n%s", err, stderr)
			}
			tmuxtest.WaitFor(t, 10*time.Second, "an export stuck at the collector", func() bool { return accepted.Load() > 0 })
			const calls = 100 // each makes a request span and a tmux span: 25 times the queue
			for i := range calls {
				res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "list_sessions"}})
				if err != nil || res.IsError {
					t.Fatalf("call %d: %v %v\nstderr:\n%s", i, err, res, stderr)
				}
			}
			if stop == "stderr_then_stdin" {
				stderrR.Close()
			}
			stdin.Close()
			if stop == "stdin_then_sigterm" {
				// Serving has ended; the supervisor closes and the flush runs
				// for its bound (the collector never answers).
				tmuxtest.WaitFor(t, 10*time.Second, "serving to end", func() bool {
					return strings.Contains(stderr.String(), "tmux-mcp stopped")
				})
				cmd.Process.Signal(syscall.SIGTERM) //nolint:errcheck // it may have exited already
			}
			select {
			case err := <-exited:
				if err != nil {
					t.Fatalf("exit: %v, want 0\nstderr:\n%s", err, stderr)
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("tmux-mcp still running 30s after stdin closed\nstderr:\n%s", stderr)
			}
			if stop == "stderr_then_stdin" {
				return
			}
			<-copied
			if !strings.Contains(stderr.String(), "telemetry: flush at exit") || !strings.Contains(stderr.String(), "deadline exceeded") {
				t.Errorf("stderr does not show the flush given up at its bound:\n%s", stderr)
			}
		})
	}
}

// TestTraceFileHoldsJSONLines runs the binary with --trace-file (as
// TMUX_MCP_TRACE_FILE) and checks that the file holds one JSON span per
// line, the tool call's included, without the environment value the call
// sent, and that stdout carried nothing but JSON-RPC frames.
func TestTraceFileHoldsJSONLines(t *testing.T) {
	bin := buildBinary(t)
	tm := tmuxtest.New(t)
	tm.Start("main")
	path := filepath.Join(t.TempDir(), "spans.jsonl")
	cmd := exec.Command(bin)
	cmd.Env = binaryEnv(tm.Socket, "TMUX_MCP_TRACE_FILE="+path)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	const secret = "tf-s3cret-4d2c"
	for _, req := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_session","arguments":{"session_name":"tf","environment":{"TOKEN":"` + secret + `"}}}}`,
	} {
		io.WriteString(stdin, req+"\n")
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil || m["jsonrpc"] != "2.0" {
			t.Fatalf("stdout line is not a JSON-RPC frame: %q", sc.Text())
		}
		if m["id"] == float64(2) {
			if res, _ := m["result"].(map[string]any); res == nil || res["isError"] == true {
				t.Fatalf("create_session = %v", m)
			}
			stdin.Close() // the rest of stdout, up to exit, is checked too
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit: %v\nstderr:\n%s", err, stderr)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	names := map[string]bool{}
	lines := bufio.NewScanner(f)
	lines.Buffer(make([]byte, 1<<20), 1<<20)
	for lines.Scan() {
		if strings.Contains(lines.Text(), secret) {
			t.Errorf("trace file line holds the environment value: %s", lines.Text())
		}
		var span struct{ Name string }
		if err := json.Unmarshal(lines.Bytes(), &span); err != nil || span.Name == "" {
			t.Fatalf("trace file line is not a JSON span: %v %q", err, lines.Text())
		}
		names[span.Name] = true
	}
	for _, want := range []string{"initialize", "tools/call create_session", "tmux new-session"} {
		if !names[want] {
			t.Errorf("trace file has no span %q; has %v", want, names)
		}
	}
}

func TestRunServeRefusesBadTelemetrySettings(t *testing.T) {
	var stderr bytes.Buffer
	vars := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_EXPORTER_OTLP_PROTOCOL": "thrift"}
	code := run(context.Background(), []string{"serve"}, env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: &stderr,
		getenv: func(k string) string { return vars[k] }})
	if code != exitUsage || !strings.Contains(stderr.String(), "OTEL_EXPORTER_OTLP_PROTOCOL") {
		t.Errorf("got exit %d, stderr %q; want %d naming the variable", code, stderr.String(), exitUsage)
	}
}
