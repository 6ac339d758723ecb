package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// TestAttacksThroughTheBinary replays issue 17's attacks on the built
// binary, each in a subtest of its own: format jobs in names, titles and
// start directories given to the tools, a hook that kills the caller's
// server, environment values at the readonly tier, a NUL byte, keys typed
// into tmux-mcp's own pane, and untrusted text replayed by the automatic
// restore after a crash.
func TestAttacksThroughTheBinary(t *testing.T) {
	bin := buildBinary(t)
	t.Setenv("TMCP_E2E_TOKEN", "s3cret-token") // in the environment of every tmux server the test starts
	tm := tmuxtest.New(t)
	tm.Start("main")
	trap := tmuxtest.NewTrap(t, tm)
	root := t.TempDir()
	dir := filepath.Join(root, trap.Job())
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	escTitle := "e" + trap.Job()
	titleFile := filepath.Join(root, "title")
	if err := os.WriteFile(titleFile, []byte("\x1b]2;"+escTitle+"\x1b\\"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, _, stderr := startStdio(t, bin, binaryEnv(tm.Socket, "SHELL=/bin/sh"))
	t.Cleanup(func() { c.Close() })

	t.Run("names and directories", func(t *testing.T) {
		var sess struct {
			ID   string `json:"session_id"`
			Name string `json:"session_name"`
		}
		name := trap.Job()
		structuredOf(t, callTool(t, c, "create_session", map[string]any{"session_name": name, "window_name": trap.Job(), "start_directory": dir}), &sess)
		if sess.Name != name {
			t.Errorf("create_session answered %q, want %q", sess.Name, name)
		}
		structuredOf(t, callTool(t, c, "rename_session", map[string]any{"session_id": sess.ID, "new_name": name + "2"}), &sess)
		if sess.Name != name+"2" {
			t.Errorf("rename_session answered %q, want %q", sess.Name, name+"2")
		}
		var win struct {
			ID   string `json:"window_id"`
			Name string `json:"window_name"`
		}
		wname := "w" + trap.Job()
		structuredOf(t, callTool(t, c, "create_window", map[string]any{"session_id": sess.ID, "window_name": wname, "start_directory": dir}), &win)
		if win.Name != wname {
			t.Errorf("create_window answered %q, want %q", win.Name, wname)
		}
		structuredOf(t, callTool(t, c, "rename_window", map[string]any{"window_id": win.ID, "new_name": wname + "2"}), &win)
		if win.Name != wname+"2" {
			t.Errorf("rename_window answered %q, want %q", win.Name, wname+"2")
		}
		var pane struct {
			ID    string `json:"pane_id"`
			Title string `json:"pane_title"`
		}
		structuredOf(t, callTool(t, c, "split_window", map[string]any{"window_id": win.ID, "start_directory": dir}), &pane)
		callTool(t, c, "respawn_pane", map[string]any{"pane_id": pane.ID, "start_directory": dir})
		title := "t" + trap.Job()
		structuredOf(t, callTool(t, c, "set_pane_title", map[string]any{"pane_id": pane.ID, "title": title}), &pane)
		if pane.Title != title {
			t.Errorf("set_pane_title answered %q, want %q", pane.Title, title)
		}
		if sprung := trap.Sprung(); len(sprung) > 0 {
			t.Errorf("format jobs ran: %v", sprung)
		}
	})

	t.Run("hook", func(t *testing.T) {
		toolFails(t, c, "set_option", map[string]any{"option": "after-select-window", "value": "kill-server", "global_": true},
			"Refusing to set after-select-window", "[refused]")
		toolFails(t, c, "set_option", map[string]any{"option": "default-command", "value": "kill-server", "global_": true},
			"Refusing to set default-command", "[refused]")
		callTool(t, c, "create_window", map[string]any{"session_name": "main"})
		callTool(t, c, "select_window", map[string]any{"session_name": "main", "direction": "next"})
		if tm.PID() == 0 {
			t.Fatal("the server died after select_window")
		}
	})

	t.Run("NUL", func(t *testing.T) {
		toolFails(t, c, "send_keys", map[string]any{"session_name": "main", "keys": "a\x00b"}, "NUL", "[argument]")
	})

	t.Run("readonly environment", func(t *testing.T) {
		ro, _, _ := startStdio(t, bin, binaryEnv(tm.Socket, "TMUX_MCP_SAFETY=readonly"))
		t.Cleanup(func() { ro.Close() })
		env := callTool(t, ro, "show_environment", nil)
		if text := env.Content[0].(mcp.TextContent).Text; strings.Contains(text, "s3cret-token") || !strings.Contains(text, "TMCP_E2E_TOKEN") {
			t.Errorf("show_environment at the readonly tier = %s, want TMCP_E2E_TOKEN without its value", text)
		}
	})

	t.Run("own pane", func(t *testing.T) {
		target := tm.MustTmux("display-message", "-p", "-t", "=main:", "#{pane_id}")
		self, _, _ := startStdio(t, bin, binaryEnv(tm.Socket, "TMUX="+tm.Socket+","+strconv.Itoa(tm.PID())+",0", "TMUX_PANE="+target))
		t.Cleanup(func() { self.Close() })
		toolFails(t, self, "send_keys", map[string]any{"pane_id": target, "keys": "y"}, "Refusing to type into the pane running this MCP server")
		toolFails(t, self, "paste_text", map[string]any{"pane_id": target, "text": "y"}, "Refusing to type into the pane running this MCP server")
	})

	t.Run("restore", func(t *testing.T) {
		// Made behind the binary's back, so that this attack needs no
		// tool: a session, a window and a directory named with jobs, and
		// a pane whose program sets its title to one.
		name, wname := "r"+trap.Job(), "w"+trap.Job()
		lit := tmux.Literal
		tm.MustTmux("new-session", "-d", "-s", lit(name), "-n", lit(wname), "-c", lit(dir), "cat "+titleFile+"; exec cat")
		pane := tm.MustTmux("display-message", "-p", "-t", "="+name+":", "#{pane_id}")
		vars := map[string]string{"TMUX_MCP_JOURNAL": filepath.Join(filepath.Dir(tm.Socket), "journal.db"),
			"TMUX_MCP_SOCKET_PATH": tm.Socket, "TMUX_MCP_TMUX_CONFIG": "/dev/null"}
		// The title tmux keeps: 3.7 writes the "#(" of a title a program
		// sets as "_(".
		title := escTitle
		if serverCaps(t, tm).ProgramJobsDefused {
			title = strings.Replace(escTitle, "#(", "_(", 1)
		}
		tmuxtest.WaitFor(t, 15*time.Second, "a snapshot with the pane's own title", func() bool {
			callTool(t, c, "select_pane", map[string]any{"pane_id": pane}) // a structural change: a snapshot soon
			_, out, _ := runCLI(t, vars, "journal", "show")
			return strings.Contains(out, fmt.Sprintf("%q", title)) && strings.Contains(out, fmt.Sprintf("%q", wname))
		})
		pid := tm.PID()
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		tmuxtest.WaitFor(t, 20*time.Second, "the session back in a new server", func() bool {
			res, err := callToolErr(c, "list_sessions", nil)
			return err == nil && !res.IsError && contains(sessionNames(t, res), name) && tm.PID() != pid && tm.PID() != 0
		})
		tm.PanePath("=" + name + ":") // its directory is known once its command runs
		panes := tm.MustTmux("list-panes", "-t", "="+name+":", "-F", "#{window_name}|#{pane_title}|#{pane_current_path}")
		if want := wname + "|" + title + "|" + dir; panes != want {
			t.Errorf("restored pane = %q, want %q", panes, want)
		}
		if sprung := trap.Sprung(); len(sprung) > 0 {
			t.Errorf("format jobs ran: %v\nstderr:\n%s", sprung, stderr)
		}
	})
}
