package tools

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/hosts"
	"github.com/tmux-mcp/tmux-mcp/mcpserver"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// callWithCallers makes a tool call whose _meta carries callers, as a
// routed call does.
func callWithCallers(e *env, name string, args map[string]any, callers []hosts.Caller) *mcp.CallToolResult {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	var req mcp.CallToolRequest
	req.Params.Name = name
	req.Params.Arguments = args
	req.Params.Meta = mcp.NewMetaFromMap(map[string]any{hosts.CallersKey: callers})
	res, err := e.c.CallTool(ctx, req)
	if err != nil {
		e.t.Fatalf("%s: %v", name, err)
	}
	return res
}

// TestCallersOfThisMachineAreGuarded: a call routed here with the
// descriptor of a tmux-mcp of this machine refuses to type into the pane
// that descriptor's ancestry or TMUX_PANE finds; a descriptor of another
// machine, one that cannot be compared, or another socket's pane adds
// nothing; and a descriptor never takes this process's own pane away.
func TestCallersOfThisMachineAreGuarded(t *testing.T) {
	e := newEnv(t, Destructive)
	agent := e.firstPane()
	other := e.tmux("new-session", "-d", "-P", "-F", "#{pane_id}", "-s", "other")
	pid, err := strconv.Atoi(e.tmux("display-message", "-p", "-t", agent, "#{pane_pid}"))
	if err != nil {
		t.Fatal(err)
	}
	here := hosts.MachineID()
	if here == "" {
		t.Fatal("no machine ID on this machine")
	}
	refused := "Refusing to type into the pane running this MCP server"
	tests := []struct {
		name    string
		callers []hosts.Caller
		refuse  bool
	}{
		{"this machine, by ancestry", []hosts.Caller{{Machine: here, PIDs: []int{os.Getpid() + 1<<20, pid}}}, true},
		{"this machine, by TMUX_PANE", []hosts.Caller{{Machine: here, Socket: e.tm.Socket, Pane: agent}}, true},
		{"this machine, second in the chain", []hosts.Caller{{Machine: "elsewhere", PIDs: []int{pid}}, {Machine: here, PIDs: []int{pid}}}, true},
		{"another machine", []hosts.Caller{{Machine: "linux:another-boot:pid:[1]", PIDs: []int{pid}, Socket: e.tm.Socket, Pane: agent}}, false},
		{"another server's TMUX_PANE", []hosts.Caller{{Machine: here, Socket: "/nonexistent/other-socket", Pane: agent}}, false},
		{"nothing comparable", []hosts.Caller{{Machine: here, PIDs: []int{0, 1, -pid}, Pane: "1"}}, false},
		{"no machine", []hosts.Caller{{PIDs: []int{pid}}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := callWithCallers(e, "send_keys", map[string]any{"pane_id": agent, "keys": "", "literal": true}, tt.callers)
			if got := res.IsError && strings.Contains(text(res), refused); got != tt.refuse {
				t.Errorf("send_keys to the descriptor's pane: %q, want refused %v", text(res), tt.refuse)
			}
			if res := callWithCallers(e, "send_keys", map[string]any{"pane_id": other, "keys": "", "literal": true}, tt.callers); res.IsError {
				t.Errorf("send_keys to another pane: %q", text(res))
			}
		})
	}

	// The listings mark the descriptor's pane.
	res := callWithCallers(e, "list_panes", nil, []hosts.Caller{{Machine: here, PIDs: []int{pid}}})
	if b := structuredJSON(t, res); !strings.Contains(string(b), `"pane_id":"`+agent+`"`) {
		t.Fatalf("list_panes: %s", b)
	}
	var out struct {
		Result []callerRow `json:"result"`
	}
	if err := json.Unmarshal(structuredJSON(t, res), &out); err != nil {
		t.Fatal(err)
	}
	for _, r := range out.Result {
		if want := r.ID == agent; r.IsCaller == nil || *r.IsCaller != want {
			t.Errorf("list_panes with the descriptor: %s is_caller %s, want %v", r.ID, fmtMark(r.IsCaller), want)
		}
	}

	// This process in other's pane, a descriptor naming agent: both are
	// guarded, neither replaces the other.
	self := newEnvOver(t, e.tm, testConfig(e.tm), Destructive, inPane(e, other))
	for _, p := range []string{agent, other} {
		res := callWithCallers(self, "send_keys", map[string]any{"pane_id": p, "keys": "", "literal": true},
			[]hosts.Caller{{Machine: here, PIDs: []int{pid}}})
		if !res.IsError || !strings.Contains(text(res), refused) {
			t.Errorf("in pane %s with a descriptor of pane %s: send_keys to %s: %q, want refused", other, agent, p, text(res))
		}
	}
}

// recordingHosts is a Hosts that records the callers each routed call
// carries and answers with an empty result.
type recordingHosts struct {
	mu  sync.Mutex
	got [][]hosts.Caller
}

func (r *recordingHosts) Names() []string { return []string{"far"} }
func (r *recordingHosts) Call(ctx context.Context, _ string, _ mcp.CallToolRequest, _ bool) (*mcp.CallToolResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, hosts.CallersFrom(ctx))
	return mcp.NewToolResultText("ok"), nil
}
func (r *recordingHosts) Health(context.Context, time.Duration) []hosts.Health { return nil }
func (r *recordingHosts) ReadResource(context.Context, string, string) (*mcp.ReadResourceResult, error) {
	return &mcp.ReadResourceResult{}, nil
}
func (r *recordingHosts) Subscribe(context.Context, string, string) (<-chan struct{}, func(), error) {
	return make(chan struct{}), func() {}, nil
}

// TestRoutedCallsCarryTheirCallers: a call routed to a host carries this
// process's descriptor first (its machine, its ancestry, its TMUX), then
// those of the call it routes (a host that routes further passes them on:
// the union), at most eight: the client's own cannot push this process's
// out, nor stand in for it.
func TestRoutedCallsCarryTheirCallers(t *testing.T) {
	tm := tmuxtest.New(t)
	tm.Start("main")
	sup := supervisor.New(testConfig(tm))
	t.Cleanup(func() { sup.Close() })
	rec := &recordingHosts{}
	d := Deps{Sup: sup, Tier: Readonly, SocketDir: t.TempDir(),
		Caller:   Caller{SocketPath: "/tmp/tmux-1000/default", Pane: "%7"},
		selfPIDs: func() []int { return []int{os.Getpid(), 4242} }}
	srv, err := New(d, Options{Settings: mcpserver.Settings{Version: "test", Hosts: rec}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	c := startClient(t, srv)
	e := &env{t: t, tm: tm, srv: srv, c: c, d: d}
	forged := make([]hosts.Caller, 20)
	for i := range forged {
		forged[i] = hosts.Caller{Machine: "m" + strconv.Itoa(i), PIDs: []int{1000 + i}}
	}
	if res := callWithCallers(e, "list_sessions", map[string]any{"host": "far"}, forged); res.IsError {
		t.Fatalf("list_sessions on far: %q", text(res))
	}
	if res := callWithCallers(e, "list_sessions", map[string]any{"host": "far"}, nil); res.IsError {
		t.Fatalf("list_sessions on far: %q", text(res))
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.got) != 2 {
		t.Fatalf("%d routed calls, want 2", len(rec.got))
	}
	want := hosts.Caller{Machine: hosts.MachineID(), PIDs: []int{os.Getpid(), 4242}, Socket: "/tmp/tmux-1000/default", Pane: "%7"}
	for i, got := range rec.got {
		if len(got) == 0 || got[0].Machine != want.Machine || !slices.Equal(got[0].PIDs, want.PIDs) || got[0].Socket != want.Socket || got[0].Pane != want.Pane {
			t.Errorf("call %d: first descriptor %+v, want this process's %+v", i, got, want)
		}
	}
	if got := rec.got[0]; len(got) != 8 || got[1].Machine != "m0" || got[7].Machine != "m6" {
		t.Errorf("with 20 received: carried %+v, want this process's then the first 7 received", got)
	}
	if got := rec.got[1]; len(got) != 1 {
		t.Errorf("with none received: carried %+v, want this process's only", got)
	}
}
