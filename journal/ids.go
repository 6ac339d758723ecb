package journal

import (
	"encoding/json"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/tmux-mcp/tmux-mcp/tmux"
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
	newID, ok = j.idMap(sock)[oldID]
	return newID, ok
}

// idCacheTTL is how long Resolve trusts its copy of a server's ID map.
// Tools resolve the IDs of every call, so the map is read from the file
// at most once per TTL per server, not once per call; this process's own
// restores replace it at once, another process's are seen within the TTL.
const idCacheTTL = time.Second

// idCache is one server's ID map as last read.
type idCache struct {
	read time.Time
	ids  map[string]string
}

// idMap returns the old-to-new map into the latest instance of sock's
// server, from the cache while it is fresh.
func (j *Journal) idMap(sock tmux.Socket) map[string]string {
	key := socketKey(sock)
	j.idMu.Lock()
	c, ok := j.ids[key]
	j.idMu.Unlock()
	if ok && time.Since(c.read) < idCacheTTL {
		return c.ids
	}
	ids := map[string]string{}
	j.view(func(servers *bolt.Bucket) error { //nolint:errcheck // unreadable: nothing resolves
		if b := lookup(servers, key, nil); b != nil {
			ids = idsFor(b, readInfo(b).Instance)
		}
		return nil
	})
	j.idMu.Lock()
	if j.ids == nil {
		j.ids = map[string]idCache{}
	}
	j.ids[key] = idCache{read: time.Now(), ids: ids}
	j.idMu.Unlock()
	return ids
}

// forgetIDs drops the cached ID map of the server at key: a restore just
// wrote a new one.
func (j *Journal) forgetIDs(key string) {
	j.idMu.Lock()
	delete(j.ids, key)
	j.idMu.Unlock()
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
