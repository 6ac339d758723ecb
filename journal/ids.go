package journal

import (
	"encoding/json"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/tmux-mcp/tmux-mcp/supervisor/tmux"
)

// Mapping says which object replaced an old one after a restore.
type Mapping struct {
	ID   string    `json:"id"`   // the new ID
	To   string    `json:"to"`   // instance the new ID belongs to
	From string    `json:"from"` // instance the old ID belonged to
	At   time.Time `json:"at"`
}

// Resolve returns the ID of the object that replaced oldID ("$3", "@7",
// "%12") on sock's server after a restore, if it is known and belongs to
// the latest instance of that server. The mapping is kept in the file and
// so survives a tmux-mcp restart. Across several restores it follows the
// chain: an ID of the first server resolves to the object of the last.
//
// IDs start again from 0 on a new server, so an old ID may also name a
// different live object: callers should resolve only IDs the live server
// does not know, or IDs they learned before the restore.
func (j *Journal) Resolve(sock tmux.Socket, oldID string) (newID string, ok bool) {
	if j == nil || oldID == "" {
		return "", false
	}
	j.view(func(servers *bolt.Bucket) error { //nolint:errcheck // not found is the answer
		b := lookup(servers, socketKey(sock), nil)
		if b == nil || b.Bucket(bucketIDs) == nil {
			return nil
		}
		var m Mapping
		v := b.Bucket(bucketIDs).Get([]byte(oldID))
		if v == nil || json.Unmarshal(v, &m) != nil {
			return nil
		}
		if info := readInfo(b); info.Instance != "" && info.Instance == m.To {
			newID, ok = m.ID, true
		}
		return nil
	})
	return newID, ok
}

// idsFor returns the old-to-new map of the mappings into instance.
func idsFor(b *bolt.Bucket, instance string) map[string]string {
	out := map[string]string{}
	ids := b.Bucket(bucketIDs)
	if ids == nil || instance == "" {
		return out
	}
	ids.ForEach(func(k, v []byte) error { //nolint:errcheck // never fails
		var m Mapping
		if json.Unmarshal(v, &m) == nil && m.To == instance {
			out[string(k)] = m.ID
		}
		return nil
	})
	return out
}

// recordMap stores the mapping of a restore from instance from onto
// instance to. Mappings that led into from now lead on into to, so that
// IDs of earlier servers keep resolving; mappings of from's own IDs come
// last and win when an old ID was used by two servers.
func recordMap(b *bolt.Bucket, from, to string, m map[string]string, at time.Time) error {
	ids := b.Bucket(bucketIDs)
	if from != to {
		type update struct {
			k []byte
			m Mapping
		}
		var chained []update
		ids.ForEach(func(k, v []byte) error { //nolint:errcheck // never fails
			var old Mapping
			if json.Unmarshal(v, &old) != nil || old.To != from {
				return nil
			}
			if n, ok := m[old.ID]; ok {
				old.ID, old.To, old.At = n, to, at
				chained = append(chained, update{append([]byte(nil), k...), old})
			}
			return nil
		})
		for _, u := range chained {
			v, err := json.Marshal(u.m)
			if err != nil {
				return err
			}
			if err := ids.Put(u.k, v); err != nil {
				return err
			}
		}
	}
	for old, n := range m {
		if old == n && from == to {
			continue
		}
		v, err := json.Marshal(Mapping{ID: n, To: to, From: from, At: at})
		if err != nil {
			return err
		}
		if err := ids.Put([]byte(old), v); err != nil {
			return err
		}
	}
	return nil
}
