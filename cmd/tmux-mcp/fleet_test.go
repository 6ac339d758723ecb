package main

import (
	"bufio"
	"bytes"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	"go.yaml.in/yaml/v3"
	"google.golang.org/protobuf/proto"

	"github.com/tmux-mcp/tmux-mcp/internal/e2etest"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// The fleet example of docs/fleet.md.
const (
	fleetDoc       = "../../docs/fleet.md"
	fleetCollector = "../../docs/fleet/otelcol.yaml"
	fleetEnv       = "../../docs/fleet/tmux-mcp.env"
)

// otelcolConfig is the part of an OpenTelemetry Collector config the
// fleet example's checks read.
type otelcolConfig struct {
	Receivers  map[string]map[string]any `yaml:"receivers"`
	Processors map[string]map[string]any `yaml:"processors"`
	Exporters  map[string]map[string]any `yaml:"exporters"`
	Service    struct {
		Pipelines map[string]struct {
			Receivers  []string `yaml:"receivers"`
			Processors []string `yaml:"processors"`
			Exporters  []string `yaml:"exporters"`
		} `yaml:"pipelines"`
	} `yaml:"service"`
}

// stockComponents are the components of otel/opentelemetry-collector-contrib
// the example may use, by kind.
var stockComponents = map[string][]string{
	"receiver":  {"otlp"},
	"processor": {"memory_limiter", "batch", "resource"},
	"exporter":  {"prometheus", "otlp_grpc", "otlp_http", "debug"},
}

// readEnvFile reads KEY=value lines, skipping blank lines and comments.
func readEnvFile(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || strings.ContainsAny(v, " \t'\"$") {
			t.Fatalf("%s: %q is not KEY=value that sh and systemd read alike", path, line)
		}
		env[k] = v
	}
	return env
}

// endpointPort returns the port of a host:port endpoint.
func endpointPort(t *testing.T, endpoint string) string {
	t.Helper()
	i := strings.LastIndex(endpoint, ":")
	if i < 0 {
		t.Fatalf("endpoint %q has no port", endpoint)
	}
	return endpoint[i+1:]
}

// TestFleetCollectorConfig checks the example collector config: every
// component it names is defined, used and in the stock contrib image, the
// OTLP receiver listens where tmux-mcp.env sends, metrics reach the
// Prometheus exporter with the resource as labels (the queries in
// docs/fleet.md group by host_name), and, when a collector binary is on
// PATH, that it validates the file.
func TestFleetCollectorConfig(t *testing.T) {
	b, err := os.ReadFile(fleetCollector)
	if err != nil {
		t.Fatal(err)
	}
	var cfg otelcolConfig
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil {
		t.Fatalf("%s: %v", fleetCollector, err)
	}
	used := map[string]bool{}
	for name, p := range cfg.Service.Pipelines {
		for _, ref := range []struct {
			kind    string
			names   []string
			defined map[string]map[string]any
		}{{"receiver", p.Receivers, cfg.Receivers}, {"processor", p.Processors, cfg.Processors}, {"exporter", p.Exporters, cfg.Exporters}} {
			if len(ref.names) == 0 && ref.kind != "processor" {
				t.Errorf("pipeline %s has no %s", name, ref.kind)
			}
			for _, n := range ref.names {
				if _, ok := ref.defined[n]; !ok {
					t.Errorf("pipeline %s uses %s %s, which is not defined", name, ref.kind, n)
				}
				used[ref.kind+" "+n] = true
			}
		}
	}
	for _, def := range []struct {
		kind string
		all  map[string]map[string]any
	}{{"receiver", cfg.Receivers}, {"processor", cfg.Processors}, {"exporter", cfg.Exporters}} {
		for n := range def.all {
			typ, _, _ := strings.Cut(n, "/")
			if !slices.Contains(stockComponents[def.kind], typ) {
				t.Errorf("%s %s is not one of the stock image's %v", def.kind, n, stockComponents[def.kind])
			}
			if !used[def.kind+" "+n] {
				t.Errorf("%s %s is defined but no pipeline uses it", def.kind, n)
			}
		}
	}
	for _, sig := range []string{"traces", "metrics"} {
		if p, ok := cfg.Service.Pipelines[sig]; !ok || !slices.Contains(p.Receivers, "otlp") {
			t.Errorf("pipeline %s does not receive from otlp", sig)
		}
	}
	if !slices.Contains(cfg.Service.Pipelines["metrics"].Exporters, "prometheus") {
		t.Errorf("the metrics pipeline does not export to prometheus, which docs/fleet.md's queries read")
	}
	if conv, _ := cfg.Exporters["prometheus"]["resource_to_telemetry_conversion"].(map[string]any); conv["enabled"] != true {
		t.Errorf("prometheus exporter: resource_to_telemetry_conversion is not enabled: no host_name label")
	}

	// The receiver listens where the hosts send.
	protocols, _ := cfg.Receivers["otlp"]["protocols"].(map[string]any)
	port := map[string]string{}
	for _, proto := range []string{"grpc", "http"} {
		p, _ := protocols[proto].(map[string]any)
		ep, _ := p["endpoint"].(string)
		if ep == "" {
			t.Fatalf("otlp receiver: no %s endpoint", proto)
		}
		port[proto] = endpointPort(t, ep)
	}
	env := readEnvFile(t, fleetEnv)
	u, err := url.Parse(env["OTEL_EXPORTER_OTLP_ENDPOINT"])
	if err != nil || u.Port() == "" {
		t.Fatalf("%s: OTEL_EXPORTER_OTLP_ENDPOINT=%q: want a URL with a port (%v)", fleetEnv, env["OTEL_EXPORTER_OTLP_ENDPOINT"], err)
	}
	want := port["http"]
	if env["OTEL_EXPORTER_OTLP_PROTOCOL"] == "grpc" {
		want = port["grpc"]
	}
	if u.Port() != want {
		t.Errorf("%s sends %s to port %s; the collector receives it on %s", fleetEnv, env["OTEL_EXPORTER_OTLP_PROTOCOL"], u.Port(), want)
	}

	t.Run("validate", func(t *testing.T) {
		var bin string
		for _, name := range []string{"otelcol-contrib", "otelcol"} {
			if p, err := exec.LookPath(name); err == nil {
				bin = p
				break
			}
		}
		if bin == "" {
			t.Skip("no otelcol-contrib or otelcol on PATH")
		}
		if out, err := exec.Command(bin, "validate", "--config="+fleetCollector).CombinedOutput(); err != nil {
			t.Errorf("%s validate: %v\n%s", bin, err, out)
		}
	})
}

// TestFleetExample runs two hosts, alpha and beta, each a tmux-mcp with
// its own tmux server and the environment of docs/fleet/tmux-mcp.env
// (the endpoint pointed at an OTLP/HTTP receiver in the test, host.name
// set as a container would), drives both, kills beta's tmux server, and
// checks what arrives: each host's spans and metrics, told apart by their
// resource (host.name, service.instance.id), beta's death and restart
// and not alpha's, no keystrokes, pane text or environment values
// anywhere, and every metric and label the PromQL of docs/fleet.md names.
func TestFleetExample(t *testing.T) {
	bin := buildBinary(t)
	col := e2etest.NewHTTPCollector(t)
	example := readEnvFile(t, fleetEnv)
	const secretKeys, secretEnv = "fleet-k3ys-7f31", "fleet-s3cret-9c0d"

	hosts := []string{"alpha", "beta"}
	servers := map[string]*tmuxtest.Server{}
	for _, host := range hosts {
		tm := tmuxtest.New(t)
		tm.Start("main")
		servers[host] = tm
		var env []string
		for k, v := range example {
			switch k {
			case "OTEL_EXPORTER_OTLP_ENDPOINT":
				v = col.Endpoint
			case "OTEL_RESOURCE_ATTRIBUTES":
				v += ",host.name=" + host
			case "OTEL_METRIC_EXPORT_INTERVAL":
				v = "100"
			}
			env = append(env, k+"="+v)
		}
		c, _, stderr := startStdio(t, bin, binaryEnv(tm.Socket, append(env, "OTEL_BSP_SCHEDULE_DELAY=50", "SHELL=/bin/sh")...))
		t.Cleanup(func() { c.Close() })

		callTool(t, c, "create_session", map[string]any{"session_name": "work", "environment": map[string]any{"FLEET_TOKEN": secretEnv}})
		callTool(t, c, "send_keys", map[string]any{"session_name": "work", "keys": "echo " + secretKeys + " $FLEET_TOKEN"})
		callTool(t, c, "wait_for_text", map[string]any{"session_name": "work", "patterns": []any{secretEnv}, "timeout": 10})
		for range 2 {
			callTool(t, c, "capture_pane", map[string]any{"session_name": "work"})
		}
		if res, err := callToolErr(c, "capture_pane", map[string]any{"session_name": "gone"}); err != nil || !res.IsError {
			t.Errorf("capture_pane of a missing session: %v %v, want a tool error", res, err)
		}
		if host == "beta" {
			pid := tm.PID()
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			tmuxtest.WaitFor(t, 15*time.Second, "beta's tmux server back", func() bool {
				res, err := callToolErr(c, "list_sessions", nil)
				return err == nil && !res.IsError && tm.PID() != pid
			})
		}
		if t.Failed() {
			t.Fatalf("host %s\nstderr:\n%s", host, stderr)
		}
	}

	// What each host must show, waited for: metrics come every 100 ms,
	// spans every 50 ms.
	want := map[string][]string{
		"alpha": {"tmux.command.duration", "mcp.server.operation.duration", "mcp.server.active_requests", "tmux.captures",
			"tmux.server.open_fds", "tmux.server.fd_limit", "tmux.server.memory.rss", "tmux.ptys.used", "tmux.ptys.max"},
	}
	want["beta"] = append(slices.Clone(want["alpha"]), "tmux.server.deaths", "tmux.server.restarts", "tmux.server.restore.duration")
	var missing []string // what the last look did not find, reported if the wait fails
	defer func() {
		if len(missing) > 0 {
			t.Logf("missing at the collector: %q; host.names that sent: %q", missing, col.HostNames())
		}
	}()
	tmuxtest.WaitFor(t, 15*time.Second, "both hosts' spans and metrics at the collector", func() bool {
		missing = nil
		for _, host := range hosts {
			got := col.HostMetrics(host)
			for _, name := range want[host] {
				if got[name] == nil {
					missing = append(missing, host+" metric "+name)
				}
			}
			for _, span := range []string{"tools/call create_session", "tmux new-session"} {
				if len(col.HostSpans(host, span)) == 0 {
					missing = append(missing, host+" span "+span)
				}
			}
		}
		return len(missing) == 0
	})

	resources := map[string][]*resourcepb.Resource{}
	for _, rs := range col.ResourceSpans() {
		resources["spans"] = append(resources["spans"], rs.GetResource())
	}
	for _, rm := range col.ResourceMetrics() {
		resources["metrics"] = append(resources["metrics"], rm.GetResource())
	}
	instance := map[string]string{} // by host.name
	for signal, rs := range resources {
		for _, r := range rs {
			attrs := e2etest.ResourceAttrs(r)
			host := attrs["host.name"]
			if !slices.Contains(hosts, host) {
				t.Errorf("%s from host.name %q, want alpha or beta: %v", signal, host, attrs)
				continue
			}
			for k, v := range map[string]string{"service.name": example["OTEL_SERVICE_NAME"], "deployment.environment.name": "prod"} {
				if attrs[k] != v {
					t.Errorf("%s of %s: %s = %q, want %q from %s", signal, host, k, attrs[k], v, fleetEnv)
				}
			}
			id := attrs["service.instance.id"]
			if id == "" || instance[host] != "" && instance[host] != id {
				t.Errorf("%s of %s: service.instance.id %q, want one non-empty id per process (had %q)", signal, host, id, instance[host])
			}
			instance[host] = id
		}
	}
	if instance["alpha"] == instance["beta"] {
		t.Errorf("alpha and beta share service.instance.id %q", instance["alpha"])
	}

	// Each host's metrics are about its own tmux server; only beta's died.
	for _, host := range hosts {
		metrics := col.HostMetrics(host)
		for _, m := range metrics["tmux.command.duration"] {
			for _, dp := range m.GetHistogram().GetDataPoints() {
				if sock := kvString(dp.GetAttributes(), "tmux.socket"); sock != servers[host].Socket {
					t.Errorf("%s: tmux.command.duration of socket %q, want its own %q", host, sock, servers[host].Socket)
				}
			}
		}
		var causes []string
		for _, m := range metrics["tmux.server.deaths"] {
			for _, dp := range m.GetSum().GetDataPoints() {
				causes = append(causes, kvString(dp.GetAttributes(), "tmux.death.cause"))
			}
		}
		if wantDeaths := host == "beta"; wantDeaths != slices.Contains(causes, "killed") || !wantDeaths && len(causes) > 0 {
			t.Errorf("%s: tmux.server.deaths causes %q; want killed: %v", host, causes, wantDeaths)
		}
	}

	// Nothing a pane or a call carried.
	var sent [][]byte
	for _, rs := range col.ResourceSpans() {
		b, _ := proto.Marshal(rs)
		sent = append(sent, b)
	}
	for _, rm := range col.ResourceMetrics() {
		b, _ := proto.Marshal(rm)
		sent = append(sent, b)
	}
	for _, b := range sent {
		for _, secret := range []string{secretKeys, secretEnv} {
			if bytes.Contains(b, []byte(secret)) {
				t.Errorf("the export holds %q, typed into a pane or set in its environment", secret)
			}
		}
	}

	// The PromQL of docs/fleet.md names series and labels that exist.
	names, labels := prometheusNames(col)
	doc, err := os.ReadFile(fleetDoc)
	if err != nil {
		t.Fatal(err)
	}
	// Not produced by this run: no call was rate-limited, no pane refused.
	notExercised := map[string]bool{"tmux_rate_limited_total": true, "tmux_rate_limit_scope": true,
		"tmux_resource_refused_total": true, "tmux_resource": true}
	queries := promQLBlocks(string(doc))
	if len(queries) == 0 {
		t.Fatalf("%s has no promql blocks", fleetDoc)
	}
	for _, q := range queries {
		for _, n := range promMetricName.FindAllString(promBy.ReplaceAllString(promSelector.ReplaceAllString(q, ""), ""), -1) {
			if !names[n] && !notExercised[n] {
				t.Errorf("%s: query names series %s, which the hosts did not export\n%s", fleetDoc, n, q)
			}
		}
		for _, l := range promLabels(q) {
			if !labels[l] && !notExercised[l] {
				t.Errorf("%s: query uses label %s, which no exported series has\n%s", fleetDoc, l, q)
			}
		}
	}
}

// The deleted resource attributes of otelcol.yaml's resource/metrics.
var fleetDroppedResource = []string{"process.pid", "process.runtime.version", "telemetry.sdk.language", "telemetry.sdk.name", "telemetry.sdk.version"}

// prometheusNames returns the series names and labels the collector's
// Prometheus exporter makes of the metrics received (its default
// translation, UnderscoreEscapingWithSuffixes, with the resource as
// labels): name and unit suffixes, _total on counters, _bucket, _sum and
// _count on histograms.
func prometheusNames(c *e2etest.Collector) (names, labels map[string]bool) {
	names, labels = map[string]bool{}, map[string]bool{"le": true, "job": true, "instance": true}
	label := func(k string) { labels[promEscape.ReplaceAllString(k, "_")] = true }
	for _, rm := range c.ResourceMetrics() {
		for _, kv := range rm.GetResource().GetAttributes() {
			if !slices.Contains(fleetDroppedResource, kv.GetKey()) {
				label(kv.GetKey())
			}
		}
		for _, sm := range rm.GetScopeMetrics() {
			for _, m := range sm.GetMetrics() {
				base := promEscape.ReplaceAllString(m.GetName(), "_")
				switch m.GetUnit() {
				case "s":
					base += "_seconds"
				case "By":
					base += "_bytes"
				}
				var points [][]*commonpb.KeyValue
				switch {
				case m.GetHistogram() != nil:
					for _, s := range []string{"_bucket", "_sum", "_count"} {
						names[base+s] = true
					}
					for _, dp := range m.GetHistogram().GetDataPoints() {
						points = append(points, dp.GetAttributes())
					}
				case m.GetSum() != nil:
					if m.GetSum().GetIsMonotonic() {
						names[base+"_total"] = true
					} else {
						names[base] = true
					}
					for _, dp := range m.GetSum().GetDataPoints() {
						points = append(points, dp.GetAttributes())
					}
				case m.GetGauge() != nil:
					names[base] = true
					for _, dp := range m.GetGauge().GetDataPoints() {
						points = append(points, dp.GetAttributes())
					}
				}
				for _, attrs := range points {
					for _, kv := range attrs {
						label(kv.GetKey())
					}
				}
			}
		}
	}
	return names, labels
}

var (
	promEscape     = regexp.MustCompile(`[^a-zA-Z0-9_:]`)
	promMetricName = regexp.MustCompile(`\b(?:tmux|mcp)_[a-z_]+\b`)
	promBy         = regexp.MustCompile(`\b(?:by|without)\s*\(([^)]*)\)`)
	promSelector   = regexp.MustCompile(`\{[^}]*\}`)
	promMatcher    = regexp.MustCompile(`\b([a-z_]+)\s*(?:=~|!~|!=|=)\s*"`)
)

// promQLBlocks returns the bodies of the ```promql blocks of a Markdown text.
func promQLBlocks(md string) []string {
	var out []string
	for {
		_, rest, ok := strings.Cut(md, "```promql\n")
		if !ok {
			return out
		}
		block, after, _ := strings.Cut(rest, "```")
		out = append(out, block)
		md = after
	}
}

// promLabels returns the labels a query groups by or matches on.
func promLabels(q string) []string {
	var out []string
	for _, m := range promBy.FindAllStringSubmatch(q, -1) {
		for _, l := range strings.Split(m[1], ",") {
			if l = strings.TrimSpace(l); l != "" {
				out = append(out, l)
			}
		}
	}
	for _, m := range promMatcher.FindAllStringSubmatch(q, -1) {
		out = append(out, m[1])
	}
	return out
}

// kvString returns the string value of key among attrs.
func kvString(attrs []*commonpb.KeyValue, key string) string {
	for _, kv := range attrs {
		if kv.GetKey() == key {
			return kv.GetValue().GetStringValue()
		}
	}
	return ""
}
