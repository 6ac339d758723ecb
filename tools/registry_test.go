package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/mcpserver"
	"github.com/tmux-mcp/tmux-mcp/tooldef"
)

// destructiveAtMutating are the tools libtmux-mcp serves at the mutating
// tier although they may destroy something (a pane's process, its
// scrollback, whatever a batch calls): their annotations say so.
var destructiveAtMutating = map[string]bool{"respawn_pane": true, "clear_pane": true, "call_mutating_tools_batch": true}

// noSocketName are the tools without socket_name, as in libtmux-mcp: the
// batches pass it to each call instead; a job's ID names its server.
var noSocketName = map[string]bool{"list_servers": true, "call_readonly_tools_batch": true,
	"call_mutating_tools_batch": true, "call_destructive_tools_batch": true, "get_job": true, "stop_job": true}

func TestEveryToolDeclaresAnnotationsTierAndOutputSchema(t *testing.T) {
	seen := map[string]bool{}
	for _, e := range Catalog(Deps{}) {
		name := e.Tool.Name
		if seen[name] {
			t.Errorf("%s: registered twice", name)
		}
		seen[name] = true
		a := e.Tool.Annotations
		// readOnlyHint and idempotentHint are stated when true only (false
		// is their default in the MCP specification); openWorldHint
		// always, and destructiveHint whenever readOnlyHint is false (the
		// specification gives it meaning only then): their default is
		// true.
		if a.OpenWorldHint == nil || a.ReadOnlyHint != nil && !*a.ReadOnlyHint || a.IdempotentHint != nil && !*a.IdempotentHint {
			t.Errorf("%s: openWorldHint %v, readOnlyHint %v, idempotentHint %v; want openWorldHint set, the others true or absent",
				name, a.OpenWorldHint, a.ReadOnlyHint, a.IdempotentHint)
			continue
		}
		if ro := isTrue(a.ReadOnlyHint); (a.DestructiveHint == nil) != ro || ro && a.IdempotentHint != nil {
			t.Errorf("%s: readOnlyHint %v with destructiveHint %v, idempotentHint %v; want them set exactly when not read-only",
				name, ro, a.DestructiveHint, a.IdempotentHint)
			continue
		}
		if got, want := isTrue(a.ReadOnlyHint), e.Tier == Readonly; got != want {
			t.Errorf("%s: readOnlyHint = %v at tier %s, want %v", name, got, e.Tier, want)
		}
		if a.DestructiveHint != nil && *a.DestructiveHint && e.Tier != Destructive && !destructiveAtMutating[name] {
			t.Errorf("%s: destructiveHint set but tier is %s, want destructive", name, e.Tier)
		}
		if e.Tier < Readonly || e.Tier > Destructive {
			t.Errorf("%s: tier %d out of range", name, e.Tier)
		}
		if len(e.Tool.RawOutputSchema) == 0 {
			t.Errorf("%s: no output schema", name)
		}
		if e.Tool.Description == "" {
			t.Errorf("%s: no description", name)
		}
		props, _ := tooldef.InputSchema(e.Tool)
		if _, ok := props["socket_name"]; !ok && !noSocketName[name] {
			t.Errorf("%s: no socket_name parameter", name)
		}
	}
}

// TestToolSnapshots compares every tool's schema with its golden file under
// testdata/toolsnaps. UPDATE_TOOLSNAPS=1 rewrites them; a missing snapshot
// fails.
func TestToolSnapshots(t *testing.T) {
	update := os.Getenv("UPDATE_TOOLSNAPS") == "1"
	var names []string
	for _, e := range Catalog(Deps{}) {
		names = append(names, e.Tool.Name+".snap")
		got, err := json.MarshalIndent(e.Tool, "", "  ")
		if err != nil {
			t.Fatalf("%s: %v", e.Tool.Name, err)
		}
		// Re-indent the raw schemas too.
		var buf bytes.Buffer
		if err := json.Indent(&buf, got, "", "  "); err != nil {
			t.Fatal(err)
		}
		got = append(buf.Bytes(), '\n')
		path := filepath.Join("testdata", "toolsnaps", e.Tool.Name+".snap")
		if update {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s: missing snapshot %s (run UPDATE_TOOLSNAPS=1 go test ./tools -run TestToolSnapshots): %v", e.Tool.Name, path, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: schema differs from %s (run UPDATE_TOOLSNAPS=1 go test ./tools -run TestToolSnapshots if intended)\ngot:\n%s\nwant:\n%s",
				e.Tool.Name, path, got, want)
		}
	}
	entries, err := os.ReadDir(filepath.Join("testdata", "toolsnaps"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range entries {
		if !slices.Contains(names, f.Name()) {
			t.Errorf("stale snapshot %s: no such tool", f.Name())
		}
	}
}

// TestContextCost measures what tools/list costs an agent at each tier:
// the whole list, output schemas included, must average under 800 bytes a
// tool. `tmux-mcp tools --stats --safety <tier>` prints the same figures.
func TestContextCost(t *testing.T) {
	const budget = 800 // bytes per tool, averaged over tools/list
	all := Catalog(Deps{})
	for tier := Readonly; tier <= Destructive; tier++ {
		sel := Select(all, tier, nil)
		b, err := ListJSON(sel)
		if err != nil {
			t.Fatal(err)
		}
		got := float64(len(b)) / float64(len(sel))
		t.Logf("tier %-11s %2d tools, tools/list %5d bytes, %4.0f bytes per tool", tier, len(sel), len(b), got)
		if got >= budget {
			t.Errorf("tier %s: tools/list averages %.0f bytes per tool, want under %d", tier, got, budget)
		}
	}
}

func TestInstructions(t *testing.T) {
	for _, d := range []Deps{
		{Tier: Readonly},
		{Tier: Destructive, Caller: Caller{SocketPath: "/tmp/tmux-1000/default", Pane: "%12"}},
	} {
		got := instructions(d, "tmux-mcp")
		if len(got) >= mcpserver.MaxInstructions {
			t.Errorf("instructions are %d bytes, want under %d", len(got), mcpserver.MaxInstructions)
		}
		for _, want := range []string{"Server > Session > Window > Pane", "Safety level: " + d.Tier.String(), "polling is cheap",
			"WAIT, DON'T POLL", "if_sha256"} {
			if !strings.Contains(got, want) {
				t.Errorf("instructions do not contain %q:\n%s", want, got)
			}
		}
		if d.Caller.Pane != "" && !strings.Contains(got, string(d.Caller.Pane)) {
			t.Errorf("instructions do not name the caller's pane %s", d.Caller.Pane)
		}
	}
}

func TestParseToolsets(t *testing.T) {
	tests := []struct {
		in      string
		want    []string
		wantErr bool
	}{
		{"", GroupIDs(), false},
		{"all", GroupIDs(), false},
		{"window, server,window", []string{"server", "window"}, false},
		{"nope", nil, true},
	}
	for _, tt := range tests {
		got, err := ParseToolsets(tt.in)
		if !slices.Equal(got, tt.want) || (err != nil) != tt.wantErr {
			t.Errorf("ParseToolsets(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

// hiddenCallArgs are arguments with which each tool above the readonly
// tier would change the test server if its handler ran.
var hiddenCallArgs = map[string]map[string]any{
	"create_session":   {"session_name": "made"},
	"create_window":    {"session_name": "main", "window_name": "made"},
	"rename_session":   {"session_name": "main", "new_name": "made"},
	"select_window":    {"session_name": "main", "window_index": "0"},
	"rename_window":    {"session_name": "main", "new_name": "made"},
	"select_layout":    {"session_name": "main", "layout": "tiled"},
	"resize_window":    {"session_name": "main", "width": 50},
	"move_window":      {"session_name": "main", "destination_index": "7"},
	"split_window":     {"session_name": "main"},
	"kill_server":      {},
	"kill_session":     {"session_name": "main"},
	"kill_window":      {"window_id": "@0"},
	"restore_sessions": {},
	"select_pane":      {"pane_id": "%0"},
	"swap_pane":        {"source_pane_id": "%0", "target_pane_id": "%0"},
	"resize_pane":      {"width": 50},
	"set_pane_title":   {"title": "made"},
	"enter_copy_mode":  {},
	"exit_copy_mode":   {},
	"respawn_pane":     {"pane_id": "%0"},
	"kill_pane":        {"pane_id": "%0"},
	"set_option":       {"option": "@made", "value": "1", "global_": true},
	"set_environment":  {"name": "MADE", "value": "1"},
	"load_buffer":      {"content": "made"},
	"paste_buffer":     {"buffer_name": "tmux_mcp_00000000000000000000000000000000_made"},
	"delete_buffer":    {"buffer_name": "tmux_mcp_00000000000000000000000000000000_made"},
	"wait_for_channel": {"channel": "made", "timeout": 0.1},
	"signal_channel":   {"channel": "made"},
	"call_mutating_tools_batch": {"operations": []any{map[string]any{"tool": "create_session",
		"arguments": map[string]any{"session_name": "made"}}}},
	"call_destructive_tools_batch": {"operations": []any{map[string]any{"tool": "kill_session",
		"arguments": map[string]any{"session_name": "main"}}}},
	"send_keys":         {"session_name": "main", "keys": "exit"},
	"send_keys_batch":   {"operations": []any{map[string]any{"keys": "exit"}}},
	"run_command":       {"session_name": "main", "command": "exit"},
	"stop_job":          {"job_id": "j0000000000"},
	"paste_text":        {"session_name": "main", "text": "exit\n"},
	"submit_prompt":     {"session_name": "main", "text": "exit"},
	"answer_permission": {"session_name": "main", "answer": "yes"},
	"clear_pane":        {"session_name": "main"},
	"pipe_pane":         {"session_name": "main", "output_path": "/tmp/tmux-mcp-hidden-call"},
}

// TestTiers checks that each tier lists exactly its tools, and that calling
// a tool above the tier fails with a tool error naming the tier it needs
// and without running it: the tmux server is left as it was.
func TestTiers(t *testing.T) {
	all := Catalog(Deps{})
	for tier := Readonly; tier <= Destructive; tier++ {
		t.Run(tier.String(), func(t *testing.T) {
			e := newEnv(t, tier)
			res, err := e.c.ListTools(context.Background(), mcp.ListToolsRequest{})
			if err != nil {
				t.Fatal(err)
			}
			var got, want []string
			for _, tool := range res.Tools {
				got = append(got, tool.Name)
			}
			var hidden []Entry
			for _, x := range all {
				if x.Tier <= tier {
					want = append(want, x.Tool.Name)
				} else {
					hidden = append(hidden, x)
				}
			}
			sort.Strings(got)
			sort.Strings(want)
			if !slices.Equal(got, want) {
				t.Errorf("tools/list at %s = %v, want %v", tier, got, want)
			}
			if len(e.srv.Tools) != len(want) {
				t.Errorf("Server.Tools at %s has %d tools, want %d", tier, len(e.srv.Tools), len(want))
			}
			state := func() string {
				pid, _ := e.tm.Tmux("display-message", "-p", "#{pid}")
				return pid + "\n" + e.tmux("list-panes", "-a", "-F",
					"#{session_name} #{window_id} #{window_index} #{window_name} #{window_width}x#{window_height} #{window_layout} "+
						"#{pane_id} #{pane_pid} #{pane_title} #{pane_in_mode} #{window_zoomed_flag}") +
					"\n" + e.tmux("show-options", "-g") + "\n" + e.tmux("show-environment", "-g") +
					"\n" + e.tmux("list-buffers", "-F", "#{buffer_name}")
			}
			before := state()
			for _, x := range hidden {
				name := x.Tool.Name
				args, ok := hiddenCallArgs[name]
				if !ok {
					t.Errorf("%s: no arguments in hiddenCallArgs", name)
					continue
				}
				want := fmt.Sprintf("Tool '%s' is not available at the current safety level. Set TMUX_MCP_SAFETY=%s to enable %s tools.",
					name, x.Tier, x.Tier)
				res := e.call(name, args)
				if got := text(res); !res.IsError || !strings.HasPrefix(got, want+" [safety]") {
					t.Errorf("%s at %s: got %q (error %v), want an error result starting %q", name, tier, got, res.IsError, want+" [safety]")
				}
			}
			if after := state(); after != before {
				t.Errorf("refused calls changed the tmux server:\ngot:\n%s\nwant:\n%s", after, before)
			}
		})
	}
}

func TestToolsetsSelectGroups(t *testing.T) {
	sel := Select(Catalog(Deps{}), Destructive, []string{"supervisor", "window"})
	var got []string
	for _, e := range sel {
		got = append(got, e.Tool.Name)
	}
	if want := []string{"diagnose", "server_health", "get_window_info", "kill_window", "move_window", "rename_window", "resize_window",
		"select_layout"}; !slices.Equal(got, want) {
		t.Errorf("Select(supervisor, window) = %v, want %v", got, want)
	}
}

// TestToolsLiveInTheirGroupFile checks the layout of this package: the
// constructor of a tool of group G is declared in G.go or G_<part>.go, so
// that no file holds a tool of another group.
func TestToolsLiveInTheirGroupFile(t *testing.T) {
	decls, err := funcFiles(".")
	if err != nil {
		t.Fatal(err)
	}
	if got := misfiledTools(Groups(), decls); len(got) > 0 {
		t.Errorf("tools declared outside their group's file (G.go or G_<part>.go):\n%s", strings.Join(got, "\n"))
	}
}

// TestMisfiledTools checks the check: a tool in another group's file, or
// in a file named for no group, is reported.
func TestMisfiledTools(t *testing.T) {
	groups := []Group{
		{ID: "session", Tools: []Spec{{Readonly, ListWindows}}},
		{ID: "pane", Tools: []Spec{{Readonly, ListPanes}, {Readonly, CapturePane}}},
	}
	tests := []struct {
		name  string
		decls map[string]string
		want  []string
	}{
		{"in place", map[string]string{"ListWindows": "session.go", "ListPanes": "pane.go", "CapturePane": "pane_capture.go"}, nil},
		{"pane tool in the session file", map[string]string{"ListWindows": "session.go", "ListPanes": "session.go", "CapturePane": "pane_capture.go"},
			[]string{"ListPanes (group pane) is in session.go"}},
		{"prefix without underscore", map[string]string{"ListWindows": "session.go", "ListPanes": "pane.go", "CapturePane": "panecapture.go"},
			[]string{"CapturePane (group pane) is in panecapture.go"}},
		{"not declared", map[string]string{"ListWindows": "session.go", "ListPanes": "pane.go"},
			[]string{"CapturePane (group pane) is in no file"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := misfiledTools(groups, tt.decls); !slices.Equal(got, tt.want) {
				t.Errorf("misfiledTools() = %q, want %q", got, tt.want)
			}
		})
	}
}

// funcFiles maps each top-level function (not method) of the package in
// dir to the file that declares it. Test files are left out.
func funcFiles(dir string) (map[string]string, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	fset := token.NewFileSet()
	out := map[string]string{}
	for _, path := range paths {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("parse %s: %w", path, err)
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil {
				out[fn.Name.Name] = filepath.Base(path)
			}
		}
	}
	return out, nil
}

// misfiledTools returns, sorted, the tools of groups whose constructor is
// not declared (decls: function name to file) in a file named for the
// tool's group.
func misfiledTools(groups []Group, decls map[string]string) []string {
	var out []string
	for _, g := range groups {
		for _, s := range g.Tools {
			full := runtime.FuncForPC(reflect.ValueOf(s.New).Pointer()).Name()
			name := full[strings.LastIndex(full, ".")+1:]
			file, ok := decls[name]
			switch {
			case !ok:
				out = append(out, fmt.Sprintf("%s (group %s) is in no file", name, g.ID))
			case file != g.ID+".go" && !strings.HasPrefix(file, g.ID+"_"):
				out = append(out, fmt.Sprintf("%s (group %s) is in %s", name, g.ID, file))
			}
		}
	}
	sort.Strings(out)
	return out
}

// isTrue reports whether an annotation is stated as true.
func isTrue(b *bool) bool { return b != nil && *b }
