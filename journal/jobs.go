package journal

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// Job states, as the tools report them.
const (
	JobRunning = "running"
	JobExited  = "exited"
	JobLost    = "lost"
)

// Job is a background command a tmux-mcp process typed into a pane
// (run_command with background), as the jobs/ bucket of its server keeps
// it: enough to list it after tmux-mcp restarts, to find its end again
// (its nonce and where the pane's history stood when it was typed), and
// what was known of it when it ended or was lost. The command line itself
// is not kept.
type Job struct {
	ID          string      `json:"id"`
	Socket      tmux.Socket `json:"socket"`
	Pane        tmux.PaneID `json:"pane"`
	SessionID   string      `json:"session_id,omitempty"`
	SessionName string      `json:"session_name,omitempty"`
	// Nonce names the job's end (a pane option) and wait-for channel.
	Nonce      string    `json:"nonce"`
	State      string    `json:"state"`
	ExitStatus *int      `json:"exit_status,omitempty"`
	Reason     string    `json:"reason,omitempty"`
	Started    time.Time `json:"started"`
	Ended      time.Time `json:"ended,omitzero"`
	// ServerPID and PanePID identify the server and the pane's process the
	// job ran under: another PID is another server or a respawned pane.
	ServerPID int       `json:"server_pid"`
	PanePID   int       `json:"pane_pid"`
	Anchor    JobAnchor `json:"anchor"`
	// Before are the processes below the pane's process just before the
	// job was typed: they are not the job's.
	Before []int `json:"before,omitempty"`
	// File is the file the job's line sources.
	File string `json:"file,omitempty"`
	// Tail is the end of the output as last read, bounded by the tools.
	Tail              []string `json:"tail,omitempty"`
	TruncatedLines    int      `json:"truncated_lines,omitempty"`
	HistoryOverflowed bool     `json:"history_overflowed,omitempty"`
	// Proc is the PID of the tmux-mcp process that watches the job.
	Proc int `json:"proc"`
	// Kind is "call" for an MCP task's call (Call), "" for a command.
	Kind string   `json:"kind,omitempty"`
	Call *JobCall `json:"call,omitempty"`
}

// JobCall is the task of a job that is a tool call: its state, and its
// result or error once it ended, as the task reports them (JSON).
type JobCall struct {
	Tool         string          `json:"tool"`
	Status       string          `json:"status"`
	Message      string          `json:"message,omitempty"`
	Result       json.RawMessage `json:"result,omitempty"`
	Error        json.RawMessage `json:"error,omitempty"`
	TTL          time.Duration   `json:"ttl,omitempty"`
	PollInterval time.Duration   `json:"poll_interval,omitempty"`
	// Owner is the key of the caller the task belongs to: a digest,
	// never a credential or a session ID.
	Owner string `json:"owner,omitempty"`
}

// JobAnchor is where a pane's history stood when a job was typed into it.
type JobAnchor struct {
	HistorySize  int `json:"history_size"`
	HistoryLimit int `json:"history_limit"`
	Width        int `json:"width"`
	Height       int `json:"height"`
	CursorY      int `json:"cursor_y"`
	// Lines is how many lines the job's command shows as from the
	// prompt's row (0 in records of before: one).
	Lines int `json:"lines,omitempty"`
}

// keepJobs is how many jobs of each kind (commands, and calls: MCP
// tasks) each server keeps: beyond it the oldest that ended are deleted.
// The kinds count apart, so a client's tasks never push a background
// command out.
const keepJobs = 200

// PutJob stores job under its server, replacing the record of the same ID.
// It never blocks: the record is written in the background. A job that is
// not running never goes back to running: a record that would do so (a
// late write of a process that had not heard of the end) is dropped.
func (j *Journal) PutJob(job Job) {
	if j == nil || job.ID == "" {
		return
	}
	job.Tail = slices.Clone(job.Tail)
	key := socketKey(job.Socket)
	j.w.enqueue(func(tx *bolt.Tx) error {
		b, err := serverBucket(tx, key, job.Socket)
		if err != nil {
			return err
		}
		jb := b.Bucket(bucketJobs)
		if job.State == JobRunning {
			if old, ok := readJob(jb.Get([]byte(job.ID))); ok && old.State != JobRunning {
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
func (j *Journal) Jobs() ([]Job, error) {
	if j == nil {
		return nil, ErrOff
	}
	var out []Job
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
	slices.SortStableFunc(out, func(a, b Job) int {
		if c := a.Started.Compare(b.Started); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, err
}

// readJob decodes a job record; ok is false for one that is unreadable
// (written by a newer tmux-mcp, or damaged).
func readJob(v []byte) (Job, bool) {
	var job Job
	if v == nil || json.Unmarshal(v, &job) != nil || job.ID == "" {
		return Job{}, false
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
		if !ok || job.State != JobRunning {
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
	var lost []Job
	jb.ForEach(func(_, v []byte) error { //nolint:errcheck // never fails
		job, ok := readJob(v)
		if ok && job.State == JobRunning && (e.PID == 0 || job.ServerPID == e.PID) {
			lost = append(lost, job)
		}
		return nil
	})
	for _, job := range lost {
		job.State = JobLost
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
