package journal

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/tmux-mcp/tmux-mcp/jobrecord"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
)

// The jobs/ bucket of each server keeps its jobs, background commands
// (run_command with background) and the calls that became MCP tasks: each
// is the job's one record, jobrecord.Record, in that type's JSON. The
// command line itself is not kept.

// keepJobs is how many jobs of each kind (commands, and calls: MCP
// tasks) each server keeps: beyond it the oldest that ended are deleted.
// The kinds count apart, so a client's tasks never push a background
// command out.
const keepJobs = 200

// PutJob stores job under its server, replacing the record of the same ID.
// It never blocks: the record is written in the background. A job that is
// not running never goes back to running: a record that would do so (a
// late write of a process that had not heard of the end) is dropped.
func (j *Journal) PutJob(job jobrecord.Record) {
	if j == nil || job.ID == "" {
		return
	}
	// Written later: nothing of the caller's may change under it.
	job.Tail, job.Before = slices.Clone(job.Tail), slices.Clone(job.Before)
	if job.Call != nil {
		c := *job.Call
		job.Call = &c
	}
	key := socketKey(job.Socket)
	j.w.enqueue(func(tx *bolt.Tx) error {
		b, err := serverBucket(tx, key, job.Socket)
		if err != nil {
			return err
		}
		jb := b.Bucket(bucketJobs)
		if job.State == jobrecord.Running {
			if old, ok := readJob(jb.Get([]byte(job.ID))); ok && old.State != jobrecord.Running {
				return nil
			}
		}
		v, err := json.Marshal(job)
		if err != nil {
			return err
		}
		return jb.Put([]byte(job.ID), v)
	})
	// Once per batch, not once per write: trimming reads every record,
	// and a batch of writes trimmed each would cost the square of the
	// jobs kept (TestJobsTrimmed's 206 writes took 3-7 s under -race).
	j.w.enqueueFinal("trim jobs "+key, func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketServers)
		if b == nil {
			return nil
		}
		if sb := b.Bucket([]byte(key)); sb != nil {
			if jb := sb.Bucket(bucketJobs); jb != nil {
				return trimJobs(jb, keepJobs)
			}
		}
		return nil
	})
}

// Jobs returns the jobs of every server, oldest first.
func (j *Journal) Jobs() ([]jobrecord.Record, error) {
	if j == nil {
		return nil, ErrOff
	}
	var out []jobrecord.Record
	err := j.view(func(servers *bolt.Bucket) error {
		if servers == nil {
			return nil
		}
		return servers.ForEachBucket(func(k []byte) error {
			jb := servers.Bucket(k).Bucket(bucketJobs)
			if jb == nil {
				return nil
			}
			return jb.ForEach(func(_, v []byte) error {
				if job, ok := readJob(v); ok {
					out = append(out, job)
				}
				return nil
			})
		})
	})
	slices.SortStableFunc(out, func(a, b jobrecord.Record) int {
		if c := a.Started.Compare(b.Started); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, err
}

// readJob decodes a job record; ok is false for one that is unreadable
// (written by a newer tmux-mcp, or damaged).
func readJob(v []byte) (jobrecord.Record, bool) {
	var job jobrecord.Record
	if v == nil || json.Unmarshal(v, &job) != nil || job.ID == "" {
		return jobrecord.Record{}, false
	}
	return job, true
}

// trimJobs deletes, of each kind, the oldest jobs that are not running
// beyond keep. A bucket that holds no more than keep in all has nothing
// to trim: it counts keys, and decodes the records only when it must.
func trimJobs(jb *bolt.Bucket, keep int) error {
	total := 0
	c := jb.Cursor() // Stats would miss this transaction's writes
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		total++
	}
	if total <= keep {
		return nil
	}
	type ended struct {
		key   []byte
		start time.Time
	}
	done := map[string][]ended{}
	n := map[string]int{}
	jb.ForEach(func(k, v []byte) error { //nolint:errcheck // never fails
		job, ok := readJob(v)
		n[job.Kind]++
		if !ok || job.State != jobrecord.Running {
			done[job.Kind] = append(done[job.Kind], ended{append([]byte(nil), k...), job.Started})
		}
		return nil
	})
	for kind, count := range n {
		if count <= keep {
			continue
		}
		d := done[kind]
		slices.SortFunc(d, func(a, b ended) int { return a.start.Compare(b.start) })
		for _, e := range d[:min(count-keep, len(d))] {
			if err := jb.Delete(e.key); err != nil {
				return err
			}
		}
	}
	return nil
}

// loseJobs marks the running jobs of the server that died in e lost: a job
// is never shown running on a server that is gone, whichever tmux-mcp
// process watched it. Jobs of another instance of the server (a PID other
// than e's, when e has one) are left to the processes that know them.
func loseJobs(b *bolt.Bucket, e supervisor.Event) error {
	jb := b.Bucket(bucketJobs)
	var lost []jobrecord.Record
	jb.ForEach(func(_, v []byte) error { //nolint:errcheck // never fails
		job, ok := readJob(v)
		if ok && job.State == jobrecord.Running && (e.PID == 0 || job.ServerPID == e.PID) {
			lost = append(lost, job)
		}
		return nil
	})
	for _, job := range lost {
		job.State = jobrecord.Lost
		job.Ended = e.Time
		job.Reason = "the tmux server died (" + string(e.Cause) + ")"
		v, err := json.Marshal(job)
		if err != nil {
			return err
		}
		if err := jb.Put([]byte(job.ID), v); err != nil {
			return err
		}
	}
	return nil
}
