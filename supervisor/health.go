package supervisor

import (
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor/death"
)

// rateMeter counts commands per second over the last ten seconds.
type rateMeter struct {
	mu      sync.Mutex
	buckets [10]struct {
		sec int64
		n   uint64
	}
}

func (m *rateMeter) add(t time.Time) {
	sec := t.Unix()
	m.mu.Lock()
	b := &m.buckets[sec%10]
	if b.sec != sec {
		b.sec, b.n = sec, 0
	}
	b.n++
	m.mu.Unlock()
}

// perSecond returns the average rate over the ten seconds before now.
func (m *rateMeter) perSecond(now time.Time) float64 {
	sec := now.Unix()
	var n uint64
	m.mu.Lock()
	for _, b := range m.buckets {
		if b.sec > sec-10 && b.sec <= sec {
			n += b.n
		}
	}
	m.mu.Unlock()
	return float64(n) / 10
}

// Health is a snapshot of a supervised server.
type Health struct {
	Socket         string      `json:"socket"`
	State          State       `json:"state"`
	PID            int         `json:"pid,omitempty"`
	Version        string      `json:"version,omitempty"`
	Transport      string      `json:"transport"`
	Owned          bool        `json:"owned"` // tmux-mcp started this server
	UpSince        time.Time   `json:"up_since,omitzero"`
	UptimeSeconds  float64     `json:"uptime_seconds"`
	Restarts       int         `json:"restarts"`
	LastDeathCause death.Cause `json:"last_death_cause,omitempty"`
	LastDeath      string      `json:"last_death,omitempty"`
	LastDeathAt    time.Time   `json:"last_death_at,omitzero"`
	RetryInSeconds float64     `json:"retry_in_seconds,omitempty"`
	// Restoring says that the server's sessions are being restored (after
	// a restart, or a start that replaced a server that ended), and that
	// the restore found something to restore: calls that act on the tree
	// wait until it ends (at most 10s each).
	Restoring        bool    `json:"restoring,omitempty"`
	RestoringSeconds float64 `json:"restoring_seconds,omitempty"`
	FDs              int     `json:"fds"`
	FDLimit          uint64  `json:"fd_limit"`
	PTYs             int     `json:"ptys"`
	PTYMax           int     `json:"pty_max"`
	RSSBytes         uint64  `json:"rss_bytes"`
	Threads          int     `json:"threads"`
	CPUPercent       float64 `json:"cpu_percent"`
	CommandsPerSec   float64 `json:"commands_per_sec"`
	Commands         uint64  `json:"commands"`
	CacheHits        uint64  `json:"cache_hits"`
	CacheHitRatio    float64 `json:"cache_hit_ratio"`
	RateLimited      uint64  `json:"rate_limited"`
	// Captures counts captures that reached tmux; Barriers counts the
	// round trips that proved cached captures fresh (see supervisor/capture/freshness.go).
	// Neither is in Commands' per-command events as the other's.
	Captures uint64 `json:"captures"`
	Barriers uint64 `json:"barriers"`
	Watchers int    `json:"watchers"`
	// Blocking counts the commands waiting inside tmux now (wait-for,
	// doBlocking), each on a client connection of its own.
	Blocking int `json:"blocking"`
	// PipeFeeds counts the panes whose output a pipe-pane feeds to
	// subscribers where no watcher covers them (tmux 3.2a).
	PipeFeeds int `json:"pipe_feeds"`
}

// Health returns the server's current health snapshot. It makes no tmux
// call: resources come from the monitor's last sample.
func (s *Server) Health() Health {
	now := s.now()
	hits, reads := s.cacheHits.Load(), s.tmuxReads.Load()
	h := Health{
		Socket: s.sock.String(), Transport: s.client.Transport().Kind(),
		Commands: s.commands.Load(), CacheHits: hits, RateLimited: s.rateLimited.Load(),
		CommandsPerSec: s.meter.perSecond(now), Captures: reads, Barriers: s.fresh.Barriers(),
		Watchers: s.fresh.Watchers(), Blocking: int(s.waiting.Load()),
		PipeFeeds: s.fresh.PipeFeeds(),
	}
	if hits+reads > 0 {
		h.CacheHitRatio = float64(hits) / float64(hits+reads)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	h.State, h.PID, h.Version, h.Owned = s.state, s.id.pid, s.id.version, s.id.owned != nil
	if s.state == StateUp {
		h.UpSince = s.id.upSince
		h.UptimeSeconds = now.Sub(s.id.upSince).Seconds()
	}
	if s.state == StateRestarting {
		h.RetryInSeconds = max(s.retryAt.Sub(now).Seconds(), 0)
	}
	if s.restore.state == RestoreRunning {
		h.Restoring, h.RestoringSeconds = true, now.Sub(s.restore.since).Seconds()
	}
	h.Restarts, h.LastDeathCause, h.LastDeath, h.LastDeathAt = s.restarts, s.lastCause, s.lastDetail, s.lastDeathAt
	h.FDs, h.FDLimit, h.PTYs, h.PTYMax = s.res.FDs, s.res.FDLimit, s.res.PTYs, s.res.PTYMax
	h.RSSBytes, h.Threads, h.CPUPercent = s.res.RSS, s.res.Threads, s.res.CPUPercent
	return h
}
