package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	bolt "go.etcd.io/bbolt"
)

// Bounds. Everything in a snapshot comes from tmux, and a pane's program
// or any client can set a 1 MiB name, title or directory that the next
// snapshot, and the 49 after it, would copy: fields are capped, a
// snapshot has a size limit, event details are cut, and the file as a
// whole has a bound (Options.MaxBytes) that the oldest events and
// snapshots give way to.
const (
	// maxNameBytes bounds session, window and group names, titles and the
	// foreground program's name: longer ones are cut (a restore names the
	// object by the cut name).
	maxNameBytes = 1024
	// maxPathBytes bounds directories and the server's socket and binary:
	// a longer one is left out (a cut path would be another directory).
	maxPathBytes = 4096
	// maxCommandBytes and maxArgs bound a start command and an argv: a
	// longer one is left out (a cut command would be another command).
	maxCommandBytes = 4096
	maxArgs         = 256
	// maxLayoutBytes bounds a window layout (some 20 bytes a pane): a
	// longer one is left out, and a restore lets tmux lay the panes out.
	maxLayoutBytes = 64 << 10
	// maxDetailBytes bounds an event's cause, notification and detail.
	maxDetailBytes = 1024
	// maxCreatedBytes bounds a Created record (the argv, directory and
	// environment tmux-mcp's tools were given): beyond it the environment
	// values go, then the argv.
	maxCreatedBytes = 64 << 10
	// MaxSnapshotBytes is the largest snapshot stored, as JSON: a larger
	// one is not stored (ErrSnapshotTooLarge) and the previous one stays
	// the one a restore uses.
	MaxSnapshotBytes = 4 << 20
	// DefaultMaxBytes is Options.MaxBytes's default, MinMaxBytes its
	// least value (room for a few servers' latest snapshots).
	DefaultMaxBytes = 64 << 20
	MinMaxBytes     = 16 << 20
)

// ErrSnapshotTooLarge: a snapshot over MaxSnapshotBytes was not stored.
var ErrSnapshotTooLarge = errors.New("journal: snapshot too large")

// cut returns s cut to at most n bytes, on a rune boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// within returns s when it holds at most n bytes, else "".
func within(s string, n int) string {
	if len(s) > n {
		return ""
	}
	return s
}

// capFields applies the field bounds to a snapshot read from tmux.
func (s *Snapshot) capFields() {
	s.Server.Version = cut(s.Server.Version, maxNameBytes)
	s.Server.Socket = within(s.Server.Socket, maxPathBytes)
	s.Server.Binary = within(s.Server.Binary, maxPathBytes)
	for i := range s.Sessions {
		sess := &s.Sessions[i]
		sess.Name, sess.Group = cut(sess.Name, maxNameBytes), cut(sess.Group, maxNameBytes)
		for j := range sess.Windows {
			w := &sess.Windows[j]
			w.Name = cut(w.Name, maxNameBytes)
			w.Layout, w.VisibleLayout = within(w.Layout, maxLayoutBytes), within(w.VisibleLayout, maxLayoutBytes)
			for k := range w.Panes {
				p := &w.Panes[k]
				p.Title, p.Command = cut(p.Title, maxNameBytes), cut(p.Command, maxNameBytes)
				p.Path, p.StartPath = within(p.Path, maxPathBytes), within(p.StartPath, maxPathBytes)
				p.StartCommand = within(p.StartCommand, maxCommandBytes)
				if !argvWithin(p.Argv) {
					p.Argv = nil
				}
			}
		}
	}
}

// argvWithin reports whether argv fits maxArgs and maxCommandBytes.
func argvWithin(argv []string) bool {
	n := 0
	for _, a := range argv {
		n += len(a) + 1
	}
	return len(argv) <= maxArgs && n <= maxCommandBytes
}

// capCreated bounds a Created record: environment values go first, then
// the argv, then the directory, until it fits maxCreatedBytes.
func capCreated(c *Created) {
	size := func() int {
		n := len(c.Cwd)
		for _, s := range c.Argv {
			n += len(s) + 4
		}
		for _, s := range c.Env {
			n += len(s) + 4
		}
		return n
	}
	if size() <= maxCreatedBytes {
		return
	}
	for i, kv := range c.Env {
		c.Env[i], _, _ = strings.Cut(kv, "=")
	}
	if size() > maxCreatedBytes {
		c.Argv = nil
	}
	if size() > maxCreatedBytes {
		c.Cwd = ""
	}
	if size() > maxCreatedBytes {
		c.Env = nil
	}
}

// shrinkTarget is the share of MaxBytes the data is brought down to
// when the file has grown past MaxBytes, so that the next pass is far off.
const shrinkTarget = 2

// bound keeps the file near Options.MaxBytes: once it is larger, the
// oldest events go, then the oldest snapshots (each server keeps its
// latest), then the servers least recently snapshotted (the latest one
// stays), until the data left fits in half of MaxBytes; then the file is
// rewritten without its free pages. bbolt grows a file by up to 16 MiB
// at a time, so the file stays under MaxBytes plus that and one write.
func (j *Journal) bound() {
	if j.opts.MaxBytes <= 0 {
		return
	}
	fi, err := os.Stat(j.path)
	if err != nil || fi.Size() <= j.opts.MaxBytes {
		return
	}
	if !j.bounding.TryLock() {
		return // another goroutine of this process is at it
	}
	defer j.bounding.Unlock()
	var gone shrunk
	err = j.update(func(tx *bolt.Tx) error {
		var err error
		gone, err = shrink(tx, j.opts.MaxBytes/shrinkTarget)
		return err
	})
	if err == nil {
		_, _, err = j.Compact()
	}
	if err != nil {
		j.log.Warn("journal: the file is over its bound and could not be shrunk", "path", j.path, "size", fi.Size(),
			"max_bytes", j.opts.MaxBytes, "err", err.Error())
		return
	}
	j.log.Warn("journal: the file reached its bound; the oldest records were dropped", "path", j.path,
		"size", fi.Size(), "max_bytes", j.opts.MaxBytes, "events", gone.events, "snapshots", gone.snapshots, "servers", gone.servers)
}

// shrunk counts what shrink deleted.
type shrunk struct{ events, snapshots, servers int }

// shrink deletes the oldest events and snapshots, and then whole servers,
// until the data of the servers' buckets is at most target bytes.
func shrink(tx *bolt.Tx, target int64) (shrunk, error) {
	var gone shrunk
	servers := tx.Bucket(bucketServers)
	if servers == nil {
		return gone, nil
	}
	var keys [][]byte
	servers.ForEachBucket(func(k []byte) error { //nolint:errcheck // never fails
		keys = append(keys, append([]byte(nil), k...))
		return nil
	})
	total := bucketBytes(servers)
	// Events, then snapshots beyond each server's latest: the older half
	// of each server's at a time.
	for _, step := range []struct {
		bucket []byte
		keep   int
		count  *int
	}{{bucketEvents, 0, &gone.events}, {bucketSnapshots, 1, &gone.snapshots}} {
		for total > target {
			freed, n := int64(0), 0
			for _, k := range keys {
				if b := servers.Bucket(k).Bucket(step.bucket); b != nil {
					f, d, err := deleteOldest(b, step.keep)
					if err != nil {
						return gone, err
					}
					freed, n = freed+f, n+d
				}
			}
			if n == 0 {
				break
			}
			total -= freed
			*step.count += n
		}
	}
	// Then whole servers, the least recently snapshotted first; the most
	// recent stays whatever its size.
	if total > target && len(keys) > 1 {
		slices.SortFunc(keys, func(a, b []byte) int {
			return lastSnapshot(servers.Bucket(a)).Compare(lastSnapshot(servers.Bucket(b)))
		})
		for _, k := range keys[:len(keys)-1] {
			if total <= target {
				break
			}
			total -= bucketBytes(servers.Bucket(k)) + int64(len(k))
			if err := servers.DeleteBucket(k); err != nil {
				return gone, err
			}
			gone.servers++
		}
	}
	return gone, nil
}

// deleteOldest deletes the older half (at least one) of b's entries,
// never the newest keep, and returns the bytes and entries it freed.
func deleteOldest(b *bolt.Bucket, keep int) (int64, int, error) {
	n := b.Stats().KeyN - keep
	if n <= 0 {
		return 0, 0, nil
	}
	n = max(1, n/2)
	var ks [][]byte
	var freed int64
	c := b.Cursor()
	for k, v := c.First(); k != nil && len(ks) < n; k, v = c.Next() {
		ks = append(ks, bytes.Clone(k))
		freed += int64(len(k) + len(v))
	}
	for _, k := range ks {
		if err := b.Delete(k); err != nil {
			return 0, 0, err
		}
	}
	return freed, len(ks), nil
}

// bucketBytes is the size of b's keys and values, nested buckets
// included.
func bucketBytes(b *bolt.Bucket) int64 {
	var n int64
	b.ForEach(func(k, v []byte) error { //nolint:errcheck // never fails
		n += int64(len(k) + len(v))
		if v == nil {
			if sub := b.Bucket(k); sub != nil {
				n += bucketBytes(sub)
			}
		}
		return nil
	})
	return n
}

// lastSnapshot returns when a server's latest snapshot was taken (zero
// without one).
func lastSnapshot(b *bolt.Bucket) time.Time {
	var last struct {
		Taken time.Time `json:"taken"`
	}
	if sb := b.Bucket(bucketSnapshots); sb != nil {
		if _, v := sb.Cursor().Last(); v != nil {
			json.Unmarshal(v, &last) //nolint:errcheck // zero time if unreadable
		}
	}
	return last.Taken
}

// snapshotTooLarge is the error of a snapshot of size bytes.
func snapshotTooLarge(socket string, size int) error {
	return fmt.Errorf("%w: the snapshot of %s is %d bytes, more than %d: not stored (the previous one stays)",
		ErrSnapshotTooLarge, socket, size, MaxSnapshotBytes)
}
