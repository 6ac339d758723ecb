package tools

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

type optionResult struct {
	Option string `json:"option"`
	Value  any    `json:"value"`
}

func TestShowOption(t *testing.T) {
	e := newEnv(t, Readonly)
	e.tmux("set-option", "-g", "@greeting", "hello world")
	e.tmux("set-option", "-t", "main", "@mine", "main's")
	e.tmux("set-option", "-gw", "@win", "from windows")
	tests := []struct {
		name string
		args map[string]any
		want any
	}{
		{"session global", map[string]any{"option": "base-index", "scope": "session", "global_": true}, float64(0)},
		{"number", map[string]any{"option": "history-limit"}, float64(2000)},
		{"on", map[string]any{"option": "status"}, true},
		{"off", map[string]any{"option": "remain-on-exit", "scope": "window"}, false},
		{"string", map[string]any{"option": "@greeting"}, "hello world"},
		{"inherited by a pane", map[string]any{"option": "@win", "scope": "pane"}, "from windows"},
		{"session target", map[string]any{"option": "@mine", "scope": "session", "target": "main"}, "main's"},
		// Without a target the first session is meant, never tmux-mcp's
		// hidden session (tmux's "current" one on the control connection).
		{"session default", map[string]any{"option": "@mine", "scope": "session"}, "main's"},
		{"unset user option", map[string]any{"option": "@nope"}, nil},
		// buffer-limit: a server option whose default (50) is the same in every version (escape-time went from 500 to 10 in 3.5).
		{"server", map[string]any{"option": "buffer-limit", "scope": "server"}, float64(50)},
		{"array", map[string]any{"option": "command-alias", "scope": "server"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got optionResult
			e.ok("show_option", tt.args, &got)
			if got.Option != tt.args["option"] {
				t.Errorf("option = %q, want %q", got.Option, tt.args["option"])
			}
			if tt.name == "array" {
				if list, ok := got.Value.([]any); !ok || len(list) < 2 {
					t.Errorf("value = %#v, want a list", got.Value)
				}
				return
			}
			if !reflect.DeepEqual(got.Value, tt.want) {
				t.Errorf("value = %#v, want %#v", got.Value, tt.want)
			}
		})
	}
	e.fails("show_option", map[string]any{"option": "base-index", "scope": "global"}, "argument scope: want one of server, session, window, pane")
	e.fails("show_option", map[string]any{"option": "base-index", "target": "main"}, "scope is required when target is specified")
	e.fails("show_option", map[string]any{"option": "base index"}, "argument option: want an option name")
	e.fails("show_option", map[string]any{"option": "nope-opt"}, "invalid option: nope-opt")
	e.fails("show_option", map[string]any{"option": "status", "scope": "window", "target": "main"}, "argument target: want a window ID")
	e.fails("show_option", map[string]any{"option": "status", "scope": "session", "target": "nope"}, "Object not found: session_name=nope")
}

func TestSetOption(t *testing.T) {
	e := newEnv(t, Mutating)
	pane := e.firstPane()
	win := e.tmux("display-message", "-p", "-t", pane, "#{window_id}")
	tests := []struct {
		args  map[string]any
		check []string // tmux show-options arguments
		want  string
	}{
		{map[string]any{"option": "display-time", "value": "3000", "scope": "server", "global_": true},
			[]string{"-g", "display-time"}, "3000"},
		{map[string]any{"option": "@x", "value": "-1"}, []string{"-t", "main", "@x"}, "-1"},
		{map[string]any{"option": "remain-on-exit", "value": "on", "scope": "window", "target": win},
			[]string{"-w", "-t", win, "remain-on-exit"}, "on"},
		{map[string]any{"option": "@p", "value": "v", "scope": "pane", "target": pane}, []string{"-p", "-t", pane, "@p"}, "v"},
		// No target: the first session, not the hidden one.
		{map[string]any{"option": "status", "value": "off", "scope": "session"}, []string{"-t", "main", "status"}, "off"},
		// Safe values of guarded options pass.
		{map[string]any{"option": "exit-unattached", "value": "off", "scope": "server"}, []string{"-s", "exit-unattached"}, "off"},
		{map[string]any{"option": "history-limit", "value": "50000", "global_": true}, []string{"-g", "history-limit"}, "50000"},
	}
	for _, tt := range tests {
		var got map[string]string
		e.ok("set_option", tt.args, &got)
		if got["status"] != "set" || got["option"] != tt.args["option"] || got["value"] != tt.args["value"] {
			t.Errorf("set_option(%v) = %v, want status set", tt.args, got)
		}
		if v := e.tmux(append([]string{"show-options", "-v"}, tt.check...)...); v != tt.want {
			t.Errorf("after set_option(%v): show-options %v = %q, want %q", tt.args, tt.check, v, tt.want)
		}
	}
	e.fails("set_option", map[string]any{"option": "status"}, "argument value: required")
	e.fails("set_option", map[string]any{"option": "status", "value": "x", "target": "main"}, "scope is required")
	e.fails("set_option", map[string]any{"option": "nope-opt", "value": "1", "global_": true}, "invalid option")
}

// TestSetOptionRefusesServerExit checks that below the destructive tier
// set_option refuses values that end the server or exhaust its memory,
// under any prefix tmux would accept, and changes nothing; at the
// destructive tier they pass.
func TestSetOptionRefusesServerExit(t *testing.T) {
	e := newEnv(t, Mutating)
	state := func() string {
		return e.tmux("show-options", "-s") + e.tmux("show-options", "-g") + e.tmux("show-options", "-t", "main")
	}
	before := state()
	refusals := []struct{ option, value, want string }{
		{"exit-empty", "on", "Refusing to set exit-empty to \"on\": the tmux server would exit when its last session closes."},
		{"exit-empty", "ON", "Refusing to set exit-empty"},
		{"exit-empty", "", "Refusing to set exit-empty"}, // an empty value toggles a flag
		{"exit-e", "1", "Refusing to set exit-empty"},
		{"exit-unattached", "yes", "Refusing to set exit-unattached to \"yes\": the tmux server would exit at once"},
		{"destroy-unattached", "on", "Refusing to set destroy-unattached"},
		{"destroy-unattached", "keep-last", "Refusing to set destroy-unattached"},
		{"history-limit", "1000000", "Refusing to set history-limit to \"1000000\": scrollback beyond 100000 lines"},
		{"hist", "99999999", "Refusing to set history-limit"},
	}
	for _, r := range refusals {
		for _, scope := range []string{"", "server", "session"} {
			args := map[string]any{"option": r.option, "value": r.value, "global_": true}
			if scope != "" {
				args["scope"] = scope
			}
			e.fails("set_option", args, r.want, "[refused]", "--safety destructive")
		}
	}
	if after := state(); after != before {
		t.Errorf("refused set_option calls changed options:\ngot:\n%s\nwant:\n%s", after, before)
	}
	if pid := e.tm.PID(); pid == 0 {
		t.Fatal("the server is gone after refused set_option calls")
	}

	d := newEnvOn(t, e, Destructive, Caller{})
	d.ok("set_option", map[string]any{"option": "history-limit", "value": "1000000", "global_": true}, nil)
	if got := e.tmux("show-options", "-gv", "history-limit"); got != "1000000" {
		t.Errorf("at the destructive tier: history-limit = %q, want 1000000", got)
	}
	// What the refusal protects: an unattached session goes at once.
	e.tmux("new-session", "-d", "-s", "doomed")
	d.ok("set_option", map[string]any{"option": "destroy-unattached", "value": "on", "scope": "session", "target": "doomed"}, nil)
	tmuxtest.WaitFor(t, 5*time.Second, "session doomed to be destroyed", func() bool {
		_, err := e.tm.Tmux("has-session", "-t", "=doomed")
		return err != nil
	})
}

type envResult struct {
	Variables map[string]any `json:"variables"`
}

type hooksResult struct {
	Entries []HookEntry `json:"entries"`
}

// TestSetOptionRefusesCommands: below the destructive tier set_option
// refuses hooks, the options that decide what runs, and values that run
// format jobs, under any prefix tmux accepts, and changes nothing; the
// issue's attack (a hook that kills the server on select_window) leaves
// the server up. At the destructive tier they pass, except on the
// caller's own server.
func TestSetOptionRefusesCommands(t *testing.T) {
	e := newEnv(t, Mutating)
	trap := tmuxtest.NewTrap(t, e.tm)
	state := func() string {
		return e.tmux("show-options", "-s") + e.tmux("show-options", "-g") + e.tmux("show-hooks", "-g") + e.tmux("show-hooks", "-gw")
	}
	before := state()
	refusals := []struct{ option, value string }{
		{"after-select-window", "kill-server"},
		{"after-select-w", "kill-server"},
		{"after-new-window", "run-shell 'touch /tmp/x'"},
		{"pane-exited", "kill-server"},
		{"session-created", "kill-server"},
		{"client-attached", "kill-server"},
		{"alert-bell", "kill-server"},
		{"window-renamed", "kill-server"},
		{"default-command", "kill-server"},
		{"default-shell", "/bin/true"},
		{"command-alias[100]", "select-window=kill-server"},
		{"status-left", trap.Job()},
		{"@mine", trap.Job()},
		{"status-right", "#{E:@mine}"},
	}
	for _, r := range refusals {
		e.fails("set_option", map[string]any{"option": r.option, "value": r.value, "global_": true}, "Refusing to set", "[refused]", "--safety destructive")
	}
	e.ok("set_option", map[string]any{"option": "@mine", "value": "kill-server", "global_": true}, nil)
	e.ok("set_option", map[string]any{"option": "status-left", "value": "#S #{pane_title}", "global_": true}, nil)
	e.tmux("set-option", "-gu", "@mine")
	e.tmux("set-option", "-gu", "status-left")
	if after := state(); after != before {
		t.Errorf("refused set_option calls changed options:\ngot:\n%s\nwant:\n%s", after, before)
	}
	e.ok("create_window", map[string]any{"session_name": "main"}, nil)
	var w WindowInfo
	e.ok("select_window", map[string]any{"session_name": "main", "direction": "next"}, &w)
	if e.tm.PID() == 0 {
		t.Fatal("the server died after select_window")
	}

	// The destructive tier sets them, but not on the caller's server.
	self := newEnvOn(t, e, Destructive, Caller{SocketPath: e.tm.Socket, Pane: paneID(e.firstPane())})
	self.fails("set_option", map[string]any{"option": "after-select-window", "value": "kill-server", "global_": true},
		"Refusing to set after-select-window", "This MCP server runs inside this tmux server", "[refused]")
	self.fails("set_option", map[string]any{"option": "exit-unattached", "value": "on", "global_": true},
		"Refusing to set exit-unattached", "This MCP server runs inside this tmux server")
	d := newEnvOn(t, e, Destructive, Caller{})
	d.ok("set_option", map[string]any{"option": "after-new-window", "value": "set-option -g @hooked yes", "global_": true}, nil)
	e.ok("create_window", map[string]any{"session_name": "main"}, nil)
	if got := e.tmux("show-options", "-gv", "@hooked"); got != "yes" {
		t.Errorf("hook set at the destructive tier: @hooked = %q, want yes", got)
	}
	if sprung := trap.Sprung(); len(sprung) > 0 {
		t.Errorf("format jobs ran: %v", sprung)
	}
}

// TestEveryHookIsACommandOption: every hook the tmux under test lists is
// refused below the destructive tier, so a hook added by a new version
// fails this test until commandOptions has it.
func TestEveryHookIsACommandOption(t *testing.T) {
	tm := tmuxtest.New(t)
	tm.Start("main")
	out := tm.MustTmux("show-hooks", "-g") + "\n" + tm.MustTmux("show-hooks", "-gw")
	n := 0
	for _, line := range strings.Split(out, "\n") {
		name, _, _ := strings.Cut(strings.TrimSpace(line), " ")
		name, _, _ = strings.Cut(name, "[")
		if name == "" {
			continue
		}
		n++
		if commandRisk(name, "x") == "" {
			t.Errorf("hook %s is not in commandOptions", name)
		}
	}
	if n < 30 {
		t.Errorf("show-hooks listed %d hooks, want the whole table:\n%s", n, out)
	}
}
