package tools

import (
	"context"
	"regexp"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/tmux-mcp/tmux-mcp/tooldef"
)

// Refusals of display_message. A read-only tool must not start a shell:
// "#(...)" is a format job, and the E: and T: modifiers expand a value
// (an option, a pane title any program can set) as a format, jobs
// included (measured on tmux 3.3a: `#{E:@x}` with @x set to "#(touch f)"
// creates f).
const (
	refuseJobs      = "tmux format jobs (#(...)) are not allowed in display_message"
	refuseExpanding = "tmux format modifiers E: and T: (which expand values as formats, jobs included) are not allowed in display_message"
)

// expandingModifier finds an E or T modifier: after "#{" or ";" and
// before ":" or ";" (modifiers are separated by ";" and end at ":").
var expandingModifier = regexp.MustCompile(`[{;][ET][:;]`)

// DisplayMessage evaluates a tmux format string against a pane.
func DisplayMessage(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("display_message", "Evaluate a tmux format (e.g. #{pane_width}) for a pane; no #() jobs.",
		tooldef.Read, messageSchema,
		paneTarget(mcp.WithString("format_string", mcp.Required()))...)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		format := p.Str("format_string")
		switch {
		case strings.Contains(format, "#("):
			return nil, refused(refuseJobs)
		case expandingModifier.MatchString(format):
			return nil, refused(refuseExpanding)
		}
		srv, x, err := d.pane(ctx, p)
		if err != nil {
			return nil, err
		}
		out, err := srv.DisplayMessage(ctx, x.ID, format)
		if err != nil {
			return nil, err
		}
		return message(out)
	})
}
