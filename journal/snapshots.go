package journal

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// TakeSnapshot reads the session tree of srv and stores it, unless it
// equals the server's latest snapshot or a restore onto this server is
// under way (a half-built tree is no source for the next restore), or
// the server has no session at all (it is exiting). It reports whether a
// snapshot was stored.
func (j *Journal) TakeSnapshot(ctx context.Context, srv *supervisor.Server) (bool, error) {
	if j == nil {
		return false, ErrOff
	}
	return j.takeSnapshot(ctx, srv)
}

func (j *Journal) takeSnapshot(ctx context.Context, srv tmuxServer) (bool, error) {
	key := socketKey(srv.Socket())
	if j.isRestoring(key) {
		return false, nil
	}
	snap, err := readState(ctx, srv)
	if err != nil {
		return false, err
	}
	if snap.noSession {
		// kill-server destroys every session, the hidden one too, then
		// answers the commands already queued before it lets its clients
		// go; a snapshot of that would be the newest of its instance, and
		// an explicit restore would bring back an empty tree in place of
		// the sessions the server had.
		return false, nil
	}
	snap.capFields()
	if j.opts.CommandNamesOnly {
		snap.dropCommandLines()
	}
	j.setServerPID(key, snap.Server.PID)
	j.settleLater(key, snap)
	return j.storeSnapshot(srv.Socket(), snap)
}

// maxSettleTries bounds the snapshots taken again because a pane was not
// settled (see Snapshot.settledAfter): a pane whose directory tmux can
// never read, or whose own process is a tmux client, is then left to the
// Interval and Refresh snapshots.
const maxSettleTries = 20

// settleLater schedules another snapshot of key's server one Debounce
// from now when a live pane of snap had not started in the read before
// it: no event follows a new pane's process taking its terminal and its
// directory, so without it the journal would keep a tree with the
// server's directory (or none) for that pane until the next Interval or
// Refresh.
func (j *Journal) settleLater(key string, snap *Snapshot) {
	j.mu.Lock()
	defer j.mu.Unlock()
	st := j.state(key)
	if st.startedPID != snap.Server.PID {
		st.started, st.startedPID = nil, snap.Server.PID
	}
	settled := snap.settledAfter(st.started)
	st.started = snap.started()
	if settled {
		st.settleTries = 0
		return
	}
	if st.settleTries < maxSettleTries {
		st.settleTries++
		st.changed(time.Now())
	}
}

// storeSnapshot stores snap for sock's server, with the created records
// of its panes, unless it equals the latest one. Snapshots beyond
// KeepSnapshots are deleted.
func (j *Journal) storeSnapshot(sock tmux.Socket, snap *Snapshot) (bool, error) {
	// A snapshot of a new server instance leaves the old ID map leading
	// nowhere live.
	defer j.forgetIDs(socketKey(sock))
	stored := false
	err := j.update(func(tx *bolt.Tx) error {
		stored = false
		b, err := serverBucket(tx, socketKey(sock), sock)
		if err != nil {
			return err
		}
		info := readInfo(b)
		if r := info.Restoring; r != nil && r.Instance == snap.Server.Instance() && time.Since(r.Since) < restoringTTL {
			return nil
		}
		if err := attachCreated(b, snap, j.opts.KeepEvents); err != nil {
			return err
		}
		snap.Digest = snap.digest()
		sb := b.Bucket(bucketSnapshots)
		sb.FillPercent = appendFill
		if _, v := sb.Cursor().Last(); v != nil {
			var last struct {
				Digest string `json:"digest"`
			}
			if json.Unmarshal(v, &last) == nil && last.Digest == snap.Digest {
				return nil
			}
		}
		seq, err := sb.NextSequence()
		if err != nil {
			return err
		}
		snap.Seq = seq
		v, err := json.Marshal(snap)
		if err != nil {
			return err
		}
		if len(v) > MaxSnapshotBytes {
			return snapshotTooLarge(sock.String(), len(v))
		}
		if err := sb.Put(seqKey(seq), v); err != nil {
			return err
		}
		if err := trim(sb, j.opts.KeepSnapshots); err != nil {
			return err
		}
		info.Instance = snap.Server.Instance()
		if err := writeInfo(b, info); err != nil {
			return err
		}
		stored = true
		return nil
	})
	if err != nil {
		return false, err
	}
	if stored {
		j.bound()
		s, w, p := snap.Counts()
		j.Append(supervisor.Event{Type: EventSnapshot, Socket: sock, PID: snap.Server.PID,
			Detail: fmt.Sprintf("snapshot %d: %d sessions, %d windows, %d panes", snap.Seq, s, w, p)})
	}
	return stored, nil
}

// trim deletes the oldest entries of b beyond keep.
func trim(b *bolt.Bucket, keep int) error {
	var keys [][]byte
	c := b.Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		keys = append(keys, append([]byte(nil), k...))
	}
	if len(keys) <= keep {
		return nil
	}
	old := keys[:len(keys)-keep]
	for _, k := range old {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// SnapshotInfo summarises one stored snapshot.
type SnapshotInfo struct {
	Seq       uint64    `json:"seq"`
	Taken     time.Time `json:"taken"`
	ServerPID int       `json:"server_pid"`
	Instance  string    `json:"instance"`
	Sessions  int       `json:"sessions"`
	Windows   int       `json:"windows"`
	Panes     int       `json:"panes"`
}

// Snapshots lists the stored snapshots of sock's server, newest first, at
// most limit (0: all).
func (j *Journal) Snapshots(sock tmux.Socket, limit int) ([]SnapshotInfo, error) {
	if j == nil {
		return nil, ErrOff
	}
	var out []SnapshotInfo
	err := j.view(func(servers *bolt.Bucket) error {
		b := lookup(servers, socketKey(sock), bucketSnapshots)
		if b == nil {
			return nil
		}
		c := b.Cursor()
		for k, v := c.Last(); k != nil && (limit <= 0 || len(out) < limit); k, v = c.Prev() {
			var s Snapshot
			if json.Unmarshal(v, &s) != nil {
				continue
			}
			ns, nw, np := s.Counts()
			out = append(out, SnapshotInfo{Seq: s.Seq, Taken: s.Taken, ServerPID: s.Server.PID,
				Instance: s.Server.Instance(), Sessions: ns, Windows: nw, Panes: np})
		}
		return nil
	})
	return out, err
}

// Snapshot returns snapshot seq of sock's server (0: the latest).
func (j *Journal) Snapshot(sock tmux.Socket, seq uint64) (*Snapshot, error) {
	if j == nil {
		return nil, ErrOff
	}
	var snap *Snapshot
	err := j.view(func(servers *bolt.Bucket) error {
		b := lookup(servers, socketKey(sock), bucketSnapshots)
		if b == nil {
			return nil
		}
		var v []byte
		if seq == 0 {
			_, v = b.Cursor().Last()
		} else {
			v = b.Get(seqKey(seq))
		}
		if v == nil {
			return nil
		}
		snap = &Snapshot{}
		return json.Unmarshal(v, snap)
	})
	if err == nil && snap == nil {
		err = fmt.Errorf("%w of server %s", ErrNoSnapshot, sock)
		if seq != 0 {
			err = fmt.Errorf("%w %d of server %s", ErrNoSnapshot, seq, sock)
		}
	}
	return snap, err
}

// latestOther returns the latest snapshot of sock's server taken of
// another instance than live, the ID map into live, and the server's info.
func (j *Journal) latestOther(sock tmux.Socket, live string) (*Snapshot, map[string]string, serverInfo, error) {
	var snap *Snapshot
	var ids map[string]string
	var info serverInfo
	err := j.view(func(servers *bolt.Bucket) error {
		b := lookup(servers, socketKey(sock), nil)
		if b == nil || b.Bucket(bucketSnapshots) == nil {
			return nil
		}
		info = readInfo(b)
		ids = idsFor(b, live)
		c := b.Bucket(bucketSnapshots).Cursor()
		for k, v := c.Last(); k != nil; k, v = c.Prev() {
			var s Snapshot
			if json.Unmarshal(v, &s) != nil || s.Server.Instance() == live {
				continue
			}
			snap = &s
			return nil
		}
		return nil
	})
	return snap, ids, info, err
}

// ServerSummary describes one server the journal knows.
type ServerSummary struct {
	Socket       string    `json:"socket"`
	Instance     string    `json:"instance,omitempty"`
	Snapshots    int       `json:"snapshots"`
	Events       int       `json:"events"`
	LastSnapshot time.Time `json:"last_snapshot,omitzero"`
	LastDeath    string    `json:"last_death,omitempty"`
}

// Servers lists the servers the journal has records of.
func (j *Journal) Servers() ([]ServerSummary, error) {
	if j == nil {
		return nil, ErrOff
	}
	var out []ServerSummary
	err := j.view(func(servers *bolt.Bucket) error {
		if servers == nil {
			return nil
		}
		return servers.ForEachBucket(func(k []byte) error {
			b := servers.Bucket(k)
			info := readInfo(b)
			s := ServerSummary{Socket: string(k), Instance: info.Instance}
			if d := info.LastDeath; d != nil {
				s.LastDeath = string(d.Cause) + " at " + d.At.UTC().Format(time.RFC3339)
			}
			if sb := b.Bucket(bucketSnapshots); sb != nil {
				s.Snapshots = sb.Stats().KeyN
				if _, v := sb.Cursor().Last(); v != nil {
					var last struct {
						Taken time.Time `json:"taken"`
					}
					json.Unmarshal(v, &last) //nolint:errcheck // zero time if unreadable
					s.LastSnapshot = last.Taken
				}
			}
			if eb := b.Bucket(bucketEvents); eb != nil {
				s.Events = eb.Stats().KeyN
			}
			out = append(out, s)
			return nil
		})
	})
	slices.SortFunc(out, func(a, b ServerSummary) int {
		if a.Socket < b.Socket {
			return -1
		}
		if a.Socket > b.Socket {
			return 1
		}
		return 0
	})
	return out, err
}
