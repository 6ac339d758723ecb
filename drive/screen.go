package drive

import (
	"bytes"
	"context"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// screen is a pane's screen and cursor at one moment.
type screen struct {
	content []byte
	cursorX int
	cursorY int
	line    int // the cursor's line counted from the top of the history
	alt     bool
}

func (s screen) lines() []string {
	return strings.Split(string(bytes.TrimRight(s.content, "\n")), "\n")
}

// cursorLine returns the text of row cursorY of the screen.
func (s screen) cursorLine(cursorY int) string {
	ls := s.lines()
	if cursorY < 0 || cursorY >= len(ls) {
		return ""
	}
	return ls[cursorY]
}

// screenNow reads pane's screen and cursor.
func screenNow(ctx context.Context, srv *supervisor.Server, pane tmux.PaneID) (screen, error) {
	pn, err := ReadPane(ctx, srv, pane)
	if err != nil {
		return screen{}, err
	}
	c, err := srv.Capture(ctx, supervisor.CaptureRequest{Pane: pane})
	if err != nil {
		return screen{}, err
	}
	return screen{content: c.Content, cursorX: pn.CursorX, cursorY: pn.CursorY, line: pn.HistorySize + pn.CursorY, alt: pn.AlternateOn}, nil
}

// same reports whether two readings show the same screen and cursor.
func (s screen) same(o screen) bool {
	return bytes.Equal(s.content, o.content) && s.cursorX == o.cursorX && s.line == o.line
}
