package tools

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/tmux-mcp/tmux-mcp/mcpserver"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
	"github.com/tmux-mcp/tmux-mcp/tooldef"
)

// TestValidateOutput checks that Options.ValidateOutput, which the tool
// tests rely on to check every result against its tool's output schema,
// turns a result that does not conform into an error result, and that
// without it the result goes out as the handler made it.
func TestValidateOutput(t *testing.T) {
	e := newEnv(t, Readonly)
	for _, validate := range []bool{true, false} {
		srv, err := New(Deps{Sup: e.sup}, Options{Settings: mcpserver.Settings{ValidateOutput: validate}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { srv.Close() })
		bad := tooldef.New("bad_result", "returns a result its schema refuses", tooldef.Read, tooldef.Object(map[string]any{"result": tInt}))
		srv.MCP.AddTool(bad, func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return structured(map[string]any{"result": "not a number"})
		})
		c := startClient(t, srv)
		var req mcp.CallToolRequest
		req.Params.Name = "bad_result"
		res, err := c.CallTool(context.Background(), req)
		if err != nil {
			t.Fatalf("validate=%t: %v", validate, err)
		}
		if res.IsError != validate {
			t.Errorf("validate=%t: got IsError %t (%q), want %t", validate, res.IsError, text(res), validate)
		}
		if validate && !strings.Contains(text(res), "output schema validation failed") {
			t.Errorf("validate=%t: got %q, want the validation failure", validate, text(res))
		}
	}
}

// TestPaneInfoFields checks that paneInfoFields holds every field
// paneInfo reads: a listing of those alone gives the same PaneInfo as a
// listing of every field.
func TestPaneInfoFields(t *testing.T) {
	e := newEnv(t, Readonly)
	pane := e.tm.MustTmux("split-window", "-h", "-P", "-F", "#{pane_id}", "-t", "main")
	// Both listings must see the same pane: tmux reads a new pane's
	// working directory from its process, and reports none until the
	// process has started (3.7c, on a busy machine, between the two).
	tmuxtest.WaitFor(t, 10*time.Second, "the new pane's working directory", func() bool {
		return e.tm.MustTmux("display-message", "-p", "-t", pane, "#{pane_current_path}") != ""
	})
	srv, err := e.sup.Default(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	full, err := srv.ListPanes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	some, err := srv.ListPanesWith(context.Background(), paneInfoFields...)
	if err != nil {
		t.Fatal(err)
	}
	if len(full) != 2 || len(some) != len(full) {
		t.Fatalf("got %d and %d panes, want 2", len(full), len(some))
	}
	for i := range full {
		if got, want := e.d.paneInfo(some[i], srv.Socket()), e.d.paneInfo(full[i], srv.Socket()); !reflect.DeepEqual(got, want) {
			t.Errorf("pane %d: got %+v, want %+v", i, got, want)
		}
	}
}
