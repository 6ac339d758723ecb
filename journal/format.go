package journal

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/tmux-mcp/tmux-mcp/supervisor/death"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// FormatVersion is the version of the file format this package writes.
const FormatVersion = 2

// migrations[i] upgrades a file of version i+1 to version i+2, inside the
// transaction that then records the new version.
var migrations = [FormatVersion - 1]func(tx *bolt.Tx) error{
	// 1 to 2: each server gets a jobs/ bucket.
	func(tx *bolt.Tx) error {
		servers := tx.Bucket(bucketServers)
		if servers == nil {
			return nil
		}
		return servers.ForEachBucket(func(k []byte) error {
			_, err := servers.Bucket(k).CreateBucketIfNotExists(bucketJobs)
			return err
		})
	},
}

var (
	bucketMeta      = []byte("meta")
	bucketServers   = []byte("servers")
	bucketSnapshots = []byte("snapshots")
	bucketEvents    = []byte("events")
	bucketIDs       = []byte("ids")
	bucketCreated   = []byte("created")
	bucketJobs      = []byte("jobs")
	keyVersion      = []byte("version")
	keyCreated      = []byte("created")
	keyInfo         = []byte("info")
)

// ensureLayout creates the buckets of a fresh file, migrates an older
// format and refuses a newer one or a file that is not a journal.
func ensureLayout(tx *bolt.Tx) error {
	meta := tx.Bucket(bucketMeta)
	if meta == nil {
		if hasBuckets(tx) {
			return fmt.Errorf("%w: not a tmux-mcp journal", ErrCorrupt)
		}
		var err error
		if meta, err = tx.CreateBucket(bucketMeta); err != nil {
			return err
		}
		if err := meta.Put(keyVersion, []byte(strconv.Itoa(FormatVersion))); err != nil {
			return err
		}
		if err := meta.Put(keyCreated, []byte(time.Now().UTC().Format(time.RFC3339))); err != nil {
			return err
		}
	}
	v, err := strconv.Atoi(string(meta.Get(keyVersion)))
	switch {
	case err != nil || v < 1:
		return fmt.Errorf("%w: bad format version %q", ErrCorrupt, meta.Get(keyVersion))
	case v > FormatVersion:
		return fmt.Errorf("%w: format %d, this tmux-mcp reads up to %d", ErrNewerFormat, v, FormatVersion)
	case v < FormatVersion:
		for ; v < FormatVersion; v++ {
			if err := migrations[v-1](tx); err != nil {
				return fmt.Errorf("journal: migrate format %d to %d: %w", v, v+1, err)
			}
		}
		if err := meta.Put(keyVersion, []byte(strconv.Itoa(FormatVersion))); err != nil {
			return err
		}
	}
	_, err = tx.CreateBucketIfNotExists(bucketServers)
	return err
}

// checkLayout is ensureLayout for read-only transactions.
func checkLayout(tx *bolt.Tx) error {
	v, err := fileVersion(tx)
	if err == nil && v > 0 && v < FormatVersion {
		return fmt.Errorf("journal: format %d not migrated yet", v)
	}
	return err
}

// fileVersion returns the format version of the file (0: fresh, not
// initialised yet). It fails for a file that is not a journal and for one
// of a newer format; an older one is for the caller to refuse or migrate.
func fileVersion(tx *bolt.Tx) (int, error) {
	meta := tx.Bucket(bucketMeta)
	if meta == nil {
		if hasBuckets(tx) {
			return 0, fmt.Errorf("%w: not a tmux-mcp journal", ErrCorrupt)
		}
		return 0, nil
	}
	v, err := strconv.Atoi(string(meta.Get(keyVersion)))
	switch {
	case err != nil || v < 1:
		return 0, fmt.Errorf("%w: bad format version %q", ErrCorrupt, meta.Get(keyVersion))
	case v > FormatVersion:
		return 0, fmt.Errorf("%w: format %d, this tmux-mcp reads up to %d", ErrNewerFormat, v, FormatVersion)
	}
	return v, nil
}

func hasBuckets(tx *bolt.Tx) bool {
	k, _ := tx.Cursor().First()
	return k != nil
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
	LastDeath *deathRecord `json:"last_death,omitempty"`
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

type deathRecord struct {
	PID   int         `json:"pid"`
	Cause death.Cause `json:"cause"`
	At    time.Time   `json:"at"`
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
	for _, name := range [][]byte{bucketSnapshots, bucketEvents, bucketIDs, bucketCreated, bucketJobs} {
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
