package tools

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tooldef"
)

// pIfSHA256 is the stale-screen guard of the tools that type into a pane.
var pIfSHA256 = mcp.WithString("if_sha256")

var sha256Re = regexp.MustCompile(`^[0-9a-fA-F]{64}$`)

// screenRequest is the capture that a screen's sha256 refers to: the
// visible screen with the default caps. capture_pane and snapshot_pane
// make it when called without a range or max_lines, and the if_sha256
// guard compares against it.
func screenRequest(pane tmux.PaneID) supervisor.CaptureRequest {
	return supervisor.CaptureRequest{Pane: pane}
}

// guardArg returns the if_sha256 argument, checked.
func guardArg(p tooldef.Args) (string, error) {
	want := p.Str("if_sha256")
	if want != "" && !sha256Re.MatchString(want) {
		return "", tooldef.BadArg("if_sha256", "want the 64 hex digits of a capture's sha256")
	}
	return strings.ToLower(want), nil
}

// checkScreen fails, so that nothing is sent, when want is set and the
// pane's visible screen no longer has that digest: an agent never types
// into a screen it has not seen.
func checkScreen(ctx context.Context, srv *supervisor.Server, pane tmux.PaneID, want string) error {
	if want == "" {
		return nil
	}
	c, err := srv.Capture(ctx, screenRequest(pane))
	if err != nil {
		return err
	}
	if c.SHA256 != want {
		return &toolError{msg: fmt.Sprintf("pane %s changed since the capture with sha256 %s (now %s); nothing was sent", pane, want, c.SHA256),
			class: "stale_screen", hint: "Capture the pane again (capture_pane or snapshot_pane), check it, and retry with its sha256."}
	}
	return nil
}
