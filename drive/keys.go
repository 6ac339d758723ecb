package drive

import (
	"context"
	"unicode/utf8"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// Keystroke is one send: keys, then Enter if asked.
type Keystroke struct {
	Keys           string
	Enter, Literal bool
}

// MaxKeysArg is the most text one send-keys carries: a tmux client sends
// its whole command in one message of at most 16 KiB.
const MaxKeysArg = 8 << 10

// Send types k into pane. Without literal the keys are one argument, which
// tmux takes for a key name (C-c, Enter, F1) when it is one and for text
// otherwise; long text is sent literally, in pieces tmux accepts. A caller
// that must not interleave with other sends holds the pane's lock.
func (k Keystroke) Send(ctx context.Context, srv *supervisor.Server, pane tmux.PaneID) error {
	if !k.Literal && len(k.Keys) <= MaxKeysArg {
		var keys []string
		if k.Keys != "" {
			keys = append(keys, k.Keys)
		}
		if k.Enter {
			keys = append(keys, "Enter")
		}
		if len(keys) == 0 {
			return nil
		}
		return srv.TypeKeys(ctx, pane, keys...)
	}
	if err := SendLiteral(ctx, srv, pane, k.Keys); err != nil {
		return err
	}
	if k.Enter {
		return srv.TypeKeys(ctx, pane, "Enter")
	}
	return nil
}

// SendLiteral types text into pane as characters (send-keys -l). Keys
// always reach the program: a pane in copy mode (a person scrolling) is
// taken out of it first (Server.TypeKeys).
func SendLiteral(ctx context.Context, srv *supervisor.Server, pane tmux.PaneID, text string) error {
	for _, chunk := range Chunks(text, MaxKeysArg) {
		if err := srv.TypeText(ctx, pane, chunk); err != nil {
			return err
		}
	}
	return nil
}

// Chunks splits s into pieces of at most n bytes at character boundaries.
// Only the last piece may end in ";" (a tmux client takes an argument
// ending in ";" for the end of its command; the wire escapes that now, and
// this keeps the pieces as they were).
func Chunks(s string, n int) []string {
	var out []string
	for len(s) > n {
		cut := n
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		for cut > 1 && s[cut-1] == ';' {
			cut--
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}
