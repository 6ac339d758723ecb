package journal

import (
	"encoding/binary"
	"encoding/json"
	"os"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/supervisor/death"
	"github.com/tmux-mcp/tmux-mcp/tmux"
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
	e.Detail, e.Notification = cut(e.Detail, maxDetailBytes), cut(e.Notification, maxDetailBytes)
	e.Cause = death.Cause(cut(string(e.Cause), maxDetailBytes))
	key := socketKey(e.Socket)
	proc := os.Getpid()
	j.w.enqueue(func(tx *bolt.Tx) error {
		b, err := serverBucket(tx, key, e.Socket)
		if err != nil {
			return err
		}
		if e.Type == supervisor.EventServerDied {
			info := readInfo(b)
			info.LastDeath = &deathRecord{PID: e.PID, Cause: e.Cause, At: e.Time}
			if err := writeInfo(b, info); err != nil {
				return err
			}
			if err := loseJobs(b, e); err != nil {
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

func seqKey(seq uint64) []byte { return binary.BigEndian.AppendUint64(nil, seq) }

// appendFill is the fill percent of buckets written in key order (events,
// snapshots): pages split when nearly full instead of half full, which
// halves the file for an append-only log.
const appendFill = 0.95
