package tools

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestHooks(t *testing.T) {
	e := newEnv(t, Readonly)
	var h hooksResult
	e.ok("show_hooks", nil, &h)
	if len(h.Entries) != 0 {
		t.Errorf("show_hooks on a fresh server = %+v, want none", h.Entries)
	}
	e.tmux("set-hook", "-g", "pane-exited", "display-message MCP_HOOK_TEST")
	e.tmux("set-hook", "-ag", "pane-exited", "display-message SECOND")
	e.tmux("set-hook", "-g", "pane-focus-in", "display-message FOCUS")
	e.ok("show_hook", map[string]any{"hook_name": "pane-exited"}, &h)
	b, _ := json.Marshal(h.Entries)
	if want := `[{"hook_name":"pane-exited","index":0,"command":"display-message MCP_HOOK_TEST"},` +
		`{"hook_name":"pane-exited","index":1,"command":"display-message SECOND"}]`; string(b) != want {
		t.Errorf("show_hook(pane-exited) = %s, want %s", b, want)
	}
	for _, args := range []map[string]any{nil, {"scope": "server"}} {
		e.ok("show_hooks", args, &h)
		var names []string
		for _, x := range h.Entries {
			names = append(names, x.HookName)
		}
		if got := strings.Join(names, ","); got != "pane-exited,pane-exited,pane-focus-in" {
			t.Errorf("show_hooks(%v) = %s, want pane-exited twice and pane-focus-in", args, got)
		}
	}
	e.ok("show_hook", map[string]any{"hook_name": "pane-focus-in", "scope": "server"}, &h)
	if len(h.Entries) != 1 || h.Entries[0].Command != "display-message FOCUS" {
		t.Errorf("show_hook(pane-focus-in, server) = %+v", h.Entries)
	}
	e.tmux("set-hook", "-t", "main", "after-new-window", "display-message SESSION")
	e.ok("show_hooks", map[string]any{"scope": "session", "target": "main"}, &h)
	if len(h.Entries) != 1 || h.Entries[0].HookName != "after-new-window" {
		t.Errorf("show_hooks(session main) = %+v, want after-new-window", h.Entries)
	}
	pane := e.firstPane()
	e.tmux("set-hook", "-p", "-t", pane, "pane-exited", "display-message PANE")
	e.ok("show_hooks", map[string]any{"scope": "pane", "target": pane}, &h)
	if len(h.Entries) != 1 || h.Entries[0].Command != "display-message PANE" {
		t.Errorf("show_hooks(pane %s) = %+v, want its pane-exited", pane, h.Entries)
	}
	e.tmux("set-hook", "-gu", "pane-exited")
	e.ok("show_hook", map[string]any{"hook_name": "pane-exited"}, &h)
	if len(h.Entries) != 0 {
		t.Errorf("show_hook(unset pane-exited) = %+v, want none", h.Entries)
	}
	e.fails("show_hook", map[string]any{"hook_name": "nope-hook"}, "invalid option: nope-hook")
	e.fails("show_hook", map[string]any{"hook_name": "a b"}, "argument hook_name")
	e.fails("show_hooks", map[string]any{"scope": "global"}, "argument scope: want one of")
	e.fails("show_hooks", map[string]any{"target": "main"}, "argument target: not used with scope server")
	e.fails("show_hooks", map[string]any{"scope": "session", "target": "nope"}, "Object not found: session_name=nope")
	for _, x := range Catalog(Deps{}) {
		if strings.Contains(x.Tool.Name, "hook") && (x.Tier != Readonly) {
			t.Errorf("%s: tier %s, want hooks read-only", x.Tool.Name, x.Tier)
		}
	}
}
