package tools

import (
	"context"
	"crypto/rand"
	"encoding/hex"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/drive"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// maxPaste bounds paste_text's text.
const maxPaste = 1 << 20

// PasteText pastes text into a pane through a private buffer.
func PasteText(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := newTool("paste_text", "Paste text into a pane through a private buffer.",
		hintsShell, sentSchema,
		paneTarget(mcp.WithString("text", mcp.Required()),
			mcp.WithBoolean("bracket"), pIfSHA256, pAllowAgent, pAllowAttended)...)
	return t, handle(t, func(ctx context.Context, p params) (*mcp.CallToolResult, error) {
		text := p.str("text")
		switch {
		case text == "":
			return nil, argError("text", "must not be empty")
		case len(text) > maxPaste:
			return nil, argError("text", "at most %d bytes", maxPaste)
		}
		tp, err := d.startTyping(ctx, p)
		if err != nil {
			return nil, err
		}
		defer tp.unlock()
		srv, pn, notReady := tp.srv, tp.pane, tp.notReady
		d.markSend(ctx, srv, pn)
		if err := paste(ctx, srv, pn.ID, text, p.flag("bracket", true)); err != nil {
			return nil, err
		}
		return d.sentResult("Text pasted to pane "+string(pn.ID), pn.ID, notReady)
	})
}

// paste loads text into a buffer of its own (never the user's clipboard
// buffers), pastes it with paste-buffer -d, which deletes it, and deletes
// it anyway if something failed. With bracket, paste-buffer -p wraps the
// text in bracketed-paste sequences when the application asked for them,
// so a newline in it cannot run a half-pasted command.
func paste(ctx context.Context, srv *supervisor.Server, pane tmux.PaneID, text string, bracket bool) (err error) {
	name := bufferName("paste")
	defer func() {
		if err != nil {
			srv.DeleteBuffer(context.WithoutCancel(ctx), name) //nolint:errcheck // best effort; it may not exist
		}
	}()
	for i, chunk := range drive.Chunks(text, drive.MaxKeysArg) {
		store := srv.SetBuffer
		if i > 0 {
			store = srv.AppendBuffer
		}
		if err := store(ctx, name, chunk); err != nil {
			return err
		}
	}
	return srv.PasteBuffer(ctx, pane, name, supervisor.PasteOptions{Delete: true, Bracket: bracket})
}

// bufferName returns a buffer name no other call uses:
// tmux_mcp_<random>_<purpose>.
func bufferName(purpose string) string {
	var b [8]byte
	rand.Read(b[:]) //nolint:errcheck // crypto/rand.Read never fails
	return "tmux_mcp_" + hex.EncodeToString(b[:]) + "_" + purpose
}
