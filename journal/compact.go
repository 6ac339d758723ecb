package journal

import (
	"fmt"
	"os"
	"strconv"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Compact applies retention (events older than KeepEvents, snapshots
// beyond KeepSnapshots) and rewrites the file without its free pages:
// bbolt files never shrink by themselves. The rewrite happens under the
// file's lock and replaces the file by rename, so other processes simply
// open the new one. It returns the file's size before and after.
func (j *Journal) Compact() (before, after int64, err error) {
	if j == nil {
		return 0, 0, ErrOff
	}
	err = j.update(func(tx *bolt.Tx) error {
		if err := pruneEvents(tx, time.Now().Add(-j.opts.KeepEvents)); err != nil {
			return err
		}
		return tx.Bucket(bucketServers).ForEachBucket(func(k []byte) error {
			if sb := tx.Bucket(bucketServers).Bucket(k).Bucket(bucketSnapshots); sb != nil {
				return trim(sb, j.opts.KeepSnapshots)
			}
			return nil
		})
	})
	if err != nil {
		return 0, 0, err
	}
	err = j.withDB(false, func(src *bolt.DB, f *os.File) error {
		fi, err := f.Stat()
		if err != nil {
			return fmt.Errorf("journal: compact: %w", err)
		}
		before = fi.Size()
		tmp := j.path + ".compact-" + strconv.Itoa(os.Getpid())
		os.Remove(tmp) //nolint:errcheck // a leftover of a killed compaction
		dst, err := bolt.Open(tmp, 0o600, &bolt.Options{Timeout: j.opts.LockTimeout})
		if err != nil {
			return fmt.Errorf("journal: compact: %w", err)
		}
		if err := bolt.Compact(dst, src, 16<<20); err != nil {
			dst.Close()
			os.Remove(tmp)
			return fmt.Errorf("journal: compact: %w", err)
		}
		if err := dst.Close(); err != nil {
			os.Remove(tmp)
			return fmt.Errorf("journal: compact: %w", err)
		}
		ti, err := os.Stat(tmp)
		if err != nil {
			return fmt.Errorf("journal: compact: %w", err)
		}
		after = ti.Size()
		if err := os.Rename(tmp, j.path); err != nil {
			os.Remove(tmp)
			return fmt.Errorf("journal: compact: %w", err)
		}
		return nil
	}, false)
	return before, after, err
}
