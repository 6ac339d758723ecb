package supervisor

import (
	"errors"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// TestMaxServers checks the cap on supervised servers: servers reached
// count, sockets that named no server do not, and the server beyond the
// cap fails with ErrTooManyServers.
func TestMaxServers(t *testing.T) {
	a, b, c := tmuxtest.New(t), tmuxtest.New(t), tmuxtest.New(t)
	for _, ts := range []*tmuxtest.Server{a, b, c} {
		ts.Start("main")
	}
	sup := newSup(t, a, Config{MaxServers: 2, NoStart: true})
	ctx := testCtx(t)
	mustServer(t, sup)
	for i := range 5 {
		sock := tmux.Socket{Path: filepath.Join(a.Dir, "none"+strconv.Itoa(i))}
		if _, err := sup.Server(ctx, sock); err == nil || errors.Is(err, ErrTooManyServers) {
			t.Fatalf("a socket without a server: err = %v, want the wire's no-server error", err)
		}
	}
	if _, err := sup.Server(ctx, tmux.Socket{Path: b.Socket}); err != nil {
		t.Fatalf("second server: %v", err)
	}
	_, err := sup.Server(ctx, tmux.Socket{Path: c.Socket})
	if !errors.Is(err, ErrTooManyServers) {
		t.Fatalf("third server: err = %v, want ErrTooManyServers", err)
	}
	if got, want := len(sup.Servers()), 2; got != want {
		t.Errorf("supervised %d servers, want %d", got, want)
	}
}
