package tools

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
	"github.com/tmux-mcp/tmux-mcp/tooldef"
)

// injections returns texts that would run a job, expand a format, end a
// command or read as a flag if they reached tmux as they are.
func injections(trap *tmuxtest.Trap) []string {
	return []string{
		trap.Job(),
		"n" + trap.Job() + "x",
		"#{E:@trap}", // @trap holds a job
		"#{session_name}#S#{pane_id}",
		"x ; display-message -p '" + trap.Job() + "' ; y", // a second command if ";" ended the first
		"x;", // ends a command on a tmux client's command line
		"-d",
	}
}

// injectionBaseline gives every required parameter of every tool a valid
// value, so that the parameter under test reaches tmux. A new tool with a
// new required parameter needs an entry here (the test says so).
func injectionBaseline(pane, pane2, win string) map[string]any {
	return map[string]any{
		"pane_id": pane, "window_id": win, "source_pane_id": pane, "target_pane_id": pane2,
		"new_name": "renamed", "keys": "x", "text": "x", "content": "x", "command": "true",
		"format_string": "#{pane_id}", "option": "@tmcp", "value": "v", "name": "TMCP_VAR",
		"hook_name": "pane-exited", "buffer_name": "tmcp", "channel": "tmcp", "pattern": "x",
		"layout": "tiled", "title": "t", "corner": "top-left", "job_id": "j0123456789", "answer": "yes",
		"operations": []any{map[string]any{"tool": "list_sessions", "keys": "x", "pane_id": pane}},
	}
}

// echoKey is the result field that must come back as param was given,
// if the call succeeds and the result has it.
func echoKey(tool, param string) string {
	switch {
	case strings.HasPrefix(tool, "rename_") && strings.HasSuffix(param, "_name") && param != "new_name":
		return "" // the target
	case param == "new_name":
		return strings.TrimPrefix(tool, "rename_") + "_name"
	case param == "title":
		return "pane_title"
	}
	return param
}

// TestNoInjectionThroughAnyTool sends every injection in every string
// parameter of every tool (from the input schemas, so a new tool is
// covered without editing this test), at the destructive tier, and fails
// if a format job runs, the test's server dies, or a name, title or value
// comes back other than as sent. TMUX_MCP_TEST_EXEC_ONLY=1 runs it over
// the exec transport.
func TestNoInjectionThroughAnyTool(t *testing.T) {
	// Servers that a socket_name starts live in a directory of the test's,
	// and are killed after the supervisor has closed.
	tmpdir, err := os.MkdirTemp("", "tmi")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMUX_TMPDIR", tmpdir)
	t.Cleanup(func() { killServersIn(t, tmpdir) })

	tm := tmuxtest.New(t)
	work := t.TempDir()
	tm.MustTmux("new-session", "-d", "-s", "inj", "-c", work, "-x", "120", "-y", "40", "exec cat")
	tm.MustTmux("set-option", "-g", "default-command", "exec cat")
	trap := tmuxtest.NewTrap(t, tm)
	tm.MustTmux("set-option", "-g", "@trap", trap.Job())
	e := newEnvOver(t, tm, testConfig(tm), Destructive)
	pane := e.tmux("display-message", "-p", "-t", "inj", "#{pane_id}")
	win := e.tmux("display-message", "-p", "-t", "inj", "#{window_id}")
	pane2 := e.split(pane, "-c", work)
	base := injectionBaseline(pane, pane2, win)
	variants := injections(trap)

	calls := 0
	for _, entry := range Catalog(e.d) {
		tool := entry.Tool
		props, required := tooldef.InputSchema(tool)
		for _, param := range slices.Sorted(maps.Keys(props)) {
			schema, _ := props[param].(map[string]any)
			if _, enum := schema["enum"]; enum || !takesString(schema) && !takesStrings(schema) {
				continue
			}
			for _, v := range variants {
				args := map[string]any{}
				for _, r := range required {
					b, ok := base[r]
					if !ok {
						t.Fatalf("%s: required parameter %s has no baseline value in injectionBaseline", tool.Name, r)
					}
					args[r] = b
				}
				if _, ok := props["timeout"]; ok {
					args["timeout"] = 0.2
				}
				if takesString(schema) {
					args[param] = v
				} else {
					args[param] = []any{v}
				}
				res, err := e.callErr(tool.Name, args)
				calls++
				if err != nil {
					if strings.Contains(err.Error(), "-32603") || strings.Contains(err.Error(), "internal") {
						t.Errorf("%s(%s=%q): internal error %v", tool.Name, param, v, err)
					}
					continue
				}
				if res.IsError || !takesString(schema) {
					continue
				}
				var out map[string]any
				if json.Unmarshal(structuredJSON(t, res), &out) != nil {
					continue
				}
				if got, ok := out[echoKey(tool.Name, param)].(string); ok && echoKey(tool.Name, param) != "" && got != v {
					t.Errorf("%s(%s=%q): %s came back %q", tool.Name, param, v, echoKey(tool.Name, param), got)
				}
			}
		}
	}
	t.Logf("%d calls", calls)
	if sprung := trap.Sprung(); len(sprung) > 0 {
		t.Errorf("format jobs ran: %v", sprung)
	}
	if tm.PID() == 0 {
		t.Errorf("the test's tmux server died")
	}
}

func takesString(schema map[string]any) bool {
	return slices.Contains(tooldef.SchemaTypes(schema), "string")
}

func takesStrings(schema map[string]any) bool {
	items, _ := schema["items"].(map[string]any)
	return slices.Contains(tooldef.SchemaTypes(schema), "array") && items != nil && takesString(items)
}

// killServersIn kills the tmux servers whose sockets are under dir
// (TMUX_TMPDIR of a test): servers the test started.
func killServersIn(t *testing.T, dir string) {
	t.Helper()
	socks, _ := filepath.Glob(filepath.Join(dir, "tmux-*", "*"))
	for _, sock := range socks {
		// Not t.Context(): it is cancelled before cleanups run, and a
		// kill-server that never ran left the servers behind.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		e := &tmux.Exec{Socket: tmux.Socket{Path: sock}}
		e.Run(ctx, "kill-server") //nolint:errcheck // it may be gone
		cancel()
	}
	os.RemoveAll(dir)
}

// TestNamesTmuxWouldRewriteAreRefused: a name tmux would store otherwise
// is an argument error, so that what a call answers is the name asked.
func TestNamesTmuxWouldRewriteAreRefused(t *testing.T) {
	e := newEnv(t, Mutating)
	for _, name := range []string{`a\b`, "$HOME", "${x}", "tab\there"} {
		e.fails("create_session", map[string]any{"session_name": name}, "Bad session name: ", "[argument]")
		e.fails("create_session", map[string]any{"window_name": name}, "argument window_name: ", "[argument]")
		e.fails("create_window", map[string]any{"window_name": name}, "argument window_name: ", "[argument]")
		e.fails("rename_session", map[string]any{"new_name": name}, "Bad session name: ", "[argument]")
		e.fails("rename_window", map[string]any{"new_name": name}, "argument new_name: ", "[argument]")
	}
	for _, name := range []string{"-d", "$ 5", "a$", "#{x}", "é 🙂"} {
		var s SessionInfo
		e.ok("create_session", map[string]any{"session_name": name}, &s)
		if s.SessionName != name {
			t.Errorf("create_session(%q) answered %q", name, s.SessionName)
		}
	}
}

// TestNULIsAnArgumentError: a NUL byte cannot reach tmux; the call fails
// as a tool error result of class argument, not as an internal error.
func TestNULIsAnArgumentError(t *testing.T) {
	e := newEnv(t, Mutating)
	pane := e.firstPane()
	e.fails("send_keys", map[string]any{"pane_id": pane, "keys": "a\x00b"}, "NUL", "[argument]")
	e.fails("set_pane_title", map[string]any{"pane_id": pane, "title": "a\x00b"}, "NUL", "[argument]")
	e.fails("create_window", map[string]any{"start_directory": "/tmp/a\x00b"}, "NUL", "[argument]")
}
