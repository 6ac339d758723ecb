package tools

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/drive"
	"github.com/tmux-mcp/tmux-mcp/tooldef"
)

// maxPaste bounds paste_text's text.
const maxPaste = 1 << 20

// PasteText pastes text into a pane through a private buffer.
func PasteText(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("paste_text", "Paste text into a pane through a private buffer.",
		tooldef.Shell, sentSchema,
		paneTarget(mcp.WithString("text", mcp.Required()),
			mcp.WithBoolean("bracket"), pIfSHA256, pAllowAgent, pAllowAttended)...)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		text := p.Str("text")
		switch {
		case text == "":
			return nil, tooldef.BadArg("text", "must not be empty")
		case len(text) > maxPaste:
			return nil, tooldef.BadArg("text", "at most %d bytes", maxPaste)
		}
		tp, err := d.startTyping(ctx, p)
		if err != nil {
			return nil, err
		}
		defer tp.unlock()
		srv, pn, notReady := tp.srv, tp.pane, tp.notReady
		d.markSend(ctx, srv, pn)
		if err := drive.Paste(ctx, srv, pn.ID, text, p.Flag("bracket", true)); err != nil {
			return nil, err
		}
		return d.sentResult("Text pasted to pane "+string(pn.ID), pn.ID, notReady)
	})
}
