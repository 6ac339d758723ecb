package journal

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// RecordCreated records how tmux-mcp created pane on sock's server: the
// exact argv (empty for the default shell), working directory and
// environment (KEY=VALUE) it used, and whether a restore re-runs the
// command (restoreCommand; otherwise only --restore-commands does). The
// next snapshot carries it, and a restore uses it. It never blocks: the
// record is written in the background. Environment values are stored in
// plain text in the journal (a 0600 file) and shown by no surface, unless
// Options.EnvNamesOnly keeps only their names.
func (j *Journal) RecordCreated(sock tmux.Socket, pane tmux.PaneID, argv []string, cwd string, env []string, restoreCommand bool) {
	if j == nil || pane == "" {
		return
	}
	env = slices.Clone(env)
	if j.opts.EnvNamesOnly {
		for i, kv := range env {
			env[i], _, _ = strings.Cut(kv, "=")
		}
	}
	c := Created{Argv: slices.Clone(argv), Cwd: cwd, Env: env, Restore: restoreCommand,
		At: time.Now().UTC(), ServerPID: j.serverPID(socketKey(sock))}
	capCreated(&c)
	j.putCreated(sock, pane, c)
	j.markDirty(socketKey(sock))
}

func (j *Journal) putCreated(sock tmux.Socket, pane tmux.PaneID, c Created) {
	key := socketKey(sock)
	j.w.enqueue(func(tx *bolt.Tx) error {
		b, err := serverBucket(tx, key, sock)
		if err != nil {
			return err
		}
		return putCreatedTx(b, pane, c)
	})
}

func putCreatedTx(b *bolt.Bucket, pane tmux.PaneID, c Created) error {
	v, err := json.Marshal(c)
	if err != nil {
		return err
	}
	return b.Bucket(bucketCreated).Put([]byte(pane), v)
}

// attachCreated adds the created records of snap's panes to them, and
// deletes records of servers gone for longer than keep.
func attachCreated(b *bolt.Bucket, snap *Snapshot, keep time.Duration) error {
	cb := b.Bucket(bucketCreated)
	var stale [][]byte
	records := map[tmux.PaneID]*Created{}
	cb.ForEach(func(k, v []byte) error { //nolint:errcheck // never fails
		var c Created
		if json.Unmarshal(v, &c) != nil {
			stale = append(stale, append([]byte(nil), k...))
			return nil
		}
		switch {
		case c.ServerPID == snap.Server.PID || c.ServerPID == 0 && c.At.Unix() >= snap.Server.StartTime:
			records[tmux.PaneID(k)] = &c
		case time.Since(c.At) > keep:
			stale = append(stale, append([]byte(nil), k...))
		}
		return nil
	})
	for i := range snap.Sessions {
		for j := range snap.Sessions[i].Windows {
			for k := range snap.Sessions[i].Windows[j].Panes {
				p := &snap.Sessions[i].Windows[j].Panes[k]
				if c, ok := records[p.ID]; ok {
					p.Created = c
				}
			}
		}
	}
	for _, k := range stale {
		if err := cb.Delete(k); err != nil {
			return err
		}
	}
	return nil
}
