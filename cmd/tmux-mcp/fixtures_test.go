package main

import (
	"context"
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/mcpserver"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
	"github.com/tmux-mcp/tmux-mcp/tools"
)

// The fixtures of the MCP conformance suite (package conformance), which
// only a binary built with the tag conformance serves: `make conformance`
// builds one. Run these tests both ways:
//
//	go test ./cmd/tmux-mcp -run Fixtures
//	go test -tags conformance ./cmd/tmux-mcp -run Fixtures
var (
	fixtureTools = []string{"test_simple_text", "test_image_content", "test_audio_content", "test_embedded_resource",
		"test_multiple_content_types", "test_error_handling", "test_tool_with_logging", "test_tool_with_progress",
		"json_schema_2020_12_tool", "test_param_header", "test_missing_capability", "test_streaming_elicitation",
		"test_logging_tool", "test_input_required_result_elicitation", "test_input_required_result_sampling",
		"test_input_required_result_list_roots", "test_input_required_result_request_state",
		"test_input_required_result_multiple_inputs", "test_input_required_result_multi_round",
		"test_input_required_result_tampered_state", "test_input_required_result_capabilities",
		"greet", "slow_compute", "failing_job", "protocol_error_job", "confirm_delete", "multi_input", "test_tool_with_task"}
	fixturePrompts = []string{"test_simple_prompt", "test_prompt_with_arguments", "test_prompt_with_embedded_resource",
		"test_prompt_with_image", "test_input_required_result_prompt"}
	fixtureURIs = []string{"test://static-text", "test://static-binary", "test://watched-resource", "test://template/{id}/data"}
)

// listing is what a client lists: tool and prompt names, resource and
// template URIs.
type listing struct{ tools, prompts, uris []string }

// fixturesIn returns the fixtures l has, and those it lacks.
func fixturesIn(l listing) (has, lacks []string) {
	for _, set := range []struct{ want, got []string }{{fixtureTools, l.tools}, {fixturePrompts, l.prompts}, {fixtureURIs, l.uris}} {
		for _, name := range set.want {
			if slices.Contains(set.got, name) {
				has = append(has, name)
			} else {
				lacks = append(lacks, name)
			}
		}
	}
	for _, uri := range l.uris {
		if strings.HasPrefix(uri, "test://") && !slices.Contains(fixtureURIs, uri) {
			has = append(has, uri)
		}
	}
	return has, lacks
}

// TestFixturesOnlyInTheConformanceBuild builds the server as serve does
// (tools.New, then addFixtures) and lists it in process: the build with
// the tag conformance lists every fixture, any other build none.
func TestFixturesOnlyInTheConformanceBuild(t *testing.T) {
	tm := tmuxtest.New(t)
	sup := supervisor.New(supervisor.Config{DefaultSocket: tmux.Socket{Path: tm.Socket}, TmuxConfig: "/dev/null"})
	t.Cleanup(func() { sup.Close() })
	ts, err := tools.New(tools.Deps{Sup: sup, Tier: tools.Destructive, SocketDir: t.TempDir()}, tools.Options{Settings: mcpserver.Settings{Version: "test"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ts.Close() })
	addFixtures(ts)
	c, err := client.NewInProcessClient(ts.MCP)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "0"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	var l listing
	tl, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tl.Tools {
		l.tools = append(l.tools, tool.Name)
	}
	pl, err := c.ListPrompts(ctx, mcp.ListPromptsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pl.Prompts {
		l.prompts = append(l.prompts, p.Name)
	}
	rl, err := c.ListResources(ctx, mcp.ListResourcesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rl.Resources {
		l.uris = append(l.uris, r.URI)
	}
	tpl, err := c.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range tpl.ResourceTemplates {
		l.uris = append(l.uris, r.URITemplate.Raw())
	}
	has, lacks := fixturesIn(l)
	switch {
	case conformanceBuild && len(lacks) > 0:
		t.Errorf("the conformance build lacks fixtures: %v", lacks)
	case !conformanceBuild && len(has) > 0:
		t.Errorf("a build without the tag conformance lists fixtures: %v", has)
	}
	if len(l.tools) < 50 {
		t.Errorf("%d tools listed, want tmux-mcp's own too", len(l.tools))
	}
}

// TestReleaseBinaryServesNoFixtures drives the binary as make build
// makes it (no build tag) over stdio: it lists no fixture tool, prompt
// or resource, and calling one finds nothing.
func TestReleaseBinaryServesNoFixtures(t *testing.T) {
	bin := buildBinary(t)
	tm := tmuxtest.New(t)
	cmd := exec.Command(bin, "serve")
	cmd.Env = binaryEnv(tm.Socket, "TMUX_MCP_SAFETY=destructive")
	r := startWire(t, cmd)
	r.initialize()
	var l listing
	for _, tool := range listTools(t, r) {
		l.tools = append(l.tools, tool.Name)
	}
	list := func(method string, v any) {
		line, _ := r.request(method, map[string]any{})
		if err := json.Unmarshal([]byte(line), v); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
	}
	var prompts struct {
		Result struct{ Prompts []struct{ Name string } } `json:"result"`
	}
	list("prompts/list", &prompts)
	for _, p := range prompts.Result.Prompts {
		l.prompts = append(l.prompts, p.Name)
	}
	var resources struct {
		Result struct{ Resources []struct{ URI string } } `json:"result"`
	}
	list("resources/list", &resources)
	for _, res := range resources.Result.Resources {
		l.uris = append(l.uris, res.URI)
	}
	var templates struct {
		Result struct {
			ResourceTemplates []struct {
				URITemplate string `json:"uriTemplate"`
			} `json:"resourceTemplates"`
		} `json:"result"`
	}
	list("resources/templates/list", &templates)
	for _, tpl := range templates.Result.ResourceTemplates {
		l.uris = append(l.uris, tpl.URITemplate)
	}
	if len(l.tools) < 50 || len(l.prompts) == 0 || len(l.uris) == 0 {
		t.Fatalf("listed %d tools, %d prompts, %d resources and templates; want tmux-mcp's own", len(l.tools), len(l.prompts), len(l.uris))
	}
	if has, _ := fixturesIn(l); len(has) > 0 {
		t.Errorf("the release binary lists fixtures: %v", has)
	}
	if _, m := r.request("tools/call", map[string]any{"name": "slow_compute", "arguments": map[string]any{"seconds": 0}}); m["error"] == nil {
		t.Errorf("tools/call slow_compute = %v, want an error: no such tool", m)
	}
}
