package drive

import (
	"context"
	"crypto/rand"
	"encoding/hex"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// Paste loads text into a buffer of its own (never the user's clipboard
// buffers), pastes it with paste-buffer -d, which deletes it, and deletes
// it anyway if something failed. With bracket, paste-buffer -p wraps the
// text in bracketed-paste sequences when the application asked for them,
// so a newline in it cannot run a half-pasted command.
func Paste(ctx context.Context, srv *supervisor.Server, pane tmux.PaneID, text string, bracket bool) (err error) {
	name := bufferName("paste")
	defer func() {
		if err != nil {
			srv.DeleteBuffer(context.WithoutCancel(ctx), name) //nolint:errcheck // best effort; it may not exist
		}
	}()
	for i, chunk := range Chunks(text, MaxKeysArg) {
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
