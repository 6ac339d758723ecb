package journal

import (
	"encoding/binary"
	"encoding/json"
	"os"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/supervisor/tmux"
)

// Event types the journal adds to the supervisor's.
const (
	EventSnapshot supervisor.EventType = "snapshot" // a snapshot was stored; Detail gives its sequence and size
	EventRestore  supervisor.EventType = "restore"  // a restore plan was applied; Detail says what it did
)

// Record is one entry of a server's event log.
type Record struct {
	Seq  uint64 `json:"seq"`
	Proc int    `json:"proc,omitempty"` // PID of the tmux-mcp process that wrote it
	supervisor.Event
}

// logged says which supervisor events go to the log: lifecycle, structure
// and resource warnings. Per-command events (commands, cache hits, rate
// limits) are telemetry's, not the journal's.
func logged(t supervisor.EventType) bool {
	switch t {
	case supervisor.EventServerDied, supervisor.EventRestarting, supervisor.EventRestarted, supervisor.EventRestored,
		supervisor.EventSocketRecreated, supervisor.EventServerAdopted, supervisor.EventServerStarted,
		supervisor.EventStructure, supervisor.EventResourceWarning, EventSnapshot, EventRestore:
		return true
	}
	return false
}

// Append queues e for the log of its server. It never blocks: the
// background writer stores queued events in batches.
func (j *Journal) Append(e supervisor.Event) {
	if j == nil {
		return
	}
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	key := socketKey(e.Socket)
	proc := os.Getpid()
	j.w.enqueue(func(tx *bolt.Tx) error {
		b, err := serverBucket(tx, key, e.Socket)
		if err != nil {
			return err
		}
		if e.Type == supervisor.EventServerDied {
			info := readInfo(b)
			info.LastDeath = &death{PID: e.PID, Cause: e.Cause, At: e.Time}
			if err := writeInfo(b, info); err != nil {
				return err
			}
		}
		ev := b.Bucket(bucketEvents)
		ev.FillPercent = appendFill
		seq, err := ev.NextSequence()
		if err != nil {
			return err
		}
		v, err := json.Marshal(Record{Seq: seq, Proc: proc, Event: e})
		if err != nil {
			return err
		}
		return ev.Put(seqKey(seq), v)
	})
}

// Events returns the events of sock's server since the given time, oldest
// first, at most limit of them (the newest; 0: no limit).
func (j *Journal) Events(sock tmux.Socket, since time.Time, limit int) ([]Record, error) {
	if j == nil {
		return nil, ErrOff
	}
	var out []Record
	err := j.view(func(servers *bolt.Bucket) error {
		b := lookup(servers, socketKey(sock), bucketEvents)
		if b == nil {
			return nil
		}
		c := b.Cursor()
		for k, v := c.Last(); k != nil && (limit <= 0 || len(out) < limit); k, v = c.Prev() {
			var r Record
			if err := json.Unmarshal(v, &r); err != nil {
				continue // written by a newer tmux-mcp: skip
			}
			if r.Time.Before(since) {
				break
			}
			out = append(out, r)
		}
		return nil
	})
	slices.Reverse(out)
	return out, err
}

// pruneEvents deletes events older than cutoff from every server.
func pruneEvents(tx *bolt.Tx, cutoff time.Time) error {
	servers := tx.Bucket(bucketServers)
	if servers == nil {
		return nil
	}
	return servers.ForEachBucket(func(k []byte) error {
		ev := servers.Bucket(k).Bucket(bucketEvents)
		if ev == nil {
			return nil
		}
		var old [][]byte
		c := ev.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			var r struct {
				Time time.Time `json:"time"`
			}
			if json.Unmarshal(v, &r) == nil && !r.Time.Before(cutoff) {
				break
			}
			old = append(old, k)
		}
		for _, k := range old {
			if err := ev.Delete(k); err != nil {
				return err
			}
		}
		return nil
	})
}

// serverInfo is a server's info record.
type serverInfo struct {
	Socket tmux.Socket `json:"socket"`
	// Instance is the latest instance (PID.start) a snapshot or a restore
	// was recorded for: IDs mapped to it are the ones that resolve.
	Instance string `json:"instance,omitempty"`
	// Restoring marks a restore under way onto an instance: snapshots of a
	// half-built tree are not stored.
	Restoring *restoring `json:"restoring,omitempty"`
	// LastDeath is the last death logged.
	LastDeath *death `json:"last_death,omitempty"`
}

type restoring struct {
	Instance string    `json:"instance"`
	Since    time.Time `json:"since"`
	Proc     int       `json:"proc"`
}

// restoringTTL is how long a restore marker holds: a restore is bounded
// (the supervisor gives it 30s), and the marker of a process killed while
// restoring must not stop snapshots for ever.
const restoringTTL = time.Minute

type death struct {
	PID   int              `json:"pid"`
	Cause supervisor.Cause `json:"cause"`
	At    time.Time        `json:"at"`
}

func readInfo(b *bolt.Bucket) serverInfo {
	var info serverInfo
	if v := b.Get(keyInfo); v != nil {
		json.Unmarshal(v, &info) //nolint:errcheck // an unreadable info record starts over
	}
	return info
}

func writeInfo(b *bolt.Bucket, info serverInfo) error {
	v, err := json.Marshal(info)
	if err != nil {
		return err
	}
	return b.Put(keyInfo, v)
}

// socketKey is the key of a server: its resolved socket path.
func socketKey(sock tmux.Socket) string { return sock.ResolvedPath() }

// serverBucket returns the bucket of the server at key, with its
// sub-buckets, creating what is missing.
func serverBucket(tx *bolt.Tx, key string, sock tmux.Socket) (*bolt.Bucket, error) {
	servers, err := tx.CreateBucketIfNotExists(bucketServers)
	if err != nil {
		return nil, err
	}
	b := servers.Bucket([]byte(key))
	if b == nil {
		if b, err = servers.CreateBucket([]byte(key)); err != nil {
			return nil, err
		}
		if err := writeInfo(b, serverInfo{Socket: sock}); err != nil {
			return nil, err
		}
	}
	for _, name := range [][]byte{bucketSnapshots, bucketEvents, bucketIDs, bucketCreated} {
		if _, err := b.CreateBucketIfNotExists(name); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// lookup returns servers/key/sub, or servers/key when sub is nil, or nil.
func lookup(servers *bolt.Bucket, key string, sub []byte) *bolt.Bucket {
	if servers == nil {
		return nil
	}
	b := servers.Bucket([]byte(key))
	if b == nil || sub == nil {
		return b
	}
	return b.Bucket(sub)
}

func seqKey(seq uint64) []byte { return binary.BigEndian.AppendUint64(nil, seq) }

// appendFill is the fill percent of buckets written in key order (events,
// snapshots): pages split when nearly full instead of half full, which
// halves the file for an append-only log.
const appendFill = 0.95
