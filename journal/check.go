package journal

import (
	"errors"
	"fmt"
	"os"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Check runs bbolt's consistency check on the file and returns every
// problem found, wrapped in ErrCorrupt (nil when the file is sound). It
// changes nothing.
func (j *Journal) Check() error {
	if j == nil {
		return ErrOff
	}
	return j.withDB(true, checkDB, false)
}

// CheckFile is Check for a file that is not opened as a journal: it
// neither creates, migrates nor moves anything. `tmux-mcp journal check`
// uses it.
func CheckFile(path string, lockTimeout time.Duration) error {
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	j := &Journal{path: path, opts: Options{LockTimeout: lockTimeout}.withDefaults()}
	j.log = j.opts.Logger
	return j.Check()
}

// checkDB runs tx.Check and returns what it found as ErrCorrupt.
func checkDB(db *bolt.DB, _ *os.File) error {
	var problems []error
	err := db.View(func(tx *bolt.Tx) error {
		// An older format is sound: Open migrates it next.
		if _, err := fileVersion(tx); err != nil {
			return err
		}
		for err := range tx.Check() {
			if len(problems) < 20 {
				problems = append(problems, err)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(problems) > 0 {
		return fmt.Errorf("%w: %w", ErrCorrupt, errors.Join(problems...))
	}
	return nil
}
