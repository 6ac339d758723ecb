package journal

import (
	"context"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// commandServer reads a real tmux server with plain tmux commands, not
// through a supervisor: unlike the supervisor's connection, which holds
// the hidden session while the server lives, it can read a server that has
// no session at all. That is what the supervisor reads when its request
// runs in the moment between kill-server destroying every session and the
// server letting its clients go.
type commandServer struct{ ts *tmuxtest.Server }

func (c commandServer) ServerRecord(_ context.Context, fields ...string) ([]string, error) {
	out, err := c.ts.Tmux("display-message", "-p", tmux.RecordFormat(fields...))
	if err != nil {
		return nil, err
	}
	return tmux.ParseRecord([]byte(out+"\n"), len(fields))
}

func (c commandServer) PaneRecords(_ context.Context, fields ...string) ([][]string, error) {
	out, err := c.ts.Tmux("list-panes", "-a", "-F", tmux.RecordFormat(fields...))
	if err != nil {
		return nil, err
	}
	return tmux.ParseRecords([]byte(out+"\n"), len(fields))
}

func (c commandServer) Replay(_ context.Context, argv []string) ([]byte, error) {
	out, err := c.ts.Tmux(argv...)
	return []byte(out), err
}

func (c commandServer) Socket() tmux.Socket { return tmux.Socket{Path: c.ts.Socket} }

// TestNoSnapshotOfAServerWithoutSessions checks that a read finding no
// session at all is not stored: it is a server on its way out, and stored,
// it would become the newest tree of that instance, the one a restore after
// kill-server (or a crash right after) brings back: an empty one, in place
// of the sessions the server had.
func TestNoSnapshotOfAServerWithoutSessions(t *testing.T) {
	ts := tmuxtest.New(t)
	ts.MustTmux("start-server", ";", "set", "-g", "exit-empty", "off", ";", "new-session", "-d", "-s", "kept")
	srv := commandServer{ts}
	j, _ := mustOpen(t, "", nil)
	if stored, err := j.takeSnapshot(testCtx(t), srv); err != nil || !stored {
		t.Fatalf("takeSnapshot with a session = %v, %v; want stored", stored, err)
	}
	ts.MustTmux("kill-session", "-t", "=kept")
	stored, err := j.takeSnapshot(testCtx(t), srv)
	if err != nil {
		t.Fatal(err)
	}
	if stored {
		t.Error("takeSnapshot of a server with no session stored a snapshot; want none")
	}
	snap, err := j.Snapshot(srv.Socket(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := treeOf(snap); len(got) == 0 || !strings.HasPrefix(got[0], "session kept ") {
		t.Errorf("latest snapshot = %q, want the tree with session kept", got)
	}
}
