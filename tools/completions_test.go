package tools

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/mcpserver"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

func complete(t *testing.T, c *client.Client, ref any, arg string, value string, ctxArgs map[string]string) mcp.Completion {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var req mcp.CompleteRequest
	req.Params.Ref = ref
	req.Params.Argument = mcp.CompleteArgument{Name: arg, Value: value}
	req.Params.Context = mcp.CompleteContext{Arguments: ctxArgs}
	res, err := c.Complete(ctx, req)
	if err != nil {
		t.Fatalf("complete %v %s=%q: %v", ref, arg, value, err)
	}
	return res.Completion
}

func TestCompletion(t *testing.T) {
	dir := t.TempDir()
	e := newEnv(t, Readonly, func(d *Deps) { d.SocketDir = dir })
	e.tmux("new-session", "-d", "-s", "mainline", "exec cat")
	e.tmux("new-session", "-d", "-s", "other", "exec cat")
	e.tmux("new-window", "-d", "-t", "other:5", "exec cat")
	panes := strings.Fields(e.tmux("list-panes", "-a", "-F", "#{pane_id}"))
	slices.SortFunc(panes, func(a, b string) int { return paneNum(a) - paneNum(b) })
	res := func(uri string) mcp.ResourceReference { return mcp.ResourceReference{Type: "ref/resource", URI: uri} }
	prompt := func(name string) mcp.PromptReference { return mcp.PromptReference{Type: "ref/prompt", Name: name} }
	var sockets []string
	for i := range 105 {
		name := fmt.Sprintf("s%03d", i)
		l, err := net.Listen("unix", filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		sockets = append(sockets, name)
	}

	tests := []struct {
		name    string
		ref     any
		arg     string
		value   string
		ctxArgs map[string]string
		want    []string
		total   int
		hasMore bool
	}{
		{"session prefix", res(mcpserver.URISession), "session_name", "ma", nil, []string{"main", "mainline"}, 2, false},
		{"session all", res(mcpserver.URISessions), "session_name", "", nil, []string{"main", "mainline", "other"}, 3, false},
		{"session none", res(mcpserver.URISession), "session_name", "zz", nil, []string{}, 0, false},
		{"window of session", res(mcpserver.URIWindow), "window_index", "", map[string]string{"session_name": "other"}, []string{"0", "5"}, 2, false},
		{"window all", res(mcpserver.URIWindow), "window_index", "", nil, []string{"0", "5"}, 2, false},
		{"pane prefix", res(mcpserver.URIPaneContent), "pane_id", "%", nil, panes, len(panes), false},
		{"prompt pane", prompt("interrupt_gracefully"), "pane_id", panes[0], nil, []string{panes[0]}, 1, false},
		{"prompt socket", prompt("recover_after_crash"), "socket_name", "s10", nil, sockets[100:], 5, false},
		{"at most 100", prompt("recover_after_crash"), "socket_name", "s", nil, sockets[:100], 105, true},
		{"new session name", prompt("build_dev_workspace"), "session_name", "", nil, []string{}, 0, false},
		{"unknown template", res("tmux://other/{x}"), "x", "", nil, []string{}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := complete(t, e.c, tt.ref, tt.arg, tt.value, tt.ctxArgs)
			if !slices.Equal(got.Values, tt.want) || got.Total != tt.total || got.HasMore != tt.hasMore {
				t.Errorf("got %v (total %d, more %v), want %v (total %d, more %v)", got.Values, got.Total, got.HasMore, tt.want, tt.total, tt.hasMore)
			}
		})
	}
}

func paneNum(id string) int { n, _ := strconv.Atoi(strings.TrimPrefix(id, "%")); return n }

// TestCompletionStartsNoServer: with no server running, completion offers
// nothing and starts none.
func TestCompletionStartsNoServer(t *testing.T) {
	tm := tmuxtest.New(t)
	e := newEnvOver(t, tm, testConfig(tm), Readonly)
	got := complete(t, e.c, mcp.ResourceReference{Type: "ref/resource", URI: mcpserver.URISession}, "session_name", "", nil)
	if len(got.Values) != 0 {
		t.Errorf("completion with no server = %v, want none", got.Values)
	}
	if pid := e.tm.PID(); pid != 0 {
		t.Errorf("a tmux server (pid %d) runs after a completion, want none started", pid)
	}
}
