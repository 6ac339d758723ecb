package tools

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/tmux-mcp/tmux-mcp/drive"
)

// Constructor returns one tool's schema and its handler, side by side.
type Constructor func(d Deps) (mcp.Tool, server.ToolHandlerFunc)

// Spec is one entry of the registry: a tool and the safety tier it needs.
type Spec struct {
	Tier Tier
	New  Constructor
}

// Group is a toolset: tools that can be selected together (--toolsets).
type Group struct {
	ID          string
	Description string
	Tools       []Spec
}

// Groups is the registry: every tool tmux-mcp serves, by group. It returns
// a fresh slice on every call.
func Groups() []Group {
	return []Group{
		{ID: "server", Description: "tmux servers and their sessions", Tools: []Spec{
			{Readonly, ListSessions},
			{Readonly, ListServers},
			{Mutating, CreateSession},
			{Destructive, KillServer},
			{Readonly, GetServerInfo},
		}},
		{ID: "session", Description: "one session and its windows", Tools: []Spec{
			{Readonly, ListWindows},
			{Readonly, GetSessionInfo},
			{Readonly, ViewSession},
			{Mutating, CreateWindow},
			{Mutating, RenameSession},
			{Destructive, KillSession},
			{Mutating, SelectWindow},
		}},
		{ID: "window", Description: "one window: layout, size, place", Tools: []Spec{
			{Readonly, GetWindowInfo},
			{Mutating, RenameWindow},
			{Destructive, KillWindow},
			{Mutating, SelectLayout},
			{Mutating, ResizeWindow},
			{Mutating, MoveWindow},
		}},
		{ID: "pane", Description: "panes: list, split, type, read, wait, inspect, select, resize, respawn, kill", Tools: []Spec{
			{Readonly, ListPanes},
			{Mutating, SplitWindow},
			{Mutating, SendKeys},
			{Mutating, SendKeysBatch},
			{Mutating, RunCommand},
			{Readonly, CapturePane},
			{Readonly, CaptureSince},
			{Readonly, SnapshotPane},
			{Readonly, SearchPanes},
			{Readonly, WaitForText},
			{Mutating, PasteText},
			{Mutating, ClearPane},
			{Mutating, PipePane},
			{Readonly, GetPaneInfo},
			{Readonly, FindPaneByPosition},
			{Readonly, DisplayMessage},
			{Mutating, SelectPane},
			{Mutating, SwapPane},
			{Mutating, ResizePane},
			{Mutating, SetPaneTitle},
			{Mutating, EnterCopyMode},
			{Mutating, ExitCopyMode},
			{Mutating, RespawnPane},
			{Destructive, KillPane},
		}},
		{ID: "agent", Description: "agent CLIs in panes: submit a prompt, wait for the turn, answer permission", Tools: []Spec{
			{Mutating, SubmitPrompt},
			{Readonly, WaitForAgent},
			{Mutating, AnswerPermission},
		}},
		{ID: "job", Description: "background commands (run_command background): state, output, stop", Tools: []Spec{
			{Readonly, GetJob},
			{Readonly, ListJobs},
			{Mutating, StopJob},
		}},
		{ID: "option", Description: "options, environment and hooks (hooks read-only)", Tools: []Spec{
			{Readonly, ShowOption},
			{Mutating, SetOption},
			{Readonly, ShowEnvironment},
			{Mutating, SetEnvironment},
			{Readonly, ShowHooks},
			{Readonly, ShowHook},
		}},
		{ID: "buffer", Description: "paste buffers of this tmux-mcp process", Tools: []Spec{
			{Mutating, LoadBuffer},
			{Mutating, PasteBuffer},
			{Readonly, ShowBuffer},
			{Mutating, DeleteBuffer},
		}},
		{ID: "channel", Description: "tmux wait-for channels", Tools: []Spec{
			{Mutating, WaitForChannel},
			{Mutating, SignalChannel},
		}},
		{ID: "batch", Description: "several tool calls in one", Tools: []Spec{
			{Readonly, CallReadonlyToolsBatch},
			{Mutating, CallMutatingToolsBatch},
			{Destructive, CallDestructiveToolsBatch},
		}},
		{ID: "supervisor", Description: "the supervisor's view of a tmux server", Tools: []Spec{
			{Readonly, ServerHealth},
			{Readonly, Diagnose},
		}},
		{ID: "journal", Description: "the session journal: events, snapshots, restore", Tools: []Spec{
			{Readonly, JournalEvents},
			{Readonly, ListSnapshots},
			{Mutating, RestoreSessions},
		}},
	}
}

// Presets are toolsets that cut across the groups. core is what an agent
// needs to drive panes (find and create them, type, run, read, wait, and
// the supervisor's health), without the administration around them
// (options, environment, hooks, buffers, layout, copy mode, the journal,
// batches): for clients that hand only the first tools of a long list to
// the model (Cursor has cut at 40), it keeps the waits and the sends, and
// the jobs, and driving agent CLIs. With the kill tools (destructive tier) it is 28 tools.
var presets = map[string][]string{
	"core": {
		"list_sessions", "create_session", "list_windows", "create_window", "kill_session", "kill_window",
		"list_panes", "split_window", "get_pane_info", "kill_pane",
		"send_keys", "send_keys_batch", "run_command", "paste_text", "clear_pane",
		"capture_pane", "capture_since", "snapshot_pane", "search_panes", "wait_for_text",
		"wait_for_channel", "signal_channel", "server_health", "get_job", "list_jobs", "stop_job",
		"submit_prompt", "wait_for_agent",
	},
}

// PresetIDs returns the names of the presets, sorted.
func PresetIDs() []string { return slices.Sorted(maps.Keys(presets)) }

// GroupIDs returns the IDs of every group, sorted.
func GroupIDs() []string {
	var ids []string
	for _, g := range Groups() {
		ids = append(ids, g.ID)
	}
	sort.Strings(ids)
	return ids
}

// ParseToolsets parses a comma-separated list of group IDs and presets
// (core). "" and "all" select every group.
func ParseToolsets(s string) ([]string, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "all" {
		return GroupIDs(), nil
	}
	valid := append(GroupIDs(), PresetIDs()...)
	var out []string
	for _, id := range strings.Split(s, ",") {
		id = strings.TrimSpace(id)
		if id == "" {
			continue
		}
		if id == "all" {
			return GroupIDs(), nil
		}
		if !slices.Contains(valid, id) {
			return nil, fmt.Errorf("tools: unknown toolset %q (valid: all, %s)", id, strings.Join(valid, ", "))
		}
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out, nil
}

// Entry is one built tool of the registry.
type Entry struct {
	Group   string
	Tier    Tier
	Tool    mcp.Tool
	Handler server.ToolHandlerFunc
}

// Catalog builds every tool of the registry, sorted by group and name.
// Building a tool makes no tmux call.
func Catalog(d Deps) []Entry {
	d.initGuard()
	if d.panes == nil {
		d.panes = newPaneIO()
	}
	if d.runs == nil {
		d.runs = drive.NewFiles(d.TempDir)
	}
	if d.jobs == nil {
		d.jobFiles = drive.NewFiles(d.TempDir)
		d.jobs = newJobTable(d)
	}
	var out []Entry
	for _, g := range Groups() {
		for _, s := range g.Tools {
			t, h := s.New(d)
			t = describeParams(t, d)
			out = append(out, Entry{Group: g.ID, Tier: s.Tier, Tool: t, Handler: h})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Group != out[j].Group {
			return out[i].Group < out[j].Group
		}
		return out[i].Tool.Name < out[j].Tool.Name
	})
	return out
}

// Select returns the entries allowed at tier in the given toolsets (nil:
// all): groups, and presets that name tools.
func Select(all []Entry, tier Tier, toolsets []string) []Entry {
	var out []Entry
	for _, e := range all {
		if e.Tier > tier {
			continue
		}
		if toolsets != nil && !slices.Contains(toolsets, e.Group) && !inPreset(toolsets, e.Tool.Name) {
			continue
		}
		out = append(out, e)
	}
	return out
}

// inPreset reports whether one of the toolsets is a preset that names the
// tool.
func inPreset(toolsets []string, tool string) bool {
	for _, id := range toolsets {
		if slices.Contains(presets[id], tool) {
			return true
		}
	}
	return false
}

// ListJSON returns what tools/list sends for entries: {"tools": [...]},
// output schemas included. Its length is what an agent pays in context.
func ListJSON(entries []Entry) ([]byte, error) {
	list := make([]mcp.Tool, 0, len(entries))
	for _, e := range entries {
		list = append(list, e.Tool)
	}
	b, err := json.Marshal(struct {
		Tools []mcp.Tool `json:"tools"`
	}{list})
	if err != nil {
		return nil, fmt.Errorf("tools: encode tools/list: %w", err)
	}
	return b, nil
}
