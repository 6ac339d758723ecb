package guard

import (
	"os"
	"slices"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// TestFindOwn: the caller's pane is the live pane whose process is this
// process or an ancestor; else the pane TMUX_PANE names on the server TMUX
// names.
func TestFindOwn(t *testing.T) {
	sock := tmux.Socket{Path: "/tmp/tmux-test/default"}
	own := NewOwnPanes(func() []int { return []int{os.Getpid(), 4242} })
	panes := []tmux.Pane{{ID: "%1", PID: 4242, Dead: true}, {ID: "%2", PID: 7}, {ID: "%3", PID: 4242}}
	if got := (Guard{Own: own}).findOwn(panes, sock); got != "%3" {
		t.Errorf("by ancestry: %q, want %%3 (the dead pane skipped)", got)
	}
	env := Guard{Caller: Caller{SocketPath: sock.Path, Pane: "%2"}}
	if got := env.findOwn(panes, sock); got != "%2" {
		t.Errorf("by TMUX_PANE: %q, want %%2", got)
	}
	if got := env.findOwn(panes, tmux.Socket{Path: "/tmp/tmux-test/other"}); got != "" {
		t.Errorf("TMUX_PANE on another server: %q, want none", got)
	}
	if got := (Guard{Caller: Caller{Pane: "%9"}}).findOwn(panes, sock); got != "" {
		t.Errorf("a TMUX_PANE that is not there: %q, want none", got)
	}
	if got := own.ancestorList(); !slices.Equal(got, []int{os.Getpid(), 4242}) {
		t.Errorf("ancestorList = %v", got)
	}
}

// TestOwnPanesCache: what was learnt of a server holds while its PID is
// the same; a server whose PID is unknown is never cached.
func TestOwnPanesCache(t *testing.T) {
	sock := tmux.Socket{Path: "/tmp/tmux-test/default"}
	o := NewOwnPanes(nil)
	o.remember(sock, ownPane{serverPID: 0, pane: "%1"})
	if _, ok := o.known(sock); ok {
		t.Error("a server without a PID was remembered")
	}
	o.remember(sock, ownPane{serverPID: 100, pane: "%1"})
	if c, ok := o.cached(sock, 100); !ok || c.pane != "%1" {
		t.Errorf("cached(100) = %+v, %v", c, ok)
	}
	if _, ok := o.cached(sock, 101); ok {
		t.Error("a restarted server (new PID) was answered from the cache")
	}
	if c, ok := o.known(sock); !ok || c.pane != "%1" {
		t.Errorf("known = %+v, %v; want what was learnt, whichever the PID", c, ok)
	}
	var none *OwnPanes
	if _, ok := none.known(sock); ok {
		t.Error("no memory knows nothing")
	}
}
