package guard

import (
	"context"
	"slices"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/hosts"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// TestHopCallers: descriptors of this machine add their ancestry and
// their TMUX_PANE to the caller's panes; other machines' are only passed
// on.
func TestHopCallers(t *testing.T) {
	sock := tmux.Socket{Path: "/tmp/tmux-test/default"}
	received := []hosts.Caller{
		{Machine: "far", PIDs: []int{10}, Socket: sock.Path, Pane: "%1"},
		{Machine: "here", PIDs: []int{20, 21}},
		{Machine: "here", Socket: sock.Path, Pane: "%3"},
	}
	h := newHopCallers(received, "here")
	if !h.Here() || !h.OnServer(sock) || h.OnServer(tmux.Socket{Path: "/tmp/tmux-test/other"}) {
		t.Errorf("Here %v, OnServer(sock) %v, OnServer(other) %v; want true, true, false",
			h.Here(), h.OnServer(sock), h.OnServer(tmux.Socket{Path: "/tmp/tmux-test/other"}))
	}
	panes := []tmux.Pane{
		{ID: "%1", PID: 10},             // the far machine's PID: means nothing here
		{ID: "%2", PID: 21},             // an ancestor of a caller here
		{ID: "%3", PID: 99},             // a caller's TMUX_PANE
		{ID: "%4", PID: 20, Dead: true}, // dead: its PID may be another's now
	}
	if got, want := h.find(panes, sock), []tmux.PaneID{"%2", "%3"}; !slices.Equal(got, want) {
		t.Errorf("find = %v, want %v", got, want)
	}
	if got := h.find(panes, tmux.Socket{Path: "/tmp/tmux-test/other"}); !slices.Equal(got, []tmux.PaneID{"%2"}) {
		t.Errorf("find on another server = %v, want [%%2] (by ancestry only)", got)
	}
	if far := newHopCallers(received[:1], "here"); far.Here() {
		t.Error("a call from another machine only counts as here")
	}
	if none := newHopCallers(received, ""); none.Here() {
		t.Error("without a machine ID, no descriptor counts as here")
	}
	self := hosts.Caller{Machine: "here", PIDs: []int{30}}
	if got := h.Chain(self); len(got) != 1+len(received) || got[0].Machine != "here" || !slices.Equal(got[0].PIDs, []int{30}) {
		t.Errorf("Chain = %+v, want this process first, then the %d received", got, len(received))
	}
	var nilHops *HopCallers
	if nilHops.Here() || nilHops.OnServer(sock) || nilHops.find(panes, sock) != nil {
		t.Error("no descriptors: nothing is here")
	}
}

// TestReadCallers: the middleware puts a call's descriptors in its
// context, and nothing when the call carries none.
func TestReadCallers(t *testing.T) {
	var seen *HopCallers
	next := func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		seen = HopCallersOf(ctx)
		return nil, nil
	}
	h := ReadCallers("here")(next)
	if _, err := h(context.Background(), mcp.CallToolRequest{}); err != nil || seen != nil {
		t.Errorf("no descriptors: %v, %+v", err, seen)
	}
	var req mcp.CallToolRequest
	req.Params.Meta = &mcp.Meta{AdditionalFields: map[string]any{hosts.CallersKey: []hosts.Caller{{Machine: "here", PIDs: []int{42}}}}}
	if _, err := h(context.Background(), req); err != nil || !seen.Here() {
		t.Errorf("a descriptor of this machine: %v, here %v", err, seen.Here())
	}
}
