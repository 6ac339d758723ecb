package tools

import (
	"context"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/guard"
)

// inPane makes the MCP server's process look as if it ran in pane: its
// ancestry holds the pane's process, and TMUX is not set.
func inPane(e *env, pane string) func(*Deps) {
	pid, err := strconv.Atoi(e.tmux("display-message", "-p", "-t", pane, "#{pane_pid}"))
	if err != nil {
		e.t.Fatal(err)
	}
	return func(d *Deps) { d.selfPIDs = func() []int { return []int{os.Getpid(), 1 << 30, pid} } }
}

type callerRow struct {
	ID       string `json:"pane_id"`
	Window   string `json:"window_id"`
	Session  string `json:"session_id"`
	IsCaller *bool  `json:"is_caller"`
}

// callers lists the rows of a listing tool: result[].<idField>, is_caller.
func callers(t *testing.T, e *env, tool, idField string) map[string]*bool {
	t.Helper()
	var out struct {
		Result []map[string]any `json:"result"`
	}
	e.ok(tool, nil, &out)
	got := map[string]*bool{}
	for _, r := range out.Result {
		id, _ := r[idField].(string)
		v, present := r["is_caller"]
		if !present {
			t.Errorf("%s: %s has no is_caller field", tool, id)
		}
		if b, ok := v.(bool); ok {
			got[id] = &b
		} else {
			got[id] = nil
		}
	}
	return got
}

func fmtMark(b *bool) string {
	if b == nil {
		return "null"
	}
	return strconv.FormatBool(*b)
}

// TestOwnPaneFromAncestry: without TMUX in the environment, tmux-mcp finds
// its pane as the one whose process is one of its ancestors, and the
// listings mark that pane, its window and its session.
func TestOwnPaneFromAncestry(t *testing.T) {
	e := newEnv(t, Readonly)
	e.tmux("new-session", "-d", "-s", "other")
	mine := e.split(e.firstPane())
	win := e.tmux("display-message", "-p", "-t", mine, "#{window_id}")
	sess := e.tmux("display-message", "-p", "-t", mine, "#{session_id}")

	outside := callers(t, e, "list_panes", "pane_id")
	for id, b := range outside {
		if b != nil {
			t.Errorf("outside tmux: list_panes %s is_caller = %s, want null", id, fmtMark(b))
		}
	}

	self := newEnvOver(t, e.tm, testConfig(e.tm), Readonly, inPane(e, mine))
	for _, tt := range []struct {
		tool, field, want string
	}{
		{"list_panes", "pane_id", mine},
		{"list_windows", "window_id", win},
		{"list_sessions", "session_id", sess},
	} {
		got := callers(t, self, tt.tool, tt.field)
		if len(got) < 2 {
			t.Errorf("%s: %d rows, want at least 2", tt.tool, len(got))
		}
		for id, b := range got {
			if want := id == tt.want; b == nil || *b != want {
				t.Errorf("%s: %s is_caller = %s, want %v", tt.tool, id, fmtMark(b), want)
			}
		}
	}
	for _, tt := range []struct {
		tool string
		args map[string]any
		want bool
	}{
		{"get_pane_info", map[string]any{"pane_id": mine}, true},
		{"get_pane_info", map[string]any{"pane_id": e.firstPane()}, false},
		{"snapshot_pane", map[string]any{"pane_id": mine}, true},
		{"get_window_info", map[string]any{"window_id": win}, true},
		{"get_session_info", map[string]any{"session_name": "other"}, false},
		{"get_session_info", map[string]any{"session_id": sess}, true},
	} {
		var r callerRow
		self.ok(tt.tool, tt.args, &r)
		if r.IsCaller == nil || *r.IsCaller != tt.want {
			t.Errorf("%s(%v): is_caller = %s, want %v", tt.tool, tt.args, fmtMark(r.IsCaller), tt.want)
		}
	}
}

// TestOwnPaneRefusals: typing into, respawning or killing the caller's
// pane, and killing its window, session or server, are refused with a
// clear error when the client cannot be asked, even at the destructive
// tier; --allow-own-pane lets them through at that tier only.
func TestOwnPaneRefusals(t *testing.T) {
	e := newEnv(t, Destructive)
	mine, file := e.sink()
	win := e.tmux("display-message", "-p", "-t", mine, "#{window_id}")
	pid := e.tmux("display-message", "-p", "-t", mine, "#{pane_pid}")
	calls := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"send_keys", map[string]any{"pane_id": mine, "keys": "y"}, guard.RefuseSelfInput},
		{"paste_text", map[string]any{"pane_id": mine, "text": "y"}, guard.RefuseSelfInput},
		{"run_command", map[string]any{"pane_id": mine, "command": "y", "timeout": 1}, guard.RefuseSelfInput},
		{"respawn_pane", map[string]any{"pane_id": mine}, refuseRespawn},
		{"kill_pane", map[string]any{"pane_id": mine}, refusePane},
		{"kill_window", map[string]any{"window_id": win}, guard.RefuseWindow},
		{"kill_session", map[string]any{"session_name": "main"}, guard.RefuseSession},
		{"kill_server", nil, guard.RefuseServer},
	}
	for _, tier := range []Tier{Mutating, Destructive} {
		self := newEnvOver(t, e.tm, testConfig(e.tm), tier, inPane(e, mine))
		for _, c := range calls {
			if tier == Mutating && strings.HasPrefix(c.tool, "kill_") {
				continue // hidden below destructive
			}
			self.fails(c.tool, c.args, c.want, "[refused]", "--allow-own-pane", "elicitation")
		}
	}
	// At the mutating tier the flag allows nothing.
	flagged := newEnvOver(t, e.tm, testConfig(e.tm), Mutating, inPane(e, mine), func(d *Deps) { d.AllowOwnPane = true })
	flagged.fails("send_keys", map[string]any{"pane_id": mine, "keys": "y"}, guard.RefuseSelfInput)
	if b, _ := os.ReadFile(file); len(b) != 0 {
		t.Errorf("the caller's pane received %q", b)
	}
	if got := e.tmux("display-message", "-p", "-t", mine, "#{pane_pid}"); got != pid {
		t.Errorf("the caller's pane was respawned: pid %s, want %s", got, pid)
	}

	allowed := newEnvOver(t, e.tm, testConfig(e.tm), Destructive, inPane(e, mine), func(d *Deps) { d.AllowOwnPane = true })
	allowed.ok("send_keys", map[string]any{"pane_id": mine, "keys": "typed"}, nil)
	waitFile(t, file, "typed\n")
	allowed.ok("kill_window", map[string]any{"window_id": win}, nil)
}

// elicitor answers every elicitation with action and records the
// questions.
type elicitor struct {
	action mcp.ElicitationResponseAction
	mu     sync.Mutex
	asked  []string
}

func (h *elicitor) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.asked = append(h.asked, req.Params.Message)
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: h.action}}, nil
}

func (h *elicitor) questions() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.asked...)
}

// asking is an MCP client of e's server that declares elicitation and
// answers with h.
func asking(t *testing.T, e *env, h *elicitor) *env {
	t.Helper()
	c, err := client.NewInProcessClientWithOptions(e.srv.MCP, client.WithElicitationHandler(h))
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
	init.Params.ClientInfo = mcp.Implementation{Name: "asking", Version: "0"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	return &env{t: t, tm: e.tm, sup: e.sup, srv: e.srv, c: c, d: e.d}
}

// TestOwnPaneConfirm: a client that declared elicitation is asked, and
// the action goes ahead only when the user accepts.
func TestOwnPaneConfirm(t *testing.T) {
	e := newEnv(t, Destructive)
	mine, file := e.sink()
	self := newEnvOver(t, e.tm, testConfig(e.tm), Destructive, inPane(e, mine))

	for _, tt := range []struct {
		action mcp.ElicitationResponseAction
		want   string
	}{
		{mcp.ElicitationResponseActionDecline, "The user declined when asked."},
		{mcp.ElicitationResponseActionCancel, "The user cancelled when asked."},
	} {
		h := &elicitor{action: tt.action}
		c := asking(t, self, h)
		c.fails("send_keys", map[string]any{"pane_id": mine, "keys": "no"}, guard.RefuseSelfInput, tt.want)
		if q := h.questions(); len(q) != 1 || !strings.Contains(q[0], "send_keys would type into pane "+mine) {
			t.Errorf("%s: questions = %q, want one about send_keys into %s", tt.action, q, mine)
		}
		c.fails("kill_pane", map[string]any{"pane_id": mine}, refusePane, tt.want)
	}

	h := &elicitor{action: mcp.ElicitationResponseActionAccept}
	yes := asking(t, self, h)
	// A batch has no round trip of its own: refused, nobody asked.
	var batch struct {
		Failed  int        `json:"failed"`
		Results []batchRow `json:"results"`
	}
	yes.ok("call_mutating_tools_batch", map[string]any{"operations": []any{
		map[string]any{"tool": "send_keys", "arguments": map[string]any{"pane_id": mine, "keys": "batched"}}}}, &batch)
	if batch.Failed != 1 || batch.Results[0].Error == nil || !strings.Contains(*batch.Results[0].Error, "not in a batch") {
		t.Errorf("batch = %+v, want send_keys refused with the hint to call it on its own", batch)
	}
	if q := h.questions(); len(q) != 0 {
		t.Errorf("a batch asked %q, want no question", q)
	}
	yes.ok("send_keys", map[string]any{"pane_id": mine, "keys": "yes"}, nil)
	waitFile(t, file, "yes\n")
	// Other panes are never asked about.
	other, otherFile := e.sink()
	yes.ok("send_keys", map[string]any{"pane_id": other, "keys": "free"}, nil)
	waitFile(t, otherFile, "free\n")
	if q := h.questions(); len(q) != 1 {
		t.Errorf("questions = %q, want exactly one (for the caller's pane)", q)
	}
	// send_keys_batch asks once, before it types anything.
	var keys struct {
		Succeeded int `json:"succeeded"`
	}
	yes.ok("send_keys_batch", map[string]any{"operations": []any{
		map[string]any{"pane_id": other, "keys": "b1"}, map[string]any{"pane_id": mine, "keys": "b2"},
		map[string]any{"pane_id": mine, "keys": "b3"}}}, &keys)
	waitFile(t, file, "yes\nb2\nb3\n")
	waitFile(t, otherFile, "free\nb1\n")
	if q := h.questions(); keys.Succeeded != 3 || len(q) != 2 {
		t.Errorf("send_keys_batch: %d succeeded after questions %q, want 3 after one more question", keys.Succeeded, q)
	}
	yes.ok("kill_pane", map[string]any{"pane_id": mine}, nil)
	if panes := strings.Fields(e.tmux("list-panes", "-a", "-F", "#{pane_id}")); slices.Contains(panes, mine) {
		t.Errorf("panes after an accepted kill_pane = %v, want %s gone", panes, mine)
	}
}
