package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/hosts"
)

// Hosts routes calls to the tmux-mcp of other machines (hosts.Router).
type Hosts interface {
	Names() []string
	Call(ctx context.Context, host string, req mcp.CallToolRequest, readOnly bool) (*mcp.CallToolResult, error)
	Health(ctx context.Context, wait time.Duration) []hosts.Health
	ReadResource(ctx context.Context, host, uri string) (*mcp.ReadResourceResult, error)
	Subscribe(ctx context.Context, host, uri string) (<-chan struct{}, func(), error)
}

// uriHost is a host's resource: tmux://hosts/{host}/ followed by what the
// host's tmux-mcp calls it without tmux:// (tmux://hosts/build/panes/%251/content).
const uriHost = "tmux://hosts/{host}/{+path}"

// addHostResources serves the hosts' resources under tmux://hosts/NAME/.
func addHostResources(s *server.MCPServer, h Hosts) {
	s.AddResourceTemplate(mcp.NewResourceTemplate(uriHost, "host_resource",
		mcp.WithTemplateDescription("A resource of another host's tmux-mcp (--host): tmux://hosts/NAME/ then its own address without tmux://, "+
			"e.g. tmux://hosts/build/sessions.")),
		func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			host, path, ok := splitHostURI(req.Params.URI)
			if !ok || path == "" {
				return nil, ResourceNotFound("%s: want tmux://hosts/NAME/<resource>", req.Params.URI)
			}
			res, err := h.ReadResource(ctx, host, "tmux://"+path)
			if err != nil {
				return nil, err
			}
			out := make([]mcp.ResourceContents, 0, len(res.Contents))
			for _, c := range res.Contents {
				switch c := c.(type) {
				case mcp.TextResourceContents:
					c.URI = req.Params.URI
					out = append(out, c)
				case mcp.BlobResourceContents:
					c.URI = req.Params.URI
					out = append(out, c)
				}
			}
			return out, nil
		})
}

// splitHostURI splits tmux://hosts/NAME/PATH.
func splitHostURI(uri string) (host, path string, ok bool) {
	rest, ok := strings.CutPrefix(uri, "tmux://hosts/")
	if !ok {
		return "", "", false
	}
	host, path, ok = strings.Cut(rest, "/")
	return host, path, ok && host != ""
}

// hostHealthWait bounds how long server_health waits for each host's own.
const hostHealthWait = 2 * time.Second

// WithHostArg adds the host argument to a tool's input schema: the names
// it takes, "all" on the listings.
func WithHostArg(t mcp.Tool, names []string) mcp.Tool {
	var in map[string]any
	if err := json.Unmarshal(t.RawInputSchema, &in); err != nil {
		panic("tools: input schema of " + t.Name + ": " + err.Error())
	}
	props, _ := in["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
	}
	enum := append([]string{hosts.Local}, names...)
	desc := "Machine to act on: local (default) or a configured host; IDs of panes, windows, sessions and servers belong to their host."
	if fansOut(t.Name) {
		enum = append(enum, hosts.All)
		desc += " all: every host, each item with its host."
	}
	props["host"] = map[string]any{"type": "string", "enum": enum, "description": desc}
	in["properties"] = props
	raw, err := EncodeJSON(in)
	if err != nil {
		panic("tools: input schema of " + t.Name + ": " + err.Error())
	}
	t.RawInputSchema = raw
	return t
}

// fansOut reports whether a tool may take host "all": the listings.
func fansOut(name string) bool { return strings.HasPrefix(name, "list_") }

// routeHosts is the middleware that sends a call with a host argument to
// that host's tmux-mcp, and adds the hosts to a local server_health. A
// routed call carries callers(ctx): the descriptor of this process, and
// those of the call's own callers (guard/hopcaller.go, through the tool layer), never
// what the client put in the call's _meta in their place.
func routeHosts(h Hosts, readOnly func(tool string) bool, callers func(context.Context) []hosts.Caller) server.ToolHandlerMiddleware {
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			args := req.GetArguments()
			host := hosts.Local
			if raw, has := args["host"]; has {
				s, ok := raw.(string)
				if !ok {
					return ErrorResult(argMessage("host", "want a string: %s or a configured host (%v)", hosts.Local, h.Names()), "argument", ""), nil
				}
				if s != "" {
					host = s
				}
				rest := make(map[string]any, len(args)-1)
				for k, v := range args {
					if k != "host" {
						rest[k] = v
					}
				}
				req.Params.Arguments = rest
			}
			if host != hosts.Local {
				ctx = hosts.WithCallers(ctx, callers(ctx))
			}
			switch host {
			case hosts.Local:
				res, err := next(ctx, req)
				if err == nil && req.Params.Name == "server_health" && res != nil && !res.IsError {
					res = withHostsHealth(ctx, res, h)
				}
				return res, err
			case hosts.All:
				if !fansOut(req.Params.Name) {
					return ErrorResult(argMessage("host", "%s takes one host, not %s", req.Params.Name, hosts.All), "argument", ""), nil
				}
				return fanOut(ctx, req, next, h, readOnly(req.Params.Name)), nil
			}
			// The host's own progress reports are not relayed: this side
			// reports the call's time, so that clients with idle timeouts
			// keep waiting.
			p := StartProgress(ctx, req, 0, "on host "+host)
			res, err := h.Call(ctx, host, req, readOnly(req.Params.Name))
			p.Stop()
			if err != nil {
				msg, class, hint := hostError(err)
				return ErrorResult(msg, class, hint), nil
			}
			return tagHost(res, host), nil
		}
	}
}

// hostError is the tool error of a call a host could not take: its
// message, class and next step.
func hostError(err error) (msg, class, hint string) {
	switch {
	case hosts.IsDown(err):
		return err.Error(), "host_down", "Other hosts and this machine are not affected; server_health shows every host's connection."
	case strings.Contains(err.Error(), hosts.ErrUnknownHost.Error()):
		return err.Error(), "argument", ""
	}
	return err.Error(), "host", ""
}

// structuredMap returns a result's structured content as a map, when it
// is an object.
func structuredMap(res *mcp.CallToolResult) (map[string]any, bool) {
	var raw []byte
	switch v := res.StructuredContent.(type) {
	case nil:
		raw = res.RawStructuredContent
	case json.RawMessage:
		raw = v
	case []byte:
		raw = v
	case map[string]any:
		return v, true
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return nil, false
		}
		raw = b
	}
	var m map[string]any
	if len(raw) == 0 || json.Unmarshal(raw, &m) != nil || m == nil {
		return nil, false
	}
	return m, true
}

// setStructured replaces a result's structured content, and its text too
// when the text was the same object as JSON.
func setStructured(res *mcp.CallToolResult, m map[string]any) *mcp.CallToolResult {
	b, err := EncodeJSON(m)
	if err != nil {
		return res
	}
	out := *res
	out.StructuredContent = json.RawMessage(b)
	out.RawStructuredContent = nil
	if len(res.Content) == 1 {
		if tc, ok := res.Content[0].(mcp.TextContent); ok && json.Valid([]byte(tc.Text)) && strings.HasPrefix(strings.TrimSpace(tc.Text), "{") {
			tc.Text = string(b)
			out.Content = []mcp.Content{tc}
		}
	}
	return &out
}

// tagHost marks a host's result with the host's name.
func tagHost(res *mcp.CallToolResult, host string) *mcp.CallToolResult {
	if res.IsError {
		return res
	}
	m, ok := structuredMap(res)
	if !ok {
		return res
	}
	m["host"] = host
	return setStructured(res, m)
}

// withHostsHealth adds every host's connection and health to a local
// server_health result.
func withHostsHealth(ctx context.Context, res *mcp.CallToolResult, h Hosts) *mcp.CallToolResult {
	m, ok := structuredMap(res)
	if !ok {
		return res
	}
	m["hosts"] = h.Health(ctx, hostHealthWait)
	return setStructured(res, m)
}

// fanOut makes a listing on this machine and every host at once and
// merges the lists, each item marked with its host. A host that cannot
// answer is named in hosts_unreachable; the others still answer.
func fanOut(ctx context.Context, req mcp.CallToolRequest, next server.ToolHandlerFunc, h Hosts, readOnly bool) *mcp.CallToolResult {
	names := append([]string{hosts.Local}, h.Names()...)
	results := make([]*mcp.CallToolResult, len(names))
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if name == hosts.Local {
				results[i], errs[i] = next(ctx, req)
				return
			}
			results[i], errs[i] = h.Call(ctx, name, req, readOnly)
		}()
	}
	wg.Wait()
	out := map[string]any{}
	type unreachable struct {
		Host  string `json:"host"`
		Error string `json:"error"`
	}
	var missing []unreachable
	for i, name := range names {
		res, err := results[i], errs[i]
		if err == nil && res != nil && res.IsError {
			err = fmt.Errorf("%s", ResultText(res))
		}
		if err != nil {
			missing = append(missing, unreachable{Host: name, Error: err.Error()})
			continue
		}
		m, ok := structuredMap(res)
		if !ok {
			continue
		}
		// Lists add up, their items marked with the host; counts add up;
		// anything else is one host's and is left out.
		for k, v := range m {
			switch v := v.(type) {
			case []any:
				list, _ := out[k].([]any)
				for _, it := range v {
					if obj, ok := it.(map[string]any); ok {
						obj["host"] = name
					}
					list = append(list, it)
				}
				out[k] = list
			case float64:
				sum, _ := out[k].(float64)
				out[k] = sum + v
			}
		}
	}
	if len(missing) > 0 {
		out["hosts_unreachable"] = missing
	}
	b, err := EncodeJSON(out)
	if err != nil {
		return ErrorResult("encode merged listing: "+err.Error(), "", "")
	}
	return mcp.NewToolResultStructured(json.RawMessage(b), string(b))
}

// ResultText is the text of a result's text content, one part a line.
func ResultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}
