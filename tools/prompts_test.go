package tools

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

func getPrompt(c *client.Client, name string, args map[string]string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var req mcp.GetPromptRequest
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.GetPrompt(ctx, req)
	if err != nil {
		return "", err
	}
	if len(res.Messages) != 1 || res.Messages[0].Role != mcp.RoleUser {
		return "", nil
	}
	return res.Messages[0].Content.(mcp.TextContent).Text, nil
}

func TestPromptsListedAndRendered(t *testing.T) {
	e := newEnv(t, Readonly)
	res, err := e.c.ListPrompts(context.Background(), mcp.ListPromptsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	args := map[string][]string{}
	var names []string
	for _, p := range res.Prompts {
		names = append(names, p.Name)
		for _, a := range p.Arguments {
			args[p.Name] = append(args[p.Name], a.Name)
		}
		if p.Description == "" {
			t.Errorf("prompt %s has no description", p.Name)
		}
	}
	slices.Sort(names)
	if want := []string{"build_dev_workspace", "diagnose_failing_pane", "interrupt_gracefully", "recover_after_crash", "run_and_wait"}; !slices.Equal(names, want) {
		t.Errorf("prompts = %v, want %v", names, want)
	}
	for name, want := range map[string][]string{ // libtmux-mcp's arguments, in its order
		"run_and_wait":          {"command", "pane_id", "timeout"},
		"diagnose_failing_pane": {"pane_id"},
		"build_dev_workspace":   {"session_name", "log_command"},
		"interrupt_gracefully":  {"pane_id"},
		"recover_after_crash":   {"socket_name"},
	} {
		if !slices.Equal(args[name], want) {
			t.Errorf("%s arguments = %v, want %v", name, args[name], want)
		}
	}

	tests := []struct {
		name string
		args map[string]string
		want []string
	}{
		{"run_and_wait", map[string]string{"command": `make test "all"`, "pane_id": "%3"},
			[]string{`run_command(pane_id="%3", command="make test \"all\"", timeout=60, max_lines=100)`, "exit_status", "tmux://panes/%253/content"}},
		{"run_and_wait", map[string]string{"command": "a\nb", "pane_id": "%3", "timeout": "5.5"},
			[]string{"suppress_history=false", "timeout=5.5", "may record it"}},
		{"diagnose_failing_pane", map[string]string{"pane_id": "%7"}, []string{`snapshot_pane(pane_id="%7")`, "capture_since", "Do not run it yet"}},
		{"build_dev_workspace", map[string]string{"session_name": "dev"},
			[]string{`create_session(session_name="dev")`, `direction="below"`, `direction="right"`, `keys="watch -n 1 date"`, "wait_for_text"}},
		{"build_dev_workspace", map[string]string{"session_name": "dev", "log_command": "tail -f x.log"}, []string{`keys="tail -f x.log"`}},
		{"interrupt_gracefully", map[string]string{"pane_id": "%2"},
			[]string{`keys="C-c", literal=false, enter=false`, "wait_for_text", `Do not put "^C" in stop`, "SIGQUIT", "pane_current_command"}},
		{"recover_after_crash", nil, []string{"tmux-mcp's default tmux server", "server_health()", "keeps no journal", "journal_events and restore_sessions", "list_sessions and list_panes,"}},
		{"recover_after_crash", map[string]string{"socket_name": "work"}, []string{`socket "work"`, `server_health(socket_name="work")`}},
	}
	for _, tt := range tests {
		got, err := getPrompt(e.c, tt.name, tt.args)
		if err != nil {
			t.Errorf("%s(%v): %v", tt.name, tt.args, err)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s(%v) does not contain %q:\n%s", tt.name, tt.args, w, got)
			}
		}
	}
	for _, tt := range []struct {
		name string
		args map[string]string
		want string
	}{
		{"run_and_wait", map[string]string{"command": "ls", "pane_id": "main"}, "argument pane_id: want a pane ID like %1"},
		{"run_and_wait", map[string]string{"command": "", "pane_id": "%1"}, "argument command"},
		{"run_and_wait", map[string]string{"command": "ls", "pane_id": "%1", "timeout": "-1"}, "argument timeout"},
		{"diagnose_failing_pane", nil, "argument pane_id"},
		{"build_dev_workspace", nil, "argument session_name"},
		{"recover_after_crash", map[string]string{"socket_name": "../x"}, "argument socket_name"},
		{"nope", nil, "not found"},
	} {
		if _, err := getPrompt(e.c, tt.name, tt.args); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s(%v): got %v, want an error containing %q", tt.name, tt.args, err, tt.want)
		}
	}
}
